// SPDX-License-Identifier: GPL-2.0

//! Binding and finding sockets by name: `bind()`, the lookups of connect/sendto
//! (`unix_find_other()`), and the names `getsockname()`/`getpeername()` report.
//!
//! Tables in [`crate::hash`], the VFS in [`crate::vfs`].

#![deny(unsafe_code)]

use crate::api::addr::{Name, SunAddr, UnixAddress, PATH_OFFSET};
use crate::api::error::{EADDRINUSE, ECONNREFUSED, EPROTOTYPE};
use crate::api::kline::ARef;
use crate::api::lsm;
use crate::api::sock::Sock;
use crate::autobind::autobind;
use crate::hash::{self, AbstractName, Bucket};
use crate::vfs::{NewSocketInode, SocketFile};
use kernel::error::{code::*, Result};
use kernel::prelude::*;
use kernel::str::CStr;

/// `bind()`: autobind for a bare family, else a pathname or abstract name.
///
/// Out of line under a fixed symbol name: the kprobe target that matches AF_UNIX's
/// `unix_bind` (`make bench` traces both). Called from Rust only, with the Rust ABI.
#[allow(
    unsafe_code,
    clippy::no_mangle_with_rust_abi,
    reason = "no_mangle: a fixed symbol for kprobes; no C caller"
)]
#[no_mangle]
#[inline(never)]
pub(crate) fn rust_afunix_bind(sk: &Sock, sun: &SunAddr) -> Result {
    if sun.len() == PATH_OFFSET && sun.family_ok() {
        return autobind(sk);
    }
    let name = sun.validate()?;
    // Allocated before any lock.
    let addr = UnixAddress::of(&name)?;
    match name {
        Name::Path(_) => bind_bsd(sk, addr),
        Name::Abstract(_) => bind_abstract(sk, addr),
    }
}

/// Binds an abstract name: `EADDRINUSE` if a socket of the same type has it.
fn bind_abstract(sk: &Sock, addr: ARef<UnixAddress>) -> Result {
    let _b = sk.bind_lock()?;
    if sk.has_addr() {
        return Err(EINVAL);
    }
    let table = sk.table();
    let h = table.name_hash(addr.name(), sk.sk_type());
    let new = Bucket::abstract_name(h);
    let mut g = table.lock2(Bucket::of(sk), new);
    if g.find_name(h, addr.name()).is_some() {
        return Err(EADDRINUSE.into());
    }
    g.rehash(sk, addr, new, Some(h))
}

/// Binds a pathname: creates the socket inode, then publishes the socket in its netns
/// table and the global one. The inode is removed again if the bind fails after.
fn bind_bsd(sk: &Sock, addr: ARef<UnixAddress>) -> Result {
    let inode = NewSocketInode::create(sk, &addr).map_err(|e| {
        if e == EEXIST {
            EADDRINUSE.into()
        } else {
            e
        }
    })?;
    let b = match sk.bind_lock() {
        Ok(b) => b,
        Err(e) => {
            inode.unlink();
            return Err(e);
        }
    };
    if sk.has_addr() {
        drop(b);
        inode.unlink();
        return Err(EINVAL);
    }
    let ino = inode.ino();
    let new = Bucket::bsd(ino);
    {
        let table = sk.table();
        let mut g = table.lock2(Bucket::of(sk), new);
        // The netns table before the global one: a socket once in a striped chain (the
        // global table is one) is refused by the lower half.
        if let Err(e) = g.rehash(sk, addr, new, None) {
            drop(g);
            drop(b);
            inode.unlink();
            return Err(e);
        }
        let i = inode.inode();
        sk.set_path(inode.path(), i, crate::api::keys::inode_key(i));
    }
    hash::bsd_insert(sk);
    drop(b);
    Ok(())
}

/// A validated name as a connect or send of a socket looks it up, once or more
/// ([`Target::find`]): an abstract name hashed once in the socket's table, where the
/// lookup's retry loop does not hold it. Made for one socket only ([`Target::new`]).
pub(crate) struct Target<'a>(Kind<'a>);

enum Kind<'a> {
    /// A file system name, and the socket whose type the found one must have.
    Path(&'a CStr, &'a Sock),
    /// An abstract name, in the socket's table, for its type.
    Abstract(AbstractName<'a>),
}

impl<'a> Target<'a> {
    /// `name`, as `sk` looks it up.
    #[inline(always)]
    pub(crate) fn new(sk: &'a Sock, name: Name<'a>) -> Target<'a> {
        Target(match name {
            Name::Path(p) => Kind::Path(p, sk),
            Name::Abstract(n) => Kind::Abstract(sk.table().abstract_name(n, sk.sk_type())),
        })
    }

    /// The socket the name designates, with a reference (`unix_find_other()`): a
    /// pathname through the VFS and the global table (`EPROTOTYPE` for another socket
    /// type), an abstract name in the socket's netns (`ECONNREFUSED` if nobody has it).
    // Inlined with the table's lookup into connect and sendto: calls LLVM left.
    #[inline(always)]
    pub(crate) fn find(&self) -> Result<ARef<Sock>> {
        match self.0 {
            Kind::Path(p, sk) => {
                let mut file = SocketFile::lookup(p)?;
                let other =
                    hash::find_by_inode(file.inode()).ok_or_else(|| Error::from(ECONNREFUSED))?;
                if other.sk_type() != sk.sk_type() {
                    return Err(EPROTOTYPE.into());
                }
                lsm::unix_find(&file, &other)?;
                file.touch_atime();
                Ok(other)
            }
            // Under RCU (`NetTable::find_abstract`).
            Kind::Abstract(ref n) => n.find().ok_or_else(|| ECONNREFUSED.into()),
        }
    }
}

/// Autobinds `sk` before a connect or send if it passes credentials and has no name.
pub(crate) fn maybe_autobind(sk: &Sock) -> Result {
    if sk.passcred() && !sk.has_addr() {
        autobind(sk)?;
    }
    Ok(())
}

/// Puts `sk` into its netns table's unbound half (at creation).
// Inlined, as `proto::init_new`: once per socket and embryo.
#[inline(always)]
pub(crate) fn insert_unbound(sk: &Sock) {
    sk.table().insert_unbound(sk);
}

/// Takes `sk` out of every table (at release).
pub(crate) fn remove(sk: &Sock) {
    sk.table().remove(sk);
    hash::bsd_remove(sk);
}
