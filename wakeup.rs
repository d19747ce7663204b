// SPDX-License-Identifier: GPL-2.0

//! Wait queues: keyed wakeups and sleeping on a socket.
//!
//! AF_UNIX's "unix_write_space() use keyed wakeups" (2010): when a reader frees a
//! writer's skbs, the writer's socket becomes writable and only the tasks that wait to
//! *write* must wake. `__wake_up_sync_key` with the key `EPOLLOUT | EPOLLWRNORM |
//! EPOLLWRBAND` reaches only wait entries whose poll mask has one of those bits, so a
//! task that polls the same socket for input sleeps on.

use crate::bindings;
use crate::sock::{shut, wake_async, Sock, StateGuard};
use crate::sync::{RcuReadGuard, SpinGuard};
use core::ffi::{c_int, c_uint, c_void};
use core::mem::{offset_of, MaybeUninit};
use core::ptr;

/// The poll bits (`<uapi/linux/eventpoll.h>`).
pub(crate) mod poll {
    /// `EPOLLIN`.
    pub(crate) const IN: u32 = 0x0001;
    /// `EPOLLPRI`: out-of-band data.
    pub(crate) const PRI: u32 = 0x0002;
    /// `EPOLLOUT`.
    pub(crate) const OUT: u32 = 0x0004;
    /// `EPOLLERR`.
    pub(crate) const ERR: u32 = 0x0008;
    /// `EPOLLHUP`.
    pub(crate) const HUP: u32 = 0x0010;
    /// `EPOLLRDNORM`.
    pub(crate) const RDNORM: u32 = 0x0040;
    /// `EPOLLWRNORM`.
    pub(crate) const WRNORM: u32 = 0x0100;
    /// `EPOLLWRBAND`.
    pub(crate) const WRBAND: u32 = 0x0200;
    /// `EPOLLRDHUP`.
    pub(crate) const RDHUP: u32 = 0x2000;
    /// Writable: the key of every write-space wakeup.
    pub(crate) const WRITABLE: u32 = OUT | WRNORM | WRBAND;
}

const TASK_INTERRUPTIBLE: u32 = 0x0001;

/// `wake_up_interruptible_sync_poll(wq, key)`: wakes the entries of `wq` that wait for
/// one of the `key` bits.
fn wake_sync_key(wq: *mut bindings::wait_queue_head, key: u32) {
    // CAST: `poll_to_key()`: the key is passed as a pointer-sized integer.
    let key = key as usize as *mut c_void;
    // SAFETY: `wq` is a live wait queue of a live socket (callers pass one).
    unsafe { bindings::__wake_up_sync_key(wq, TASK_INTERRUPTIBLE, key) };
}

/// `wake_up_interruptible_poll(wq, key)`: as [`wake_sync_key`], without the sync hint.
fn wake_poll(wq: *mut bindings::wait_queue_head, key: u32) {
    // CAST: `poll_to_key()`: the key is passed as a pointer-sized integer.
    let key = key as usize as *mut c_void;
    // SAFETY: `wq` is a live wait queue of a live socket (callers pass one).
    unsafe { bindings::__wake_up(wq, TASK_INTERRUPTIBLE, 1, key) };
}

/// The socket's wait queue if a task sleeps on it, else NULL (`skwq_has_sleeper()`).
fn sleeper_wq(sk: &Sock, _rcu: &RcuReadGuard) -> *mut bindings::wait_queue_head {
    // SAFETY: `sk` is live and the RCU read lock is held, so its `sk_wq` (or NULL)
    // stays valid until the guard drops.
    unsafe {
        let wq = bindings::afunix_sk_wq(sk.as_ptr());
        if wq.is_null() {
            return ptr::null_mut();
        }
        let wait = ptr::addr_of_mut!((*wq).wait);
        if bindings::afunix_wq_has_sleeper(wait) {
            wait
        } else {
            ptr::null_mut()
        }
    }
}

/// AF_UNIX's `unix_writable()`: at most a quarter of the send buffer is in flight.
pub(crate) fn writable(sk: &Sock, state: u8) -> bool {
    state != crate::sock::state::LISTEN && (u64::from(sk.wmem_alloc()) << 2) <= sk.sndbuf() as u64
}

/// The `sk_write_space` hook: called when skbs charged to `sk` are freed.
pub(crate) fn write_space(sk: &Sock) {
    if !writable(sk, sk.state()) {
        return;
    }
    let rcu = RcuReadGuard::new();
    let wq = sleeper_wq(sk, &rcu);
    if !wq.is_null() {
        // The debug mode wakes every poller, as AF_UNIX did before keyed wakeups.
        let key = if crate::sock::wakeup_unkeyed() {
            0
        } else {
            poll::WRITABLE
        };
        wake_sync_key(wq, key);
    }
    sk.wake_async(wake_async::SPACE, wake_async::POLL_OUT);
}

/// After a receive: wakes the datagram writers that wait for room in `sk`'s queue.
pub(crate) fn wake_writers(sk: &Sock) {
    let wq = sk.peer_wait();
    // SAFETY: `peer_wait` of a live socket of this family.
    if unsafe { bindings::afunix_wq_has_sleeper(wq) } {
        wake_sync_key(wq, poll::WRITABLE);
    }
}

/// Wakes every task sleeping on `sk`'s `peer_wait` (on release).
pub(crate) fn wake_all_peer_wait(sk: &Sock) {
    // SAFETY: `peer_wait` of a live socket of this family.
    unsafe { bindings::afunix_wake_up_interruptible_all(sk.peer_wait()) };
}

/// Sleeps on `sk`'s wait queue until `done()` says so, a signal arrives or `timeo`
/// jiffies pass; returns the time left. `done` is checked after the task is queued, so
/// a wakeup between the check and the sleep is not lost.
pub(crate) fn wait_on_sk(sk: &Sock, mut timeo: isize, mut done: impl FnMut() -> bool) -> isize {
    let wq = sk.sleep_queue();
    let mut entry = MaybeUninit::<bindings::wait_queue_entry>::zeroed();
    let entry = entry.as_mut_ptr();
    // SAFETY: `entry` is a zeroed entry on this stack frame; it is removed from the
    // queue by `finish_wait` before the frame ends.
    unsafe { bindings::init_wait_entry(entry, 0) };
    loop {
        // SAFETY: `wq` is the wait queue of a live socket; `entry` was initialised above.
        unsafe { bindings::prepare_to_wait(wq, entry, TASK_INTERRUPTIBLE as i32) };
        if done() || crate::sock::signal_pending() || timeo == 0 {
            break;
        }
        // SAFETY: Sleeping in process context with no lock held (callers drop theirs).
        timeo = unsafe { bindings::schedule_timeout(timeo) };
    }
    // SAFETY: `entry` was queued on `wq` by `prepare_to_wait`.
    unsafe { bindings::finish_wait(wq, entry) };
    timeo
}

/// Sleeps on the `peer_wait` of `guard`'s socket until its queue has room
/// (`unix_wait_for_peer()`), releasing `guard`, its state lock, after queueing; returns
/// the time left.
pub(crate) fn wait_for_peer(guard: StateGuard<'_>, timeo: isize) -> isize {
    let other = guard.sock();
    let wq = other.peer_wait();
    let mut entry = MaybeUninit::<bindings::wait_queue_entry>::zeroed();
    let entry = entry.as_mut_ptr();
    // SAFETY: `DEFINE_WAIT()`: `entry` is a zeroed entry on this stack frame; it is
    // removed from the queue by `finish_wait` before the frame ends.
    unsafe { bindings::init_wait_entry(entry, 0) };
    // SAFETY: `wq` is the `peer_wait` of a live socket; `entry` was initialised above.
    unsafe { bindings::prepare_to_wait_exclusive(wq, entry, TASK_INTERRUPTIBLE as i32) };
    let sleep = !other.is_dead() && other.shutdown() & shut::RCV == 0 && other.rcvq_full();
    drop(guard);
    let mut timeo = timeo;
    if sleep {
        // SAFETY: Sleeping in process context with no lock held.
        timeo = unsafe { bindings::schedule_timeout(timeo) };
    }
    // SAFETY: `entry` was queued on `wq` by `prepare_to_wait_exclusive`.
    unsafe { bindings::finish_wait(wq, entry) };
    timeo
}

/// Takes the lock of `sk`'s `peer_wait`, which guards the `peer_wake` entries hooked
/// on it and their `private` field.
fn lock_peer_wait(sk: &Sock) -> SpinGuard {
    // SAFETY: The lock of the `peer_wait` of a live socket, initialised with the socket;
    // under it run only wakeups, and relays, which take the lock of the queue they wake.
    unsafe { SpinGuard::lock(ptr::addr_of_mut!((*sk.peer_wait()).lock)) }
}

/// The wake function of `peer_wake` (AF_UNIX's `unix_dgram_peer_wake_relay()`): a
/// datagram peer's queue got room; the relay unhooks itself and wakes this socket's
/// pollers. Called under the peer's `peer_wait` lock.
///
/// # Safety
///
/// Only called by the wakeup of the `peer_wait` that `q` is on, under its lock: `q` is
/// the `peer_wake` of a live socket of this family, hooked by [`peer_wake_me`], and its
/// `private` is the peer, also live.
pub(crate) unsafe extern "C" fn peer_wake_relay(
    q: *mut bindings::wait_queue_entry,
    _mode: c_uint,
    _flags: c_int,
    key: *mut c_void,
) -> c_int {
    // SAFETY: `container_of`: `q` is the `peer_wake` of a `UnixSock`, whose
    // first field is its `struct sock` (safety requirements).
    let u = unsafe { q.byte_sub(offset_of!(crate::sock::UnixSock, unix.peer_wake)) };
    // SAFETY: As above: a live socket of this family.
    let sk = unsafe { Sock::from_raw(u.cast()) };
    // SAFETY: `private` is the live peer whose `peer_wait` holds `q`, whose lock is
    // held (safety requirements).
    unsafe {
        let other = Sock::from_raw((*q).private.cast());
        bindings::afunix___remove_wait_queue(other.peer_wait(), q);
        (*q).private = ptr::null_mut();
    }
    // Relaying can only happen while the wait queue still exists.
    let u_sleep = sk.sleep_queue();
    if !u_sleep.is_null() {
        // CAST: `key_to_poll()`: the key is a pointer-sized integer of `__poll_t` bits.
        wake_poll(u_sleep, key as usize as u32);
    }
    0
}

/// Hooks `sk`'s relay on `other`'s `peer_wait`, unless hooked already; true if it
/// hooked (`unix_dgram_peer_wake_connect()`).
fn peer_wake_connect(sk: &Sock, other: &Sock) -> bool {
    let q = sk.peer_wake_entry();
    let _g = lock_peer_wait(other);
    // SAFETY: `q` is `sk`'s entry; its queueing and `private` change only under the
    // lock of the `peer_wait` it is hooked on. While `sk` reconnects, its relay may
    // still be on the old peer's queue and `private` may change under that lock: the
    // read is READ_ONCE, and a stale non-NULL value only skips this hook, as AF_UNIX's
    // `unix_dgram_peer_wake_connect()` does.
    unsafe {
        if !ptr::addr_of!((*q).private).read_volatile().is_null() {
            return false;
        }
        (*q).private = other.as_ptr().cast();
        bindings::afunix___add_wait_queue(other.peer_wait(), q);
    }
    true
}

/// Unhooks `sk`'s relay from `other`'s `peer_wait`, if it is there
/// (`unix_dgram_peer_wake_disconnect()`).
pub(crate) fn peer_wake_disconnect(sk: &Sock, other: &Sock) {
    let q = sk.peer_wake_entry();
    let _g = lock_peer_wait(other);
    // SAFETY: As in `peer_wake_connect`: if `private` is `other`, `q` is on `other`'s
    // `peer_wait`, whose lock is held, and it stays there.
    unsafe {
        if ptr::eq(
            ptr::addr_of!((*q).private).read_volatile(),
            other.as_ptr().cast(),
        ) {
            bindings::afunix___remove_wait_queue(other.peer_wait(), q);
            (*q).private = ptr::null_mut();
        }
    }
}

/// Unhooks the relay and wakes `sk`'s writers: `sk` no longer sends to `other`
/// (`unix_dgram_peer_wake_disconnect_wakeup()`). `sk` must be live (not released).
pub(crate) fn peer_wake_disconnect_wakeup(sk: &Sock, other: &Sock) {
    peer_wake_disconnect(sk, other);
    // `sk` is live and not released, so it has a wait queue.
    wake_poll(sk.sleep_queue(), poll::WRITABLE);
}

/// Whether a datagram socket must wait for room in its peer `other`'s queue
/// (`unix_dgram_peer_wake_me()`); if so, its relay is hooked on `other`'s `peer_wait`,
/// so that the receiver's progress wakes `sk`'s pollers. Called under `sk`'s state
/// lock, with `other` its peer.
pub(crate) fn peer_wake_me(sk: &Sock, other: &Sock) -> bool {
    let hooked = peer_wake_connect(sk, other);
    // A dead peer must give POLLOUT, so that the next write sees ECONNREFUSED.
    if other.rcvq_full() && !other.is_dead() {
        return true;
    }
    if hooked {
        peer_wake_disconnect(sk, other);
    }
    false
}
