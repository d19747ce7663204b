// SPDX-License-Identifier: GPL-2.0

//! The data path of stream sockets: `sendmsg()` (with `MSG_OOB` and the coalesced
//! small writes of `net.rust_afunix.stream_coalesce`), `recvmsg()`, `splice_read()`
//! and `poll()`, as `net/unix/af_unix.c` of 6.12 does them.

#![deny(unsafe_code)]

use crate::api::cmsg::SOL_SOCKET;
use crate::api::error::{ECONNRESET, EISCONN, ENOTCONN, EOPNOTSUPP};

use crate::api::sock::{skb_limits, Msg, MsgFlags, Shutdown, SkState, Skb, SkbView, Sock, Socket};
use crate::api::sock::{Pipe, PAGE_SIZE};

use crate::api::task::{intr_errno, send_sigpipe, signal_pending};
use crate::api::wait::PollMask;
use crate::cmsg::{self, RecvCreds};
use crate::gc;

use crate::oob;
use crate::opts::SockOpts;
use crate::wakeup;
use kernel::error::{code::*, Error, Result};

use crate::proto::{peer_get, DataSkb, SCM_INQ};

/// `sendmsg()` of a stream socket (`unix_stream_sendmsg()`).
#[inline(always)]
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
#[inline(always)]
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
            // Skip the peek offset. What is unread is read under the state lock, under
            // which coalesced writes append: bytes appended after it are the next
            // round's.
            let mut seen = s.unread();
            while skip >= seen as usize {
                skip -= seen as usize;
                match s.next(&g) {
                    Ok(Some(n)) => {
                        s = n;
                        seen = s.unread();
                    }
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
                // AF_UNIX's), or, with `stream_coalesce`, were appended after the state
                // lock was dropped: the read goes on with them until it has what it
                // asked for.
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
            // A coalesced write added to `s` since the state lock was dropped: peek on
            // in it, after what this copy took, before the skbs after it.
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
