// SPDX-License-Identifier: GPL-2.0

//! rust_afunix: AF_UNIX, reimplemented in Rust as a socket family of its own.
//!
//! The module registers a socket family (number: the `family` module parameter) with
//! `SOCK_STREAM`, `SOCK_DGRAM` and `SOCK_SEQPACKET` sockets that behave as AF_UNIX of
//! Linux 6.12 does. See README.md.
//!
//! Layout: `unsafe` lives in the thin layer over the C API: [`sock`] (sockets, skbs,
//! messages), [`socket`]'s trampolines, [`wakeup`] (wait queues), [`vfs`], [`proc`],
//! [`sync`] (the module's spinlock), the list operations of [`hash`], the pernet glue of
//! [`netns`] and this file's registration. The protocol and its policy are safe Rust:
//! [`proto`], [`names`], [`autobind`] (with its map), [`addr`] and [`resize`].

mod api;
mod autobind;
mod cmsg;
mod diag;
mod files;
mod gc;
mod hash;
mod names;
mod netns;
mod proc;
mod proto;
mod resize;
mod scm;
mod vfs;
mod wakeup;

// Transitional: the old paths of the files that moved into `api/`.
use api::{addr, bindings, error, sock, socket, sync};

use core::ffi::c_int;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{from_result, to_result};
use kernel::prelude::*;

module! {
    type: RustAfUnix,
    name: "rust_afunix",
    author: "rust_afunix developers",
    description: "AF_UNIX sockets reimplemented in Rust, as a socket family of their own",
    license: "GPL",
}

/// `AF_MAX` (= `NPROTO`) of 6.12: `sock_register` refuses numbers from here on.
const AF_MAX: c_int = 46;

/// The family number this module registered (the `family` parameter).
pub(crate) fn family() -> c_int {
    // SAFETY: The parameter is read-only (0444) after load.
    unsafe { ptr::addr_of!(bindings::afunix_family).read() }
}

/// The registration tables: two `struct proto` (their names show in
/// /proc/net/protocols), a `proto_ops` per socket type, and the family.
struct Tables {
    stream_proto: bindings::proto,
    dgram_proto: bindings::proto,
    stream_ops: bindings::proto_ops,
    dgram_ops: bindings::proto_ops,
    seqpacket_ops: bindings::proto_ops,
    family: bindings::net_proto_family,
    /// The sock_diag handler of the family ([`diag`]).
    diag: bindings::sock_diag_handler,
    /// Whether `diag` is registered (the module loads without it if the slot is taken).
    diag_registered: bool,
}

// SAFETY: The tables are plain C data that the module writes only in `init`, before
// publishing them, and the C side reads; they may be dropped from any thread.
unsafe impl Send for Tables {}

// SAFETY: Shared references to the tables are only handed to C, which reads them.
unsafe impl Sync for Tables {}

/// The published tables, for `create`.
///
/// Set before `sock_register` and cleared after `sock_unregister`; the module cannot be
/// unloaded while a socket exists (each socket holds a module reference through the
/// `owner` of the tables), so the tables outlive every callback.
static TABLES: AtomicPtr<Tables> = AtomicPtr::new(ptr::null_mut());

fn proto_named(name: &[u8]) -> bindings::proto {
    let mut p = bindings::proto::default();
    for (d, s) in p.name.iter_mut().zip(name) {
        *d = *s as _;
    }
    p.owner = THIS_MODULE.as_ptr().cast();
    p.obj_size = core::mem::size_of::<crate::sock::UnixSock>() as u32;
    p
}

/// `net_proto_family::create`: `socket(family, type, protocol)`.
///
/// # Safety
///
/// Only called by the socket core, with a new `struct socket`.
unsafe extern "C" fn create(
    net: *mut bindings::net,
    sock: *mut bindings::socket,
    protocol: c_int,
    kern: c_int,
) -> c_int {
    from_result(|| {
        let tables = TABLES.load(Ordering::Acquire);
        if tables.is_null() {
            return Err(error::EAFNOSUPPORT.into());
        }
        // `create` runs only between `sock_register` and `sock_unregister`, while
        // `tables` is published and alive; only raw pointers into it are formed, as
        // other CPUs use it at the same time.
        // SAFETY: `sock` is the new socket of this call.
        let ty = unsafe { (*sock).type_ };
        let (kind, ty) = proto::check_create(ty as u16, protocol)?;
        // SAFETY: `tables` is alive (see above); no reference is created.
        let (ops, prot) = unsafe {
            match kind {
                proto::Kind::Stream => (
                    ptr::addr_of!((*tables).stream_ops),
                    ptr::addr_of_mut!((*tables).stream_proto),
                ),
                proto::Kind::Dgram => (
                    ptr::addr_of!((*tables).dgram_ops),
                    ptr::addr_of_mut!((*tables).dgram_proto),
                ),
                proto::Kind::Seqpacket => (
                    ptr::addr_of!((*tables).seqpacket_ops),
                    ptr::addr_of_mut!((*tables).dgram_proto),
                ),
            }
        };
        // SAFETY: `sock` is the new socket of this call; SOCK_RAW becomes SOCK_DGRAM.
        unsafe {
            (*sock).state = bindings::socket_state_SS_UNCONNECTED;
            (*sock).type_ = ty as _;
            (*sock).ops = ops;
        }
        proto::account_new_socket()?;
        // SAFETY: Arguments of a `create` call; `prot` is registered with the size of
        // `UnixSock`.
        let r: Result<&sock::Sock> = unsafe {
            sock::Sock::alloc(
                net,
                sock,
                family(),
                prot,
                kern,
                sock::max_dgram_qlen(net),
                wakeup::write_space,
                destruct,
            )
        };
        if r.is_err() {
            proto::unaccount_socket();
        }
        proto::init_new(r?);
        Ok(0)
    })
}

/// `sk_destruct`: the last reference to a socket went a grace period ago
/// (`SOCK_RCU_FREE`); called from an RCU callback.
///
/// # Safety
///
/// Only called by `__sk_destruct`, for a socket of this family.
unsafe extern "C" fn destruct(sk: *mut bindings::sock) {
    // SAFETY: The core passes a socket of this family whose refcount dropped to zero
    // (a grace period ago); it is valid until this hook returns.
    let s = unsafe { sock::Sock::from_raw(sk) };
    proto::destruct(s);
    // SAFETY: This is `sk_destruct` (see `Sock::destruct_addr`).
    unsafe { s.destruct_addr() };
    // SAFETY: As above; undoes the `+1` of `Sock::alloc`.
    unsafe { bindings::afunix_prot_inuse_add(sk, -1) };
}

struct RustAfUnix {
    tables: Pin<KBox<Tables>>,
    /// The workqueue of the table resizes and the collector's runs; destroyed after
    /// the pernet exits.
    _queue: netns::OwnedQueue,
    /// The collector of fds in flight; freed after the workqueue (its runs) is gone.
    _gc: gc::GcHandle,
}

impl kernel::Module for RustAfUnix {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let fam = family();
        if fam <= 0 || fam >= AF_MAX {
            pr_err!(
                "family={} is not a usable family number: pick a free one in 1..{} (see README)\n",
                fam,
                AF_MAX - 1
            );
            return Err(EINVAL);
        }
        // Made first, destroyed after the pernet exits and the pathname table's
        // withdrawal: the tables queue their resizes on it.
        let queue = netns::OwnedQueue::new()?;
        let gc = gc::GcHandle::new()?;
        // Published until after `sock_unregister` (withdrawn in `drop`, or below on
        // failure), before any netns init reads it.
        hash::BsdTable::publish(hash::BsdTable::new()?);
        // SAFETY: Called once, at load; undone in `drop` or below on failure.
        let r = to_result(unsafe { bindings::afunix_pernet_register() }).and_then(|()| {
            match Self::register(fam) {
                Ok(tables) => Ok(tables),
                Err(e) => {
                    // SAFETY: Registered above; no socket of this family exists.
                    unsafe { bindings::afunix_pernet_unregister() };
                    Err(e)
                }
            }
        });
        match r {
            Ok(tables) => Ok(RustAfUnix {
                tables,
                _queue: queue,
                _gc: gc,
            }),
            Err(e) => {
                // SAFETY: No socket of this family exists.
                unsafe { hash::BSD.withdraw() };
                Err(e)
            }
        }
    }
}

impl RustAfUnix {
    fn register(fam: c_int) -> Result<Pin<KBox<Tables>>> {
        let owner: *mut bindings::module = THIS_MODULE.as_ptr().cast();
        let mut tables = KBox::pin(
            Tables {
                stream_proto: proto_named(b"RUST_AFUNIX-STREAM"),
                dgram_proto: proto_named(b"RUST_AFUNIX"),
                stream_ops: socket::proto_ops::<socket::Stream>(fam, owner),
                dgram_ops: socket::proto_ops::<socket::Dgram>(fam, owner),
                seqpacket_ops: socket::proto_ops::<socket::Seqpacket>(fam, owner),
                family: bindings::net_proto_family {
                    family: fam,
                    create: Some(create),
                    owner,
                },
                // `fam` is below `AF_MAX` (checked at load).
                diag: diag::handler(fam as u8, owner),
                diag_registered: false,
            },
            GFP_KERNEL,
        )?;
        // SAFETY: `Tables` holds no self-references and is not moved out of the box;
        // the C side keeps pointers into it until unregistration in `drop`.
        let t = unsafe { Pin::get_unchecked_mut(tables.as_mut()) };
        // SAFETY: `stream_proto` lives in the box until `proto_unregister` in `drop`.
        to_result(unsafe { bindings::proto_register(&mut t.stream_proto, 1) })?;
        // SAFETY: As above.
        if let Err(e) = to_result(unsafe { bindings::proto_register(&mut t.dgram_proto, 1) }) {
            // SAFETY: Registered just above.
            unsafe { bindings::proto_unregister(&mut t.stream_proto) };
            return Err(e);
        }
        TABLES.store(t, Ordering::Release);
        // SAFETY: `family` lives in the box until `sock_unregister` in `drop`.
        if let Err(e) = to_result(unsafe { bindings::sock_register(&t.family) }) {
            TABLES.store(ptr::null_mut(), Ordering::Release);
            // SAFETY: Registered above, and no socket could be created.
            unsafe {
                bindings::proto_unregister(&mut t.dgram_proto);
                bindings::proto_unregister(&mut t.stream_proto);
            }
            if e == EEXIST {
                pr_err!(
                    "family={} is taken by another protocol: load with another family= (see README)\n",
                    fam
                );
            } else {
                pr_err!("sock_register(family={}) failed: {:?}\n", fam, e);
            }
            return Err(e);
        }
        // Last, and not fatal: a failed load after this point could free the module's
        // code under a dump already started (a dump pins the module, but a failed init
        // does not wait for that), and sockets may exist already.
        // SAFETY: `diag` lives in the box until `sock_diag_unregister` (and a grace
        // period) in `drop`.
        match to_result(unsafe { bindings::sock_diag_register(&t.diag) }) {
            Ok(()) => t.diag_registered = true,
            Err(e) => pr_warn!(
                "sock_diag_register(family={}) failed ({:?}): no sock_diag for the family\n",
                fam,
                e
            ),
        }
        pr_info!("registered socket family {} (AF_UNIX in Rust)\n", fam);
        Ok(tables)
    }
}

impl Drop for RustAfUnix {
    fn drop(&mut self) {
        // SAFETY: Not moved out; see `init`.
        let t = unsafe { Pin::get_unchecked_mut(self.tables.as_mut()) };
        // SAFETY: Registered in `init`. No socket of this family exists (each holds a
        // module reference), and `sock_unregister` waits for `create` calls in flight.
        unsafe { bindings::sock_unregister(t.family.family) };
        TABLES.store(ptr::null_mut(), Ordering::Release);
        if t.diag_registered {
            // SAFETY: Registered in `init` (only then: unregistering clears the slot,
            // whoever holds it). A request or dump runs holding a module reference
            // (`sock_diag_lock_handler`, `netlink_dump_start`), so none is running; one
            // that read the handler's pointer under RCU is over after the grace period,
            // before the tables are freed.
            unsafe {
                bindings::sock_diag_unregister(&t.diag);
                bindings::synchronize_rcu();
            }
        }
        // SAFETY: Registered in `init`; no socket uses them any more.
        unsafe {
            bindings::proto_unregister(&mut t.dgram_proto);
            bindings::proto_unregister(&mut t.stream_proto);
        }
        // SAFETY: Registered in `init`; no socket (so no table user) is left.
        unsafe { bindings::afunix_pernet_unregister() };
        // SAFETY: No socket is left; the table goes now, or with a queued resize (which
        // `_queue`'s drop runs and which sees it withdrawn).
        unsafe { hash::BSD.withdraw() };
        pr_info!("unregistered socket family {}\n", t.family.family);
    }
}
