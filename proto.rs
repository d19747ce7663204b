// SPDX-License-Identifier: GPL-2.0

//! The protocol: socket creation, socketpair, release, shutdown, the data path and poll
//! of the three socket types, as `net/unix/af_unix.c` of 6.12 does them.
//!
//! The C API is reached through [`crate::api`].

#![deny(unsafe_code)]

use crate::api::addr::{SunAddr, UnixAddress, AF_UNSPEC};
use crate::api::cmsg::SOL_SOCKET;
use crate::api::error::{
    ECONNREFUSED, ECONNRESET, EISCONN, EMSGSIZE, ENOTCONN, EOPNOTSUPP, EPROTONOSUPPORT,
    ESOCKTNOSUPPORT,
};
use crate::api::lsm;
use crate::api::sock::Kind;
use crate::api::sock::{self, Pipe, MAX_SKB_FRAGS, PAGE_SIZE};
use crate::api::sock::{
    skb_limits, sock_type, wake_async, Conn, ConnectedEmbryo, Datagram, Embryo, Msg, MsgFlags,
    NewSocket, Shutdown, SkState, Skb, SkbDestructor, SkbView, Sock, Socket, StateGuard,
};
use crate::api::socket::{IoctlAnswer, SockOpt};
use crate::api::task::{intr_errno, send_sigpipe, signal_pending};
use crate::api::wait::PollMask;
use crate::cmsg::{self, RecvCreds};
use crate::gc;
use crate::names;
use crate::oob;
use crate::opts::SockOpts;
use crate::wakeup;
use kernel::error::{code::*, Error, Result};
use kernel::types::ARef;

/// The destructor of the family's data skbs: their files go out of flight.
pub(crate) struct DataSkb;

impl SkbDestructor for DataSkb {
    fn release_fds(fds: crate::files::FdList, uid: crate::scm::Kuid) {
        gc::release(fds, uid);
    }
}

/// `PF_UNIX`: the protocol number AF_UNIX accepts besides 0.
const PF_UNIX: i32 = 1;

/// `SO_PASSRIGHTS` of upstream 6.16 (`include/uapi/asm-generic/socket.h`), which 6.12's
/// socket core does not know. The generic number, as on x86-64 (the module's one
/// target); alpha, mips, parisc and sparc number their options differently.
const SO_PASSRIGHTS: i32 = 83;

/// `SO_INQ` of upstream 6.17, the generic number (as `SO_PASSRIGHTS`); its control
/// message `SCM_INQ` has the same number.
const SO_INQ: i32 = 84;
const SCM_INQ: i32 = SO_INQ;

/// `PAGE_ALLOC_COSTLY_ORDER`.
const PAGE_ALLOC_COSTLY_ORDER: i32 = 3;

/// Checks the arguments of `socket()` as `unix_create()` does; returns the kind and the
/// type to store in the socket (`SOCK_RAW` becomes `SOCK_DGRAM`).
pub(crate) fn check_create(ty: u16, protocol: i32) -> Result<(Kind, u16)> {
    if protocol != 0 && protocol != PF_UNIX {
        return Err(EPROTONOSUPPORT.into());
    }
    match ty {
        sock_type::STREAM => Ok((Kind::Stream, ty)),
        sock_type::RAW | sock_type::DGRAM => Ok((Kind::Dgram, sock_type::DGRAM)),
        sock_type::SEQPACKET => Ok((Kind::Seqpacket, ty)),
        _ => Err(ESOCKTNOSUPPORT.into()),
    }
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
pub(crate) fn init_new(sk: &Sock) {
    sk.init_opts();
    sk.init_max_ack_backlog(sk.net().unix_max_dgram_qlen());
    names::insert_unbound(sk);
}

/// `release`: the last close of the socket's file.
pub(crate) fn release(sk: ARef<Sock>) {
    release_sock(&sk, false);
    // `sk` drops here: the `struct socket`'s reference (`sock_put` in AF_UNIX).
}

fn release_sock(sk: &Sock, embryo: bool) {
    names::remove(sk);
    let peer = {
        let mut g = sk.lock();
        g.orphan();
        g.add_shutdown(Shutdown::BOTH);
        g.set_conn(Conn::Unconnected).into_peer()
    };
    sk.clear_oob();

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
        wakeup::peer_wake_disconnect(sk, &peer);
        // `peer` drops here: it may now die.
    }

    // Throw out the buffers; a listener's queue holds embryos, released with it.
    sk.io_lock().purge_rcvq(|e| release_sock(&e, true));
    sk.release_path();
    // Fds in flight may now be part of a cycle no one can receive.
    gc::on_release();
}

/// The `SOL_SOCKET` options the family takes itself: `SO_PASSRIGHTS` (upstream 6.16),
/// 0 to refuse `SCM_RIGHTS` (a sender's fds then fail with `EPERM`), anything else to
/// accept them (the default); `SO_INQ` (upstream 6.17, [`set_inq`]). `None` for the
/// socket core's options.
pub(crate) fn sol_socket_option(sk: &Sock, optname: i32, opt: &SockOpt) -> Option<Result> {
    match optname {
        SO_PASSRIGHTS => Some(opt.int().map(|v| sk.set_pass_rights(v != 0))),
        // Upstream takes it on stream sockets only; for the others the core answers.
        SO_INQ if sk.kind() == Kind::Stream => Some(set_inq(sk, opt)),
        _ => None,
    }
}

/// `SO_INQ` of a stream socket, as upstream's `unix_setsockopt()`: an int exactly
/// (`EINVAL`), 0 or 1 (`EINVAL` otherwise). With it set, each successful `recvmsg()`
/// ends with an `SCM_INQ` message: the bytes left to read (as `SIOCINQ`). On the other
/// types the core answers, as upstream's (`ENOPROTOOPT` for a readable int).
fn set_inq(sk: &Sock, opt: &SockOpt) -> Result {
    if opt.len() as usize != core::mem::size_of::<i32>() {
        return Err(EINVAL);
    }
    match opt.int()? {
        v @ 0..=1 => {
            sk.set_recvmsg_inq(v == 1);
            Ok(())
        }
        _ => Err(EINVAL),
    }
}

/// `socketpair()`: joins two new sockets back to back.
pub(crate) fn socketpair(a: &Sock, b: &Sock) -> Result {
    for (sk, peer) in [(a, b), (b, a)] {
        let old = { sk.lock().set_conn(Conn::Connected(ARef::from(peer))) };
        drop(old);
        sk.update_peercred();
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
fn peer_get(sk: &Sock) -> Option<ARef<Sock>> {
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
    sk.update_peercred();
    Ok(())
}

/// `connect()` of a stream or seqpacket socket (`unix_stream_connect()`): a new
/// embryo socket, connected to `sk`, goes onto the listener's queue for `accept`.
pub(crate) fn stream_connect(sock: &Socket, sk: &Sock, sun: &SunAddr, nonblock: bool) -> Result {
    let name = sun.validate()?;
    names::maybe_autobind(sk)?;
    let mut timeo = sk.sndtimeo(nonblock);

    // First of all allocate resources: after locking, everything would need checking
    // again.
    account_new_socket()?;
    let embryo = match sk.alloc_embryo() {
        Ok(e) => e,
        Err(e) => {
            unaccount_socket();
            return Err(e);
        }
    };
    init_new(&embryo);
    let embryo = match embryo.with_carrier() {
        Ok(e) => e,
        Err((bare, e)) => {
            release(bare.into_sock());
            return Err(e);
        }
    };

    let err = loop {
        let other = match names::find_other(sk, &name) {
            Ok(o) => o,
            Err(e) => break e,
        };
        let og = other.lock();
        // The VFS overslept the socket's death: retry.
        if other.is_dead() {
            continue;
        }
        if other.state() != SkState::Listen || other.shutdown().has(Shutdown::RCV) {
            break ECONNREFUSED.into();
        }
        if other.rcvq_full() {
            if timeo == 0 {
                break EAGAIN;
            }
            timeo = wakeup::wait_for_peer(og, timeo);
            if signal_pending() {
                break intr_errno(timeo);
            }
            continue;
        }
        // Self-connect and simultaneous connect are excluded by refusing a
        // connecting socket that listens (see [`crate::api`], "Lock order").
        if let Some(e) = not_connectable(sk) {
            break e;
        }
        let mut sg = sk.lock_second(&og);
        // Again, under the lock.
        if let Some(e) = not_connectable(sk) {
            break e;
        }
        // The LSM's word, with both locks held; it may label the embryo.
        if let Err(e) = lsm::unix_stream_connect(&sg, &og, &embryo) {
            break e;
        }
        // The way is open: set up the embryo, then `sk`.
        let embryo = setup_embryo(embryo, sk, &og);
        sg.copy_peercred(&og);
        sock.set_connected();
        let old = sg.set_conn(Conn::Connected(ARef::from(&*embryo)));
        drop(sg);
        let mut og = og;
        og.queue_embryo(embryo);
        drop(og);
        other.data_ready();
        drop(old);
        return Ok(());
    };
    release(embryo.into_sock());
    Err(err)
}

/// Connects the embryo to `client` as AF_UNIX's `unix_stream_connect()` does: its
/// peer and state, the caller's credentials, and the address and path of the listener
/// whose state lock `listener` holds.
fn setup_embryo(mut embryo: Embryo, client: &Sock, listener: &StateGuard<'_>) -> ConnectedEmbryo {
    drop(embryo.set_conn(Conn::Connected(ARef::from(client))));
    // `SO_PASSRIGHTS` is the listener's (upstream 6.16 copies it at connect).
    embryo.set_pass_rights(listener.sock().pass_rights());
    embryo.update_peercred();
    embryo.copy_path(listener);
    if let Some(a) = listener.sock().addr() {
        embryo.publish_addr(a);
    }
    embryo.connected()
}

/// Why a socket cannot connect: `EISCONN` when connected, `EINVAL` when listening.
fn not_connectable(sk: &Sock) -> Option<Error> {
    match sk.state() {
        SkState::Close => None,
        SkState::Established => Some(EISCONN.into()),
        _ => Some(EINVAL),
    }
}

/// `accept()` (`unix_accept()`): the next connection of a listening socket.
pub(crate) fn accept(
    listener: &Socket,
    sk: &Sock,
    newsock: NewSocket<'_>,
    nonblock: bool,
) -> Result {
    if !sk.is_connection_oriented() {
        return Err(EOPNOTSUPP.into());
    }
    if sk.state() != SkState::Listen {
        return Err(EINVAL);
    }
    // A listener stays one: no lock needed to wait on its queue.
    let embryo = sk.accept_embryo(nonblock)?.ok_or(EINVAL)?;
    // A connect may wait for room in the backlog.
    sk.wake_peer_wait_one();
    Sock::graft(embryo, listener, newsock);
    Ok(())
}

/// `connect()` of a datagram socket (`unix_dgram_connect()`): sets, changes or (with
/// `AF_UNSPEC`) drops the default destination.
pub(crate) fn dgram_connect(sk: &Sock, sun: &SunAddr) -> Result {
    if sun.len() < crate::api::addr::PATH_OFFSET {
        return Err(EINVAL);
    }
    if sun.family() == AF_UNSPEC {
        // 1003.1g: breaking the connected state with AF_UNSPEC.
        let old = {
            let mut g = sk.lock();
            match g.conn() {
                Conn::Connected(_) => g.set_conn(Conn::Unconnected).into_peer(),
                _ => None,
            }
        };
        if let Some(old) = old {
            wakeup::peer_wake_disconnect_wakeup(sk, &old);
            dgram_disconnected(sk, &old);
        }
        return Ok(());
    }
    let name = sun.validate()?;
    names::maybe_autobind(sk)?;
    loop {
        let other = names::find_other(sk, &name)?;
        let (mut gs, mut go) = Sock::lock_pair(sk, &other);
        // The VFS overslept the socket's death: retry.
        if other.is_dead() {
            continue;
        }
        let other_peer = go.as_ref().map_or_else(|| gs.peer(), |g| g.peer());
        if other_peer.is_some_and(|p| !core::ptr::eq(p, sk)) {
            return Err(EPERM);
        }
        lsm::unix_may_send(sk, go.as_ref().unwrap_or(&gs))?;
        // Both ends are marked connected; the other keeps its own peer, if any.
        if let Some(g) = go.as_mut() {
            if matches!(g.conn(), Conn::Unconnected) {
                g.set_conn(Conn::Target);
            }
        }
        let old = gs.set_conn(Conn::Connected(other.clone())).into_peer();
        drop(go);
        drop(gs);
        if let Some(old) = old {
            wakeup::peer_wake_disconnect_wakeup(sk, &old);
            // If it was connected elsewhere, that link is broken.
            if !core::ptr::eq(&*old, &*other) {
                dgram_disconnected(sk, &old);
            }
        }
        return Ok(());
    }
}

/// `unix_dgram_disconnected()`: `sk` no longer sends to `other`. Whatever `sk` had
/// received is dropped (it may only hold messages of its peer), and `other`, if it was
/// connected back, learns of it with `ECONNRESET`.
fn dgram_disconnected(sk: &Sock, other: &Sock) {
    if !sk.rcvq_empty() {
        sk.io_lock().purge_rcvq(|e| release_sock(&e, true));
        wakeup::wake_all_peer_wait(sk);
        let mut g = other.lock();
        if !other.is_dead() && g.peer().is_some_and(|p| core::ptr::eq(p, sk)) {
            g.set_err(ECONNRESET);
            drop(g);
            other.error_report();
        }
    }
    let mut g = other.lock();
    if matches!(g.conn(), Conn::Target) {
        g.set_conn(Conn::Unconnected);
    }
}

/// `sendmsg()` of a datagram or seqpacket socket (`unix_dgram_sendmsg()`): to the
/// connected peer, or to the socket a name designates.
pub(crate) fn dgram_sendmsg(sock: &Socket, sk: &Sock, m: &mut Msg, len: usize) -> Result<usize> {
    let scm = cmsg::scm_send(sock, m)?;
    gc::throttle(scm.fds.as_deref());
    let flags = m.flags();
    if flags.has(MsgFlags::OOB) {
        return Err(EOPNOTSUPP.into());
    }
    let sun = m.name();
    let name = sun.as_ref().map(SunAddr::validate).transpose()?;
    let mut other = match &name {
        Some(_) => None,
        None => Some(peer_get(sk).ok_or_else(|| Error::from(ENOTCONN))?),
    };
    names::maybe_autobind(sk)?;

    let sndbuf = sk.sndbuf();
    if sndbuf < 32 || len > (sndbuf - 32) as usize {
        return Err(EMSGSIZE.into());
    }
    let (max_alloc, _, _) = skb_limits();
    let mut data_len = 0;
    if len > max_alloc {
        data_len = (len - max_alloc).min(MAX_SKB_FRAGS * PAGE_SIZE);
        data_len = data_len.next_multiple_of(PAGE_SIZE);
    }
    let (creds, fds, secid) = (scm.creds, scm.fds, scm.secid);
    let mut skb = Skb::alloc_from_msg::<DataSkb>(
        sk,
        m,
        len,
        data_len.min(len),
        flags.has(MsgFlags::DONTWAIT),
        PAGE_ALLOC_COSTLY_ORDER,
        |skb| {
            skb.set_creds(&creds);
            skb.set_secid(secid);
            fds.map_or(Ok(()), |fds| gc::attach(skb, fds))
        },
    )?;
    drop(creds);
    let mut timeo = sk.sndtimeo(flags.has(MsgFlags::DONTWAIT));
    // The receiver's filter runs again after a wait, not on a retry under the lock
    // (AF_UNIX's `restart` and `restart_locked`).
    let mut filter = true;

    loop {
        let o = match (other.take(), &name) {
            (Some(o), _) => o,
            (None, Some(n)) => names::find_other(sk, n)?,
            (None, None) => return Err(ECONNRESET.into()),
        };
        // A datagram the receiver's filter (or LSM) drops is lost without an error.
        if core::mem::replace(&mut filter, false) && lsm::sk_filter(&o, &mut skb).is_err() {
            return Ok(len);
        }
        let mut g = o.lock();
        if g.peer().is_some_and(|p| !core::ptr::eq(p, sk)) {
            return Err(EPERM);
        }
        if o.is_dead() {
            drop(g);
            if sk.kind() == Kind::Seqpacket {
                // Racing with the peer's release: a seqpacket socket stays connected.
                return Err(EPIPE);
            }
            // A dead peer: disconnect, as 1003.1g asks of datagrams.
            let old = {
                let mut sg = sk.lock();
                if sg.peer().is_some_and(|p| core::ptr::eq(p, &*o)) {
                    sg.set_conn(Conn::Unconnected).into_peer()
                } else {
                    None
                }
            };
            if let Some(old) = old {
                wakeup::peer_wake_disconnect_wakeup(sk, &old);
                dgram_disconnected(sk, &old);
                return Err(ECONNREFUSED.into());
            }
            // Not (or no longer) our peer: look the name up again.
            filter = true;
            continue;
        }
        if o.shutdown().has(Shutdown::RCV) {
            return Err(EPIPE);
        }
        // A receiver that refuses fds (`SO_PASSRIGHTS` 0).
        if skb.view().fds().is_some() && !o.pass_rights() {
            return Err(EPERM);
        }
        // Seqpacket sockets are checked at connect only.
        if sk.kind() != Kind::Seqpacket {
            lsm::unix_may_send(sk, &g)?;
        }
        // A receiver not connected back to us takes at most its backlog.
        if !core::ptr::eq(&*o, sk) && !o.peer_is(sk) && o.rcvq_full() {
            if timeo == 0 {
                drop(g);
                // Not writable until the receiver makes room: hook the relay so that
                // a poll for POLLOUT learns of it (`unix_dgram_peer_wake_me()`).
                let (gs, go) = Sock::lock_pair(sk, &o);
                let connected = gs.peer().is_some_and(|p| core::ptr::eq(p, &*o));
                if !connected || wakeup::peer_wake_me(&gs, &o) {
                    return Err(EAGAIN);
                }
                // Room was made meanwhile: try again.
                drop(go);
                drop(gs);
                other = Some(o);
                continue;
            }
            timeo = wakeup::wait_for_peer(g, timeo);
            if signal_pending() {
                return Err(intr_errno(timeo));
            }
            other = Some(o);
            filter = true;
            continue;
        }
        if o.rcvtstamp() {
            skb.net_timestamp();
        }
        cmsg::maybe_add_creds(&mut skb, sk, &g);
        g.queue_tail(skb);
        drop(g);
        o.data_ready();
        return Ok(len);
    }
}

/// `sendmsg()` of a seqpacket socket.
pub(crate) fn seqpacket_sendmsg(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    len: usize,
) -> Result<usize> {
    if let Some(e) = sk.take_error() {
        return Err(e);
    }
    if sk.state() != SkState::Established {
        return Err(ENOTCONN.into());
    }
    if m.namelen() != 0 {
        m.clear_name();
    }
    dgram_sendmsg(sock, sk, m, len)
}

/// `recvmsg()` of a datagram or seqpacket socket (`__unix_dgram_recvmsg()`): one
/// datagram, from the peek offset (`SO_PEEK_OFF`) when peeking, under the reader lock.
pub(crate) fn dgram_recvmsg(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    size: usize,
    flags: MsgFlags,
) -> Result<usize> {
    if flags.has(MsgFlags::OOB) {
        return Err(EOPNOTSUPP.into());
    }
    let mut timeo = sk.rcvtimeo(flags.has(MsgFlags::DONTWAIT));
    loop {
        let (mut err, mark) = {
            let mut io = sk.io_lock();
            let mut skip = sk.peek_offset(flags);
            let failed = match io.try_recv_datagram(flags, &mut skip) {
                // Delivered under the reader lock, as AF_UNIX.
                Ok(dg) => return dgram_deliver(sock, sk, m, size, flags, dg, skip),
                Err(e) => e,
            };
            failed
        };
        if err == EAGAIN && timeo != 0 {
            match Skb::wait_for_more(sk, &mut timeo, &mark) {
                Ok(true) => continue,
                Ok(false) => return Ok(0),
                Err(e) => err = e,
            }
        }
        // Signal EOF on a disconnected non-blocking seqpacket socket.
        let _g = sk.lock();
        if sk.kind() == Kind::Seqpacket && err == EAGAIN && sk.shutdown().has(Shutdown::RCV) {
            return Ok(0);
        }
        return Err(err);
    }
}

/// Delivers a received (or peeked) datagram into `m`, from the peek offset `skip`
/// within it, under the reader lock.
fn dgram_deliver(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    size: usize,
    flags: MsgFlags,
    mut dg: Datagram<'_>,
    skip: i32,
) -> Result<usize> {
    // Out of the queue, out of flight (`scm_stat_del()`); a peek duplicates them
    // after the copy.
    let mut fds = match &mut dg {
        Datagram::Taken(skb) => gc::detach(skb, sk),
        Datagram::Peeked(_) => None,
    };
    wakeup::wake_writers(sk);
    let skb = dg.view();
    m.set_name(skb.sender_addr());

    let skip = usize::try_from(skip).unwrap_or(0);
    let skb_len = skb.len() as usize;
    let avail = skb_len.saturating_sub(skip);
    let mut n = size;
    if n > avail {
        n = avail;
    } else if n < avail {
        m.add_flags(MsgFlags::TRUNC);
    }
    let res = skb.copy_to_msg(skip as u32, m, n);
    if res.is_ok() {
        if sk.rcvtstamp() {
            skb.recv_timestamp(sk, m);
        }
        let scm = RecvCreds::of(skb);
        if !flags.has(MsgFlags::PEEK) {
            sk.peek_offset_bwd(skb_len);
        } else {
            sk.peek_offset_fwd(n);
            fds = skb.fds().and_then(gc::peek);
        }
        cmsg::scm_recv(sock, sk, m, &scm, fds);
    }
    dg.free(sk);
    res?;
    Ok(if flags.has(MsgFlags::TRUNC) { avail } else { n })
}

/// `recvmsg()` of a seqpacket socket.
pub(crate) fn seqpacket_recvmsg(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    size: usize,
    flags: MsgFlags,
) -> Result<usize> {
    if sk.state() != SkState::Established {
        return Err(ENOTCONN.into());
    }
    dgram_recvmsg(sock, sk, m, size, flags)
}

/// `sendmsg()` of a stream socket (`unix_stream_sendmsg()`).
pub(crate) fn stream_sendmsg(sock: &Socket, sk: &Sock, m: &mut Msg, len: usize) -> Result<usize> {
    let scm = cmsg::scm_send(sock, m)?;
    gc::throttle(scm.fds.as_deref());
    let flags = m.flags();
    // MSG_OOB: the last byte goes out of band, after the others.
    let oob = flags.has(MsgFlags::OOB);
    let len = if oob {
        len.checked_sub(1).ok_or_else(|| Error::from(EOPNOTSUPP))?
    } else {
        len
    };
    if m.namelen() != 0 {
        return Err(if sk.state() == SkState::Established {
            EISCONN
        } else {
            EOPNOTSUPP
        }
        .into());
    }
    let other = peer_get(sk).ok_or_else(|| Error::from(ENOTCONN))?;
    if sk.shutdown().has(Shutdown::SEND) {
        return Err(pipe(flags, 0));
    }

    let nonblock = flags.has(MsgFlags::DONTWAIT);
    // `splice()`/`sendfile()`: the skbs take the pipe's pages (as many as fit in one
    // skb's fragments each), no copy.
    let splice = flags.has(MsgFlags::SPLICE_PAGES);
    if !oob
        && !splice
        && len != 0
        && len <= COALESCE_MAX
        && coalescing(&other)
        && m.control()?.is_none()
    {
        return stream_send_small(sk, &other, m, len, &scm, flags);
    }

    let (_, max_head0, frags_sz) = skb_limits();
    let order = frags_sz.trailing_zeros() as i32 - 12;
    let mut sent = 0usize;
    let mut fds = scm.fds;
    while sent < len {
        // The fds go with the first skb only.
        let first_fds = fds.take();
        let prepare = |skb: &mut Skb| {
            skb.set_creds(&scm.creds);
            skb.set_secid(scm.secid);
            first_fds.map_or(Ok(()), |fds| gc::attach(skb, fds))
        };
        let made = if splice {
            Skb::alloc_spliced::<DataSkb>(sk, m, len - sent, nonblock, prepare)
        } else {
            // Keep two messages in the pipe so it schedules better.
            let half = ((sk.sndbuf() >> 1) - 64).max(0) as usize;
            let size = (len - sent).min(half).min(max_head0 + frags_sz);
            let data_len = size
                .saturating_sub(max_head0)
                .next_multiple_of(PAGE_SIZE)
                .min(size);
            Skb::alloc_from_msg::<DataSkb>(sk, m, size, data_len, nonblock, order, prepare)
                .map(|skb| (skb, size))
        };
        let (skb, size) = match made {
            Ok(made) => made,
            Err(e) => return if sent > 0 { Ok(sent) } else { Err(e) },
        };
        if let Err(e) = queue_data(sk, &other, skb) {
            return if sent > 0 {
                Ok(sent)
            } else if e == EPIPE {
                Err(pipe(flags, sent))
            } else {
                Err(e)
            };
        }
        sent += size;
    }
    if oob {
        // The fds go with it if no skb took them.
        match queue_oob(sk, &other, m, &scm.creds, scm.secid, fds.take()) {
            Ok(()) => sent += 1,
            Err(e) if sent == 0 => return Err(e),
            Err(_) => {}
        }
    }
    Ok(sent)
}

/// Queues `skb`, a data skb of `sk`'s, on its connected peer `other` and wakes it:
/// `EPIPE` (the caller raises `SIGPIPE`) if `other` is gone or shut down for reading,
/// `EPERM` if the skb carries fds that `other` refuses (`SO_PASSRIGHTS` 0).
#[inline(always)]
fn queue_data(sk: &Sock, other: &Sock, mut skb: Skb) -> Result {
    let mut g = other.lock();
    if other.is_dead() || other.shutdown().has(Shutdown::RCV) {
        drop(g);
        drop(skb);
        return Err(EPIPE);
    }
    if skb.view().fds().is_some() && !other.pass_rights() {
        drop(g);
        drop(skb);
        return Err(EPERM);
    }
    cmsg::maybe_add_creds(&mut skb, sk, &g);
    g.queue_tail(skb);
    drop(g);
    other.data_ready();
    Ok(())
}

/// Stream writes of at most this many bytes are coalesced under
/// `net.rust_afunix.stream_coalesce` (they are copied to the stack first).
const COALESCE_MAX: usize = 128;

/// Whether `net.rust_afunix.stream_coalesce` is on in the netns of `sk`, a receiver
/// (whose queue it changes: a writer of another netns, reaching a pathname socket, does
/// not decide for it).
#[inline]
fn coalescing(sk: &Sock) -> bool {
    sk.table()
        .stream_coalesce
        .load(core::sync::atomic::Ordering::Relaxed)
        != 0
}

/// A stream write of `len <= COALESCE_MAX` bytes without ancillary data, with
/// `net.rust_afunix.stream_coalesce` on in `other`'s netns: the bytes are copied from
/// the caller first, then appended to the last skb of `other`'s queue if it is `sk`'s,
/// was made by such a write (`open`: no fds, not the out-of-band byte), has room, and
/// carries the credentials and security id that a new skb of this write would (so a
/// reader sees the same bytes, credentials and boundaries of fds and of the mark as
/// with one skb per write). Else the write gets an skb of its own, as without the
/// switch. The writer's own netns does not matter: its send-buffer accounting
/// (`SIOCOUTQ`) follows its peer's switch. A write that fails leaves the message's
/// iterator where it was, as AF_UNIX's (which copies after allocating): io_uring
/// sends the same message again after `EAGAIN`.
#[inline(never)]
fn stream_send_small(
    sk: &Sock,
    other: &Sock,
    m: &mut Msg,
    len: usize,
    scm: &cmsg::SendScm,
    flags: MsgFlags,
) -> Result<usize> {
    let mut buf = [0u8; COALESCE_MAX];
    let data = buf.get_mut(..len).ok_or(EINVAL)?;
    m.copy_data_then(data, |data| send_copied(sk, other, data, scm, flags))
}

/// The rest of [`stream_send_small`], once `data` is copied from the caller.
#[inline(always)]
fn send_copied(
    sk: &Sock,
    other: &Sock,
    data: &[u8],
    scm: &cmsg::SendScm,
    flags: MsgFlags,
) -> Result<usize> {
    let len = data.len();
    let appended = {
        let mut g = other.lock();
        // Not with the send buffer full: the write then waits (or gives `EAGAIN`) for
        // room as a new skb would (`sock_alloc_send_pskb()`; `sk_wmem_alloc_get()` is
        // the count less its bias of one).
        !other.is_dead()
            && !other.shutdown().has(Shutdown::RCV)
            && i64::from(sk.wmem_alloc()) - 1 < i64::from(sk.sndbuf())
            && {
                let (secid, creds) = (scm.secid, &scm.creds);
                let same = |tail: &SkbView| {
                    tail.secid() == secid && cmsg::same_creds_as_new(tail, creds, sk, other)
                };
                g.append_to_tail(sk, data, same)
            }
    };
    if appended {
        other.data_ready();
        return Ok(len);
    }
    let nonblock = flags.has(MsgFlags::DONTWAIT);
    let skb = Skb::alloc_from_bytes::<DataSkb>(sk, data, nonblock, |skb| {
        skb.set_creds(&scm.creds);
        skb.set_secid(scm.secid);
        Ok(())
    })?;
    match queue_data(sk, other, skb) {
        Ok(()) => Ok(len),
        Err(e) if e == EPIPE => Err(pipe(flags, 0)),
        Err(e) => Err(e),
    }
}

/// Sends the out-of-band byte (`queue_oob()`): a one-byte skb queued on `other` as its
/// new mark, `SIGURG` to its owner. `EPIPE` (without `SIGPIPE`) if `other` is gone or
/// shut down for reading.
fn queue_oob(
    sk: &Sock,
    other: &Sock,
    m: &mut Msg,
    creds: &crate::scm::Creds,
    secid: u32,
    fds: Option<crate::files::FdList>,
) -> Result {
    let prepare = |skb: &mut Skb| {
        skb.set_creds(creds);
        skb.set_secid(secid);
        fds.map_or(Ok(()), |fds| gc::attach(skb, fds))
    };
    let nonblock = m.flags().has(MsgFlags::DONTWAIT);
    let mut skb = Skb::alloc_from_msg::<DataSkb>(sk, m, 1, 0, nonblock, 0, prepare)?;
    let mut g = other.lock();
    if other.is_dead() || other.shutdown().has(Shutdown::RCV) {
        drop(g);
        return Err(EPIPE);
    }
    if skb.view().fds().is_some() && !other.pass_rights() {
        drop(g);
        return Err(EPERM);
    }
    cmsg::maybe_add_creds(&mut skb, sk, &g);
    g.queue_oob(skb);
    other.send_sigurg();
    drop(g);
    other.data_ready();
    Ok(())
}

/// `EPIPE`, with `SIGPIPE` unless `MSG_NOSIGNAL` or something was sent.
fn pipe(flags: MsgFlags, sent: usize) -> Error {
    if sent == 0 && !flags.has(MsgFlags::NOSIGNAL) {
        send_sigpipe();
    }
    EPIPE
}

/// `recvmsg()` of a stream socket (`unix_stream_read_generic()`).
#[inline]
pub(crate) fn stream_recvmsg(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    size: usize,
    flags: MsgFlags,
) -> Result<usize> {
    if sk.state() != SkState::Established {
        return Err(EINVAL);
    }
    if flags.has(MsgFlags::OOB) {
        return recv_urg(sk, m, flags);
    }
    stream_read(sock, sk, Sink::Msg(m), size, flags)
}

/// Where a stream read puts the data (AF_UNIX's `recv_actor`).
enum Sink<'a> {
    /// A `recvmsg`: copied into the message, with its name and control messages.
    Msg(&'a mut Msg),
    /// A `splice_read`: the skbs' pages moved into the pipe, no control messages.
    Pipe(&'a Pipe),
}

/// `splice_read` of a stream socket (`unix_stream_splice_read()`): `ESPIPE` for an
/// offset; `nonblock` from `O_NONBLOCK` or `SPLICE_F_NONBLOCK`.
pub(crate) fn stream_splice_read(
    sock: &Socket,
    sk: &Sock,
    pipe: &Pipe,
    len: usize,
    nonblock: bool,
    has_offset: bool,
) -> Result<usize> {
    if has_offset {
        return Err(ESPIPE);
    }
    if sk.state() != SkState::Established {
        return Err(EINVAL);
    }
    let flags = if nonblock {
        MsgFlags::DONTWAIT
    } else {
        MsgFlags::NONE
    };
    stream_read(sock, sk, Sink::Pipe(pipe), len, flags)
}

/// The stream read of `recvmsg` and `splice_read` (`unix_stream_read_generic()`).
fn stream_read(
    sock: &Socket,
    sk: &Sock,
    mut sink: Sink<'_>,
    size: usize,
    flags: MsgFlags,
) -> Result<usize> {
    let target = sk.rcvlowat(flags.has(MsgFlags::WAITALL), size);
    let mut timeo = sk.rcvtimeo(flags.has(MsgFlags::DONTWAIT));
    let peek = flags.has(MsgFlags::PEEK);
    let mut copied = 0usize;
    // SO_PEEK_OFF: where a peek starts.
    let peek_off = usize::try_from(sk.peek_offset(flags)).unwrap_or(0);
    let mut left = size;
    let mut err: Option<Error> = None;
    // The credentials of what is read, once the reader asks for them: data of other
    // credentials is never glued on.
    let mut scm = RecvCreds::zeroed();
    let mut check_creds = false;
    // The files of `SCM_RIGHTS` read (or duplicated by a peek): a read stops after the
    // skb that carries them.
    let mut fds = None;
    // A signal while waiting: no control messages (AF_UNIX returns before them).
    let mut interrupted = false;

    let mut io = sk.io_lock();
    // As AF_UNIX's do-while: a read of 0 bytes still waits for data (or gives `EAGAIN`)
    // and reports the first skb's credentials.
    // Where a peek starts: recomputed after each wait, as AF_UNIX's `redo`.
    let mut skip = peek_off;
    'redo: loop {
        // The skb is found under the state lock, as AF_UNIX does: the sender queued it
        // under that lock.
        let mut g = sk.lock();
        if sk.is_dead() {
            err = Some(ECONNRESET.into());
            break;
        }
        let mut skb = match io.peek(&g) {
            Ok(skb) => skb,
            Err(e) => {
                err = Some(e);
                break;
            }
        };
        'again: loop {
            // The mark of out-of-band data, and emptied skbs (`manage_oob()`).
            if let Some(s) = skb.take() {
                let (next, freed) = match oob::manage_oob(&g, s, peek, copied > 0) {
                    Ok(r) => r,
                    Err(e) => {
                        err = Some(e);
                        break 'redo;
                    }
                };
                drop(freed);
                skb = next;
                if skb.is_none() && (copied > 0 || size == 0) {
                    break 'redo;
                }
            }
            let Some(mut s) = skb.take() else {
                if copied >= target {
                    break 'redo;
                }
                // POSIX 1003.1g mandates this order.
                if let Some(e) = sk.take_error() {
                    err = Some(e);
                    break 'redo;
                }
                if sk.shutdown().has(Shutdown::RCV) {
                    break 'redo;
                }
                // The tail seen by a peeking reader, taken under the state lock (as
                // AF_UNIX's `last`): an skb queued after the unlock changes it, so the
                // reader does not sleep over it. A reader that takes what it reads
                // waits for any skb.
                let mark = peek.then(|| sk.rcvq_tail_mark());
                drop(g);
                if timeo == 0 {
                    err = Some(EAGAIN);
                    break 'redo;
                }
                // `recvmsg()` sleeps freezable, `splice()` not (as AF_UNIX).
                let freezable = matches!(sink, Sink::Msg(_));
                timeo = io.unlocked(|| {
                    wakeup::wait_on_sk(sock, sk, timeo, freezable, || {
                        // New data: any skb when not peeking (all was read), a new
                        // tail when peeking past what is queued.
                        (match mark {
                            Some(mark) => sk.rcvq_tail_mark() != mark,
                            None => !sk.rcvq_empty(),
                        }) || sk.err() != 0
                            || sk.shutdown().has(Shutdown::RCV)
                    })
                });
                if signal_pending() {
                    err = Some(intr_errno(timeo));
                    interrupted = true;
                    break 'redo;
                }
                skip = usize::try_from(sk.peek_offset(flags)).unwrap_or(0);
                continue 'redo;
            };
            // Skip the peek offset.
            while skip >= s.unread() as usize {
                skip -= s.unread() as usize;
                match s.next(&g) {
                    Ok(Some(n)) => s = n,
                    Ok(None) => continue 'again,
                    Err(e) => {
                        err = Some(e);
                        break 'redo;
                    }
                }
            }
            // `skb_splice_bits()` reads the skb's length, which an append would write
            // during the splice: appends go to a new skb from now on.
            if let Sink::Pipe(_) = sink {
                if let Err(e) = s.close_to_appends(&g) {
                    err = Some(e);
                    break 'redo;
                }
            }
            // The copy may fault and sleep: not under the spinlock.
            drop(g);

            if check_creds {
                // Never glue messages from different writers.
                if !scm.same_as(&s) {
                    break 'redo;
                }
            } else if sk.passcred() {
                scm = RecvCreds::of(&s);
                check_creds = true;
            }

            let offset = s.consumed() + skip as u32;
            // The bytes of `s` as this copy sees them: a coalesced write may add more.
            let seen = s.unread();
            let want = (seen as usize - skip).min(left);
            let moved = match &mut sink {
                Sink::Msg(m) => {
                    // For every skb read, as AF_UNIX (its "just once" is not): the
                    // sender's address as it is now.
                    if m.wants_name() {
                        m.set_name(s.sender_addr());
                    }
                    s.copy_to_msg(offset, m, want).map(|()| want)
                }
                Sink::Pipe(p) => s.splice_to(sk, offset, p, want),
            };
            let chunk = match moved {
                Ok(n) => n,
                Err(e) => {
                    if copied == 0 {
                        err = Some(e);
                    }
                    break 'redo;
                }
            };
            copied += chunk;
            left -= chunk;
            if !peek {
                s.consume(chunk as u32);
                sk.peek_offset_bwd(chunk);
                if let Some(f) = gc::detach_queued(&mut s) {
                    fds = Some(f);
                }
                // Read out: unlinked (unless a coalesced write added to it meanwhile,
                // checked under the queue lock). Unread bytes are left when the buffer
                // is full, a pipe took less than asked (both end the read, as
                // AF_UNIX's), or, with `stream_coalesce`, were appended during the
                // copy: the read goes on with them until it has what it asked for.
                if s.unread() == 0 {
                    s.unlink_consume();
                }
                if fds.is_some() || left == 0 || chunk < want {
                    break 'redo;
                }
                continue 'redo;
            }
            let carried = s.fds().map(gc::peek);
            sk.peek_offset_fwd(chunk);
            if let Some(dup) = carried {
                fds = dup;
                break 'redo;
            }
            // Peek on, from the next skb, also with the buffer full: as AF_UNIX's `goto
            // again`, a peek that has all it asked for goes on with chunks of 0 bytes,
            // to the first skb with fds (which come back with the data) or other
            // credentials, or the end of the queue.
            let end = skip + chunk;
            skip = 0;
            g = sk.lock();
            // A coalesced write added to `s` during the copy: peek on in it, after what
            // this copy took, before the skbs after it.
            if s.unread() != seen {
                skip = end;
                skb = Some(s);
                continue 'again;
            }
            skb = match s.next(&g) {
                Ok(Some(n)) => Some(n),
                Ok(None) => break 'redo,
                Err(e) => {
                    err = Some(e);
                    break 'redo;
                }
            };
        }
    }
    drop(io);
    if let (false, Sink::Msg(m)) = (interrupted, &mut sink) {
        cmsg::scm_recv(sock, sk, m, &scm, fds);
        // `SO_INQ`: after the other control messages, unless the read failed (a read
        // of 0 bytes reports too), as upstream's `(copied ?: err) >= 0`.
        if sk.recvmsg_inq() && (copied > 0 || err.is_none()) {
            let inq = i32::try_from(sk.inq_len()).unwrap_or(i32::MAX);
            m.put_cmsg(SOL_SOCKET, SCM_INQ, &inq.to_ne_bytes());
        }
    }

    match err {
        Some(e) if copied == 0 => Err(e),
        _ => Ok(copied),
    }
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

/// `recv(MSG_OOB)` of a stream socket (`unix_stream_recv_urg()`): the out-of-band
/// byte, `EINVAL` without one or with `SO_OOBINLINE`. Unless peeking, the mark goes
/// and the byte is consumed (its emptied skb is passed over by later reads). No
/// control messages: its credentials and fds are not delivered.
#[cold]
#[inline(never)]
fn recv_urg(sk: &Sock, m: &mut Msg, flags: MsgFlags) -> Result<usize> {
    let peek = flags.has(MsgFlags::PEEK);
    let mut io = sk.io_lock();
    let g = sk.lock();
    let (mut oob, emptied) = oob::take_urg(&mut io, &g, peek)?.ok_or(EINVAL)?;
    drop(g);
    let r = oob.copy_to_msg(oob.consumed(), m, 1);
    if !peek {
        oob.consume(1);
    }
    drop(oob);
    drop(io);
    drop(emptied);
    r.map_err(|_| EFAULT)?;
    m.add_flags(MsgFlags::OOB);
    Ok(1)
}

/// `poll()` of a stream or seqpacket socket (`unix_poll()`).
pub(crate) fn stream_poll(sk: &Sock) -> PollMask {
    let shutdown = sk.shutdown();
    let st = sk.state();
    let mut mask = PollMask::NONE;

    if sk.err() != 0 {
        mask |= PollMask::ERR;
    }
    if shutdown == Shutdown::BOTH {
        mask |= PollMask::HUP;
    }
    if shutdown.has(Shutdown::RCV) {
        mask |= PollMask::RDHUP | PollMask::IN | PollMask::RDNORM;
    }
    if !sk.rcvq_empty() || sk.psock_readable() {
        mask |= PollMask::IN | PollMask::RDNORM;
    }
    if sk.has_oob() {
        mask |= PollMask::PRI;
    }
    // Connection-based sockets need to check for termination and startup.
    if sk.is_connection_oriented() && st == SkState::Close {
        mask |= PollMask::HUP;
    }
    // Writable also when the other side has shut down, so that no socket gets stuck.
    if wakeup::writable(sk, st) {
        mask |= PollMask::WRITABLE;
    }
    mask
}

/// `poll()` of a datagram socket (`unix_dgram_poll()`).
pub(crate) fn dgram_poll(sk: &Sock, requested: PollMask) -> PollMask {
    let shutdown = sk.shutdown();
    let st = sk.state();
    let mut mask = PollMask::NONE;

    if sk.err() != 0 || !sk.errq_empty() {
        mask |= PollMask::ERR;
        if sk.select_err_queue() {
            mask |= PollMask::PRI;
        }
    }
    if shutdown.has(Shutdown::RCV) {
        mask |= PollMask::RDHUP | PollMask::IN | PollMask::RDNORM;
    }
    if shutdown == Shutdown::BOTH {
        mask |= PollMask::HUP;
    }
    if !sk.rcvq_empty() || sk.psock_readable() {
        mask |= PollMask::IN | PollMask::RDNORM;
    }
    if sk.kind() == Kind::Seqpacket && st == SkState::Close {
        mask |= PollMask::HUP;
    }
    // No write status requested: avoid the expensive tests.
    if !requested.has(PollMask::WRITABLE) {
        return mask;
    }
    let mut writable = wakeup::writable(sk, st);
    if writable {
        let g = sk.lock();
        if let Some(other) = g.peer() {
            // A receiver not connected back, with a full queue: not writable, and the
            // relay will wake us when it makes room.
            if !other.peer_is(sk) && other.rcvq_full() && wakeup::peer_wake_me(&g, other) {
                writable = false;
            }
        }
    }
    if writable {
        mask |= PollMask::WRITABLE;
    } else {
        sk.set_nospace();
    }
    mask
}
