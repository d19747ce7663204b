// SPDX-License-Identifier: GPL-2.0

//! The data path of datagram and seqpacket sockets: `sendmsg()`, `recvmsg()` and
//! `poll()`, as `net/unix/af_unix.c` of 6.12 does them.

#![deny(unsafe_code)]

use crate::api::addr::SunAddr;

use crate::api::error::{ECONNREFUSED, ECONNRESET, EMSGSIZE, ENOTCONN, EOPNOTSUPP};

use crate::api::lsm;
use crate::api::sock::Kind;
use crate::api::sock::{
    skb_limits, Conn, Datagram, Msg, MsgFlags, Shutdown, SkState, Skb, Sock, Socket,
};
use crate::api::sock::{MAX_SKB_FRAGS, PAGE_SIZE};

use crate::api::task::{intr_errno, signal_pending};
use crate::api::wait::PollMask;
use crate::cmsg::{self, RecvCreds};
use crate::gc;
use crate::names;

use crate::opts::SockOpts;
use crate::wakeup;
use kernel::error::{code::*, Error, Result};

use crate::connect::dgram_disconnected;
use crate::proto::{peer_get, DataSkb, PAGE_ALLOC_COSTLY_ORDER};

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
    let name = name.map(|n| names::Target::new(sk, n));
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
            (None, Some(n)) => n.find()?,
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
                // The relay left `old` with the connection (`set_conn`).
                wakeup::wake_for_writing(sk);
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
            lsm::unix_may_send(sock, &g)?;
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
