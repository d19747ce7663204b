// SPDX-License-Identifier: GPL-2.0

//! The protocol's lifecycle of a socket: creation, release, socketpair, shutdown,
//! listen, names, options and ioctls, as `net/unix/af_unix.c` of 6.12 does them, and
//! what the files of connections ([`crate::connect`]) and of the data paths
//! ([`crate::dgram`], [`crate::stream`]) share. [`crate::ops`] is the index.

#![deny(unsafe_code)]

use crate::api::addr::UnixAddress;
use crate::api::family::Create;

use crate::api::error::{
    ECONNRESET, ENOPROTOOPT, ENOTCONN, EOPNOTSUPP, EPROTONOSUPPORT, ESOCKTNOSUPPORT,
};

use crate::api::sock;
use crate::api::sock::Kind;
use crate::api::sock::{sock_type, wake_async, Conn, Shutdown, SkState, SkbDestructor, Sock};

use crate::api::socket::{IoctlAnswer, SockOpt};

use crate::gc;
use crate::names;

use crate::api::kline::{self, ARef};
use crate::opts::SockOpts;
use crate::wakeup;
use kernel::error::{code::*, Error, Result};

/// The destructor of the family's data skbs: their files go out of flight.
pub(crate) struct DataSkb;

impl SkbDestructor for DataSkb {
    fn release_fds(fds: crate::files::FdList, uid: crate::scm::Kuid) {
        gc::release(fds, uid);
    }
}

/// `PF_UNIX`: the protocol number AF_UNIX accepts besides 0.
const PF_UNIX: i32 = 1;

/// The protocol `tools/afunix-run` puts in the `socket()` and `socketpair()` calls of
/// AF_UNIX it moves onto the family ("UNIX" in ASCII): the socket then names itself
/// `AF_UNIX` in the addresses it hands back, so that the program cannot tell.
pub(crate) const AS_UNIX_PROTOCOL: i32 = 0x554e_4958;

/// `SO_PASSRIGHTS` of upstream 6.16 (`include/uapi/asm-generic/socket.h`), which 6.12's
/// socket core does not know. The generic number, as on x86-64 (the module's one
/// target); alpha, mips, parisc and sparc number their options differently.
const SO_PASSRIGHTS: i32 = 83;

/// `SO_INQ` of upstream 6.17, the generic number (as `SO_PASSRIGHTS`); its control
/// message `SCM_INQ` has the same number.
const SO_INQ: i32 = 84;
pub(crate) const SCM_INQ: i32 = SO_INQ;

/// `SO_RIGHTS_NOTRUNC` of upstream 7.3, the generic number.
const SO_RIGHTS_NOTRUNC: i32 = 85;

/// `PAGE_ALLOC_COSTLY_ORDER`.
pub(crate) const PAGE_ALLOC_COSTLY_ORDER: i32 = 3;

/// Checks the arguments of `socket()` as `unix_create()` does; returns the kind, the
/// type to store in the socket (`SOCK_RAW` becomes `SOCK_DGRAM`), and whether the
/// socket reports `AF_UNIX` ([`AS_UNIX_PROTOCOL`]; its `sk_protocol` stays 0).
pub(crate) fn check_create(ty: u16, protocol: i32) -> Result<Create> {
    let as_unix = protocol == AS_UNIX_PROTOCOL;
    if protocol != 0 && protocol != PF_UNIX && !as_unix {
        return Err(EPROTONOSUPPORT.into());
    }
    let (kind, ty) = match ty {
        sock_type::STREAM => (Kind::Stream, ty),
        sock_type::RAW | sock_type::DGRAM => (Kind::Dgram, sock_type::DGRAM),
        sock_type::SEQPACKET => (Kind::Seqpacket, ty),
        _ => return Err(ESOCKTNOSUPPORT.into()),
    };
    Ok(Create { kind, ty, as_unix })
}

/// Accounts a new socket; `ENFILE` beyond twice the system's file limit, as AF_UNIX.
/// The count is the socket layer's ([`sock::nr_socks_inc`]), lowered when a socket's
/// last reference goes, as AF_UNIX's `unix_nr_socks` in its destructor.
pub(crate) fn account_new_socket() -> Result {
    let n = sock::nr_socks_inc();
    if n as u64 > 2 * crate::api::file::max_files() {
        sock::nr_socks_dec();
        return Err(ENFILE);
    }
    Ok(())
}

/// Gives back the accounting of [`account_new_socket`].
pub(crate) fn unaccount_socket() {
    sock::nr_socks_dec();
}

/// Finishes the creation of a socket (or embryo): the datagram queue limit of its netns
/// (AF_UNIX's sysctl `net.unix.max_dgram_qlen`, as `unix_create1()` reads it), and into
/// its netns table, unbound.
// Inlined: once per socket and embryo (connect's and socket()'s).
#[inline(always)]
pub(crate) fn init_new(sk: &Sock) {
    sk.init_opts();
    sk.init_max_ack_backlog(sk.net().unix_max_dgram_qlen());
    names::insert_unbound(sk);
}

/// Releases a socket that no `struct socket` holds (a failed connect's embryo), and
/// drops the caller's reference.
pub(crate) fn release(sk: ARef<Sock>) {
    release_sock(&sk, false);
}

pub(crate) fn release_sock(sk: &Sock, embryo: bool) {
    names::remove(sk);
    let (peer, path) = {
        let mut g = sk.lock();
        g.orphan();
        g.add_shutdown(Shutdown::BOTH);
        let peer = g.set_conn(Conn::Unconnected).into_peer();
        (peer, g.take_path())
    };
    wakeup::wake_all_peer_wait(sk);

    if let Some(peer) = peer {
        if sk.is_connection_oriented() {
            // A consumed out-of-band byte left at the head is not unread data.
            let unread = sk.has_unread();
            {
                let mut g = peer.lock();
                // No more writes.
                g.add_shutdown(Shutdown::BOTH);
                if unread || embryo {
                    g.set_err(ECONNRESET);
                }
            }
            peer.state_change();
            peer.wake_async(wake_async::WAITD, wake_async::POLL_HUP);
        }
        // Its relay left `peer`'s `peer_wait` with the connection (`set_conn`); `peer`
        // drops here: it may now die.
    }

    // Throw out the buffers, and the out-of-band mark with them (an empty queue has
    // none); a listener's queue holds embryos, released with it. Dead now, the socket
    // gets no more: a sender checks under its state lock.
    if !sk.rcvq_empty() {
        sk.io_lock().purge_rcvq(|e| release_sock(&e, true));
    }
    drop(path);
    // Fds in flight may now be part of a cycle no one can receive.
    gc::on_release();
}

/// The `SOL_SOCKET` options the family takes itself: `SO_PASSRIGHTS` (upstream 6.16),
/// 0 to refuse `SCM_RIGHTS` (a sender's fds then fail with `EPERM`), anything else to
/// accept them (the default); `SO_INQ` (upstream 6.17) and `SO_RIGHTS_NOTRUNC`
/// (upstream 7.3, on the lines whose core can keep a refused fd's slot), as
/// [`custom_bool`] reads them. `None` for the socket core's options.
pub(crate) fn sol_socket_option(sk: &Sock, optname: i32, opt: &SockOpt) -> Option<Result> {
    match optname {
        SO_PASSRIGHTS => Some(opt.int().map(|v| sk.set_pass_rights(v != 0))),
        // With it set, each successful stream `recvmsg()` ends with an `SCM_INQ`
        // message: the bytes left to read (as `SIOCINQ`).
        SO_INQ => Some(custom_bool(opt, sk.kind() == Kind::Stream).map(|v| sk.set_recvmsg_inq(v))),
        SO_RIGHTS_NOTRUNC if kline::RIGHTS_NOTRUNC => {
            Some(custom_bool(opt, true).map(|v| sk.set_rights_notrunc(v)))
        }
        _ => None,
    }
}

/// An option of 7.3's `unix_setsockopt()`: an int exactly (`EINVAL`), readable
/// (`EFAULT`), for this socket type (`ENOPROTOOPT` unless `for_type`), 0 or 1
/// (`EINVAL` otherwise), checked in that order.
fn custom_bool(opt: &SockOpt, for_type: bool) -> Result<bool> {
    if opt.len() as usize != core::mem::size_of::<i32>() {
        return Err(EINVAL);
    }
    let v = opt.int()?;
    if !for_type {
        return Err(ENOPROTOOPT.into());
    }
    match v {
        0 | 1 => Ok(v == 1),
        _ => Err(EINVAL),
    }
}

/// `socketpair()`: joins two new sockets back to back.
pub(crate) fn socketpair(a: &Sock, b: &Sock) -> Result {
    for (sk, peer) in [(a, b), (b, a)] {
        let old = {
            let mut g = sk.lock();
            g.update_peercred();
            g.set_conn(Conn::Connected(ARef::from(peer)))
        };
        drop(old);
    }
    Ok(())
}

/// `shutdown()`, mirrored onto the peer of a stream or seqpacket socket.
pub(crate) fn shutdown(sk: &Sock, how: i32) -> Result {
    let mode = Shutdown::from_how(how).ok_or(EINVAL)?;
    let peer = {
        let mut g = sk.lock();
        g.add_shutdown(mode);
        g.peer().map(ARef::from)
    };
    sk.state_change();

    if let Some(peer) = peer.filter(|_| sk.is_connection_oriented()) {
        let mut peer_mode = Shutdown::NONE;
        if mode.has(Shutdown::RCV) {
            peer_mode |= Shutdown::SEND;
        }
        if mode.has(Shutdown::SEND) {
            peer_mode |= Shutdown::RCV;
        }
        peer.lock().add_shutdown(peer_mode);
        peer.state_change();
        if peer_mode == Shutdown::BOTH {
            peer.wake_async(wake_async::WAITD, wake_async::POLL_HUP);
        } else if peer_mode.has(Shutdown::RCV) {
            peer.wake_async(wake_async::WAITD, wake_async::POLL_IN);
        }
    }
    Ok(())
}

/// The connected peer, with a reference.
pub(crate) fn peer_get(sk: &Sock) -> Option<ARef<Sock>> {
    sk.lock().peer().map(ARef::from)
}

/// `getname()`: the address of the socket or of its peer (`ENOTCONN` without one);
/// `None` for an unnamed socket.
pub(crate) fn getname(sk: &Sock, peer: bool) -> Result<Option<ARef<UnixAddress>>> {
    if peer {
        let p = peer_get(sk).ok_or_else(|| Error::from(ENOTCONN))?;
        Ok(p.addr())
    } else {
        Ok(sk.addr())
    }
}

/// `ioctl()` (`unix_ioctl()`): `SIOCOUTQ`, `SIOCINQ`, `SIOCUNIXFILE`, `SIOCATMARK`;
/// `None` for a command the socket core should try elsewhere (`ENOIOCTLCMD`).
pub(crate) fn ioctl(sk: &Sock, cmd: u32) -> Option<Result<IoctlAnswer>> {
    use crate::api::sock::ioctl::{SIOCATMARK, SIOCINQ, SIOCOUTQ, SIOCUNIXFILE};
    let answer = match cmd {
        SIOCOUTQ => Ok(IoctlAnswer::Int(sk.outq_len() as i32)),
        SIOCINQ => {
            if sk.state() == SkState::Listen {
                Err(EINVAL)
            } else {
                Ok(IoctlAnswer::Int(sk.inq_len() as i32))
            }
        }
        SIOCUNIXFILE => sk.open_file().map(IoctlAnswer::Value),
        SIOCATMARK => {
            if sk.kind() == Kind::Stream {
                Ok(IoctlAnswer::Int(sk.at_mark().into()))
            } else {
                Err(EOPNOTSUPP.into())
            }
        }
        _ => return None,
    };
    Some(answer)
}

/// `listen()` (`unix_listen()`): stream and seqpacket sockets with a name; the
/// backlog may change on a listening socket.
pub(crate) fn listen(sk: &Sock, backlog: i32) -> Result {
    if !sk.is_connection_oriented() {
        return Err(EOPNOTSUPP.into());
    }
    if !sk.has_addr() {
        // No listens on an unbound socket.
        return Err(EINVAL);
    }
    let mut g = sk.lock();
    let st = sk.state();
    if st != SkState::Close && st != SkState::Listen {
        return Err(EINVAL);
    }
    // The socket core clamps the backlog to somaxconn; a negative one stays as AF_UNIX
    // stores it (a u32).
    let backlog = backlog as u32;
    if backlog > sk.max_ack_backlog() {
        wakeup::wake_all_peer_wait(sk);
    }
    g.set_max_ack_backlog(backlog);
    let _unconnected = g.set_conn(Conn::Listening);
    // Credentials for connect to copy.
    g.update_peercred();
    Ok(())
}

/// The `scm_fds:` of fdinfo (`unix_show_fdinfo()`): fds queued and not received, on a
/// datagram socket or a connected one; for a listener, on its embryos; else 0.
pub(crate) fn fdinfo_fds(sk: &Sock) -> u32 {
    let st = sk.state();
    if sk.kind() == Kind::Dgram || st == SkState::Established || st == SkState::Listen {
        sk.queued_fds()
    } else {
        0
    }
}
