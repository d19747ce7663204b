// SPDX-License-Identifier: GPL-2.0

//! When the sockets' wait queues wake, and sleeping on them: the write-space hook,
//! the datagram writers' `peer_wait` and its relay, waiting for data or for a peer.
//! The C operations (typed wait queues, the trampolines) are [`crate::api::wait`]'s.
//!
//! AF_UNIX's "unix_write_space() use keyed wakeups" (2010): when a reader frees a
//! writer's skbs, the writer's socket becomes writable and only the tasks that wait to
//! *write* must wake. `__wake_up_sync_key` with the key `EPOLLOUT | EPOLLWRNORM |
//! EPOLLWRBAND` reaches only wait entries whose poll mask has one of those bits, so a
//! task that polls the same socket for input sleeps on.

#![deny(unsafe_code)]

use crate::api::param::wakeup_unkeyed;
use crate::api::sock::{wake_async, Shutdown, SkState, Sock, Socket, SpaceSock, StateGuard};
use crate::api::sync::RcuReadGuard;
use crate::api::task::signal_pending;
use crate::api::wait::{PeerWake, PollMask, Relay};

/// The `peer_wake` relay of the sockets of this family.
pub(crate) struct Wakeup;

impl PeerWake for Wakeup {
    #[inline]
    fn relay(relay: &mut Relay<'_>, key: PollMask) {
        peer_wake_relay_wake(relay, key);
    }
}

/// AF_UNIX's `unix_writable()`: at most a quarter of the send buffer is in flight.
pub(crate) fn writable(sk: &Sock, state: SkState) -> bool {
    writable_with(state, sk.wmem_alloc(), sk.sndbuf())
}

/// [`writable`] of a socket's state, bytes in flight and send buffer.
fn writable_with(state: SkState, wmem_alloc: u32, sndbuf: i32) -> bool {
    state != SkState::Listen && (u64::from(wmem_alloc) << 2) <= sndbuf as u64
}

/// The `sk_write_space` hook (AF_UNIX's `unix_write_space()`): skbs charged to `sk`
/// were freed; if it is writable now, its writers wake.
#[inline]
pub(crate) fn write_space(sk: &SpaceSock<'_>) {
    if !writable_with(sk.state(), sk.wmem_alloc(), sk.sndbuf()) {
        return;
    }
    let rcu = RcuReadGuard::new();
    // `skwq_has_sleeper()`.
    if let Some(wq) = sk.wq_rcu(&rcu).filter(|wq| wq.has_sleeper()) {
        // The debug mode wakes every poller, as AF_UNIX did before keyed wakeups.
        let key = if wakeup_unkeyed() {
            PollMask::NONE
        } else {
            PollMask::WRITABLE
        };
        wq.wake_sync_key(key);
    }
    sk.wake_async(wake_async::SPACE, wake_async::POLL_OUT);
}

/// After a receive: wakes the datagram writers that wait for room in `sk`'s queue.
pub(crate) fn wake_writers(sk: &Sock) {
    let wq = sk.peer_wait_queue();
    if wq.has_sleeper() {
        wq.wake_sync_key(PollMask::WRITABLE);
    }
}

/// Wakes every task sleeping on `sk`'s `peer_wait` (on release).
pub(crate) fn wake_all_peer_wait(sk: &Sock) {
    sk.peer_wait_queue().wake_all();
}

/// Sleeps on `sk`'s wait queue until `done()` says so, a signal arrives or `timeo`
/// jiffies pass, as AF_UNIX's `unix_stream_data_wait()`; returns the time left. `done`
/// is checked after the task is queued, so a wakeup between the check and the sleep is
/// not lost. While it sleeps the socket is marked `SOCKWQ_ASYNC_WAITDATA` (with
/// `O_ASYNC`, the wakeups that bring data send no `SIGIO`), cleared when it wakes,
/// unless the socket died meanwhile. The check and the mark are made under the state
/// lock, under which senders queue: data queued after the check finds the mark set.
/// `freezable`: the sleep of `recvmsg()` (not of `splice()`), in which the freezer may
/// freeze the task. The caller is a system call on `sock`, whose `sk` is `sk`, holding
/// no lock.
pub(crate) fn wait_on_sk(
    sock: &Socket,
    sk: &Sock,
    timeo: isize,
    freezable: bool,
    mut done: impl FnMut() -> bool,
) -> isize {
    // The queue of the system call's socket, which `sk_sleep(sk)` is.
    let wq = sock.wait_queue();
    let mut slept = false;
    wq.wait_timeout(timeo, freezable, |timeo| {
        let _g = sk.lock();
        if slept {
            // Released while sleeping (as AF_UNIX checks after `schedule_timeout`).
            if sk.is_dead() {
                return true;
            }
            sk.set_waitdata(false);
        }
        let stop = done() || signal_pending() || timeo == 0;
        if !stop {
            sk.set_waitdata(true);
            slept = true;
        }
        stop
    })
}

/// Sleeps on the `peer_wait` of `guard`'s socket until its queue has room
/// (`unix_wait_for_peer()`), releasing `guard`, its state lock, after queueing; returns
/// the time left.
pub(crate) fn wait_for_peer(guard: StateGuard<'_>, timeo: isize) -> isize {
    let other = guard.sock_ref();
    other.peer_wait_queue().wait_exclusive(timeo, move || {
        let sleep = !other.is_dead() && !other.shutdown().has(Shutdown::RCV) && other.rcvq_full();
        drop(guard);
        sleep
    })
}

/// The relay of `peer_wake` (AF_UNIX's `unix_dgram_peer_wake_relay()`): a datagram
/// peer's queue got room; the relay unhooks itself and wakes its socket's pollers.
/// Called under the peer's `peer_wait` lock.
fn peer_wake_relay_wake(relay: &mut Relay<'_>, key: PollMask) {
    relay.unhook();
    // Relaying can only happen while the wait queue still exists.
    if let Some(wq) = relay.sleep_queue() {
        wq.wake_poll(key);
    }
}

/// Hooks `sk`'s relay on `other`'s `peer_wait`, unless hooked already; true if it
/// hooked (`unix_dgram_peer_wake_connect()`). `sk` is locked.
fn peer_wake_connect(sk: &StateGuard<'_>, other: &Sock) -> bool {
    other.lock_peer_wait().hook_relay(sk)
}

/// Unhooks `sk`'s relay from `other`'s `peer_wait`, if it is there
/// (`unix_dgram_peer_wake_disconnect()`).
pub(crate) fn peer_wake_disconnect(sk: &Sock, other: &Sock) {
    other.lock_peer_wait().unhook_relay(sk);
}

/// Unhooks the relay and wakes `sk`'s writers: `sk` no longer sends to `other`
/// (`unix_dgram_peer_wake_disconnect_wakeup()`). `sk` must be live (not released).
pub(crate) fn peer_wake_disconnect_wakeup(sk: &Sock, other: &Sock) {
    peer_wake_disconnect(sk, other);
    wake_for_writing(sk);
}

/// Wakes `sk`'s pollers for writing: its relay left its old peer (the wakeup of
/// `unix_dgram_peer_wake_disconnect_wakeup()`, whose unhook `StateGuard::set_conn`
/// did).
pub(crate) fn wake_for_writing(sk: &Sock) {
    let rcu = RcuReadGuard::new();
    if let Some(wq) = sk.wq_rcu(&rcu) {
        wq.wake_poll(PollMask::WRITABLE);
    }
}

/// Whether a datagram socket must wait for room in its peer `other`'s queue
/// (`unix_dgram_peer_wake_me()`); if so, its relay is hooked on `other`'s `peer_wait`,
/// so that the receiver's progress wakes `sk`'s pollers. `sk` is the state lock of the
/// socket, with `other` its peer.
pub(crate) fn peer_wake_me(sk: &StateGuard<'_>, other: &Sock) -> bool {
    let hooked = peer_wake_connect(sk, other);
    // A dead peer must give POLLOUT, so that the next write sees ECONNREFUSED.
    if other.rcvq_full() && !other.is_dead() {
        return true;
    }
    if hooked {
        peer_wake_disconnect(sk.sock(), other);
    }
    false
}
