// SPDX-License-Identifier: GPL-2.0

//! Connections: `connect()` of a stream or seqpacket socket (an embryo queued on the
//! listener), `accept()`, and the default destination of a datagram socket, as
//! `net/unix/af_unix.c` of 6.12 does them.

#![deny(unsafe_code)]

use crate::api::addr::{SunAddr, AF_UNSPEC};

use crate::api::error::{ECONNREFUSED, ECONNRESET, EISCONN, EOPNOTSUPP};

use crate::api::lsm;

use crate::api::sock::{
    Conn, ConnState, ConnectedEmbryo, Embryo, NewSocket, Shutdown, SkState, Sock, Socket,
    StateGuard,
};

use crate::api::task::{intr_errno, signal_pending};

use crate::names;

use crate::api::kline::ARef;
use crate::opts::SockOpts;
use crate::proto::{account_new_socket, init_new, release, release_sock, unaccount_socket};
use crate::wakeup;
use kernel::error::{code::*, Error, Result};

/// `connect()` of a stream or seqpacket socket (`unix_stream_connect()`): a new
/// embryo socket, connected to `sk`, goes onto the listener's queue for `accept`.
// One function with its trampoline, as are the calls LLVM left out of line here
// (`alloc_embryo`, `set_conn`, `queue_embryo`, ...): a few dozen instructions a connect.
#[inline(always)]
pub(crate) fn stream_connect(sk: &Sock, sun: &SunAddr, nonblock: bool) -> Result {
    let name = names::Target::new(sk, sun.validate()?);
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
        let other = match name.find() {
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
        sg.set_socket_connected();
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
// Inlined: once per connect.
#[inline(always)]
fn setup_embryo(mut embryo: Embryo, client: &Sock, listener: &StateGuard<'_>) -> ConnectedEmbryo {
    // `SO_PASSRIGHTS` and `SO_RIGHTS_NOTRUNC` are the listener's (upstream 6.16 and 7.3
    // copy them at connect).
    embryo.inherit_opts(listener.sock());
    embryo.inherit_pass_flags(listener);
    if let Some(a) = listener.sock().addr() {
        embryo.set_addr(a);
    }
    embryo.connect_to(client, listener)
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
pub(crate) fn dgram_connect(sock: &Socket, sk: &Sock, sun: &SunAddr) -> Result {
    if sun.len() < crate::api::addr::PATH_OFFSET {
        return Err(EINVAL);
    }
    if sun.family() == AF_UNSPEC {
        // 1003.1g: breaking the connected state with AF_UNSPEC.
        let old = {
            let mut g = sk.lock();
            match g.conn() {
                ConnState::Connected => g.set_conn(Conn::Unconnected).into_peer(),
                _ => None,
            }
        };
        if let Some(old) = old {
            // The relay left `old` with the connection (`set_conn`).
            wakeup::wake_for_writing(sk);
            dgram_disconnected(sk, &old);
        }
        return Ok(());
    }
    let name = names::Target::new(sk, sun.validate()?);
    names::maybe_autobind(sk)?;
    loop {
        let other = name.find()?;
        let (mut gs, mut go) = Sock::lock_pair(sk, &other);
        // The VFS overslept the socket's death: retry.
        if other.is_dead() {
            continue;
        }
        let other_peer = go.as_ref().map_or_else(|| gs.peer(), |g| g.peer());
        if other_peer.is_some_and(|p| !core::ptr::eq(p, sk)) {
            return Err(EPERM);
        }
        lsm::unix_may_send(sock, go.as_ref().unwrap_or(&gs))?;
        // Both ends are marked connected; the other keeps its own peer, if any.
        if let Some(g) = go.as_mut() {
            if g.conn() == ConnState::Unconnected {
                g.set_conn(Conn::Target);
            }
        }
        let old = gs.set_conn(Conn::Connected(other.clone())).into_peer();
        drop(go);
        drop(gs);
        if let Some(old) = old {
            if core::ptr::eq(&*old, &*other) {
                // Connected again to the same peer: `set_conn` kept the relay there.
                wakeup::peer_wake_disconnect_wakeup(sk, &old);
            } else {
                // The relay left `old` with the connection; that link is broken.
                wakeup::wake_for_writing(sk);
                dgram_disconnected(sk, &old);
            }
        }
        return Ok(());
    }
}

/// `unix_dgram_disconnected()`: `sk` no longer sends to `other`. Whatever `sk` had
/// received is dropped (it may only hold messages of its peer), and `other`, if it was
/// connected back, learns of it with `ECONNRESET`.
pub(crate) fn dgram_disconnected(sk: &Sock, other: &Sock) {
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
    if g.conn() == ConnState::Target {
        g.set_conn(Conn::Unconnected);
    }
}
