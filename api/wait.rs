// SPDX-License-Identifier: GPL-2.0

//! Wait queues: typed wait queue heads, the sleeping loops, keyed wakeups, `poll_wait`,
//! the `peer_wake` relay entry and the `sk_write_space` hook.
//!
//! What a socket's wait queues are for, and when to wake them, is the protocol's
//! (`wakeup.rs`); here are the C operations, over references whose invariants make them
//! sound, and the two C callbacks, as trampolines that delegate to a trait:
//! [`WriteSpaceAdapter`] (`sk_write_space`) and [`RelayAdapter`] (the wake function of
//! a socket's `peer_wake` entry).

use crate::api::bindings;
use crate::api::sock::{Sock, Socket, SpaceSock, StateGuard, UnixSock};
use crate::api::sync::{RcuReadGuard, SpinGuard};
use core::ffi::{c_int, c_uint, c_void};
use core::marker::PhantomData;
use core::mem::{offset_of, MaybeUninit};
use core::ptr;
use kernel::types::Opaque;

/// `TASK_INTERRUPTIBLE`: every sleep and wakeup of the module is interruptible.
const TASK_INTERRUPTIBLE: u32 = 0x0001;

/// Poll bits (`__poll_t`): what `poll()` reports, and the keys of keyed wakeups.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct PollMask(u32);

impl PollMask {
    /// None (an unkeyed wakeup wakes every entry).
    pub(crate) const NONE: PollMask = PollMask(0);
    /// `EPOLLIN`.
    pub(crate) const IN: PollMask = PollMask(0x0001);
    /// `EPOLLPRI`: out-of-band data.
    pub(crate) const PRI: PollMask = PollMask(0x0002);
    /// `EPOLLOUT`.
    const OUT: PollMask = PollMask(0x0004);
    /// `EPOLLERR`.
    pub(crate) const ERR: PollMask = PollMask(0x0008);
    /// `EPOLLHUP`.
    pub(crate) const HUP: PollMask = PollMask(0x0010);
    /// `EPOLLRDNORM`.
    pub(crate) const RDNORM: PollMask = PollMask(0x0040);
    /// `EPOLLWRNORM`.
    const WRNORM: PollMask = PollMask(0x0100);
    /// `EPOLLWRBAND`.
    const WRBAND: PollMask = PollMask(0x0200);
    /// `EPOLLRDHUP`.
    pub(crate) const RDHUP: PollMask = PollMask(0x2000);
    /// Writable: the key of every write-space wakeup.
    pub(crate) const WRITABLE: PollMask = PollMask(Self::OUT.0 | Self::WRNORM.0 | Self::WRBAND.0);

    /// The bits of a `__poll_t`.
    pub(crate) fn from_raw(v: u32) -> PollMask {
        PollMask(v)
    }

    /// The raw bits.
    pub(crate) fn raw(self) -> u32 {
        self.0
    }

    /// Whether any bit of `other` is set.
    pub(crate) fn has(self, other: PollMask) -> bool {
        self.0 & other.0 != 0
    }
}

impl core::ops::BitOr for PollMask {
    type Output = PollMask;
    fn bitor(self, o: PollMask) -> PollMask {
        PollMask(self.0 | o.0)
    }
}

impl core::ops::BitOrAssign for PollMask {
    fn bitor_assign(&mut self, o: PollMask) {
        self.0 |= o.0;
    }
}

/// A `wait_queue_head_t`.
///
/// # Invariants
///
/// `self.0` is an initialised wait queue head, alive while it is borrowed.
#[repr(transparent)]
pub(crate) struct WaitQueueHead(Opaque<bindings::wait_queue_head>);

impl WaitQueueHead {
    /// Borrows a wait queue head, or `None` for NULL.
    ///
    /// # Safety
    ///
    /// A non-NULL `ptr` is an initialised wait queue head that stays alive for `'a`.
    #[inline]
    unsafe fn from_raw<'a>(ptr: *mut bindings::wait_queue_head) -> Option<&'a WaitQueueHead> {
        // CAST: `WaitQueueHead` is `repr(transparent)` over `wait_queue_head`.
        // SAFETY: Valid for `'a` by the safety requirements.
        unsafe { ptr.cast::<WaitQueueHead>().as_ref() }
    }

    #[inline]
    fn as_ptr(&self) -> *mut bindings::wait_queue_head {
        self.0.get()
    }

    /// `wq_has_sleeper()`: whether a task waits on the queue (with the barrier that
    /// pairs with the waiter's `prepare_to_wait`).
    #[inline]
    pub(crate) fn has_sleeper(&self) -> bool {
        // SAFETY: An initialised, live wait queue (type invariant).
        unsafe { bindings::afunix_wq_has_sleeper(self.as_ptr()) }
    }

    /// `wake_up_interruptible_sync_poll(wq, key)`: wakes the entries that wait for one
    /// of the `key` poll bits (0: every entry), with the sync hint.
    #[inline]
    pub(crate) fn wake_sync_key(&self, key: PollMask) {
        // CAST: `poll_to_key()`: the key is passed as a pointer-sized integer.
        let key = key.0 as usize as *mut c_void;
        // SAFETY: An initialised, live wait queue (type invariant).
        unsafe { bindings::__wake_up_sync_key(self.as_ptr(), TASK_INTERRUPTIBLE, key) };
    }

    /// `wake_up_interruptible_poll(wq, key)`: as [`WaitQueueHead::wake_sync_key`],
    /// without the sync hint.
    #[inline]
    pub(crate) fn wake_poll(&self, key: PollMask) {
        // CAST: `poll_to_key()`: the key is passed as a pointer-sized integer.
        let key = key.0 as usize as *mut c_void;
        // SAFETY: An initialised, live wait queue (type invariant).
        unsafe { bindings::__wake_up(self.as_ptr(), TASK_INTERRUPTIBLE, 1, key) };
    }

    /// `wake_up_interruptible_all()`.
    #[inline]
    pub(crate) fn wake_all(&self) {
        // SAFETY: An initialised, live wait queue (type invariant).
        unsafe { bindings::afunix_wake_up_interruptible_all(self.as_ptr()) };
    }

    /// Sleeps on the queue, interruptibly, until `stop` says so; returns the jiffies
    /// left of `timeo`. Each round queues the task (`prepare_to_wait`), then asks
    /// `stop(timeo)`, then sleeps (`schedule_timeout`): a wakeup between the check and
    /// the sleep is not lost. `stop` runs with the task queued and not yet sleeping.
    /// `freezable`: the sleep is also `TASK_FREEZABLE` (the freezer may freeze the task
    /// in it, without waking it).
    ///
    /// Sleeps: not to be called under a spinlock.
    pub(crate) fn wait_timeout(
        &self,
        mut timeo: isize,
        freezable: bool,
        mut stop: impl FnMut(isize) -> bool,
    ) -> isize {
        let state = if freezable {
            TASK_INTERRUPTIBLE | bindings::AFUNIX_TASK_FREEZABLE
        } else {
            TASK_INTERRUPTIBLE
        };
        let wq = self.as_ptr();
        let mut entry = MaybeUninit::<bindings::wait_queue_entry>::uninit();
        let entry = entry.as_mut_ptr();
        // SAFETY: `entry` is on this stack frame; it is removed from the queue by
        // `finish_wait` before the frame ends.
        unsafe { define_wait(entry) };
        loop {
            // SAFETY: `wq` is live (type invariant); `entry` was initialised above.
            unsafe { bindings::prepare_to_wait(wq, entry, state as i32) };
            if stop(timeo) {
                break;
            }
            // SAFETY: Sleeping in process context with no spinlock held (see above).
            timeo = unsafe { bindings::schedule_timeout(timeo) };
        }
        // SAFETY: `entry` was queued on `wq` by `prepare_to_wait`.
        unsafe { bindings::finish_wait(wq, entry) };
        timeo
    }

    /// Queues the task as an exclusive waiter (`prepare_to_wait_exclusive`), asks
    /// `prepare` whether to sleep (it runs with the task queued: a caller drops its
    /// lock there), sleeps at most `timeo` jiffies if so, and dequeues the task; returns
    /// the jiffies left.
    ///
    /// Sleeps: not to be called under a spinlock (other than one `prepare` drops).
    pub(crate) fn wait_exclusive(&self, timeo: isize, prepare: impl FnOnce() -> bool) -> isize {
        let wq = self.as_ptr();
        let mut entry = MaybeUninit::<bindings::wait_queue_entry>::uninit();
        let entry = entry.as_mut_ptr();
        // SAFETY: `entry` is on this stack frame; it is removed from the queue by
        // `finish_wait` before the frame ends.
        unsafe { define_wait(entry) };

        // SAFETY: `wq` is live (type invariant); `entry` was initialised above.
        unsafe { bindings::prepare_to_wait_exclusive(wq, entry, TASK_INTERRUPTIBLE as i32) };
        let mut timeo = timeo;
        if prepare() {
            // SAFETY: Sleeping in process context with no spinlock held (see above).
            timeo = unsafe { bindings::schedule_timeout(timeo) };
        }
        // SAFETY: `entry` was queued on `wq` by `prepare_to_wait_exclusive`.
        unsafe { bindings::finish_wait(wq, entry) };
        timeo
    }
}

/// `DEFINE_WAIT()`: an entry that wakes the current task and dequeues it
/// (`autoremove_wake_function`), as `init_wait_entry(entry, 0)` makes it, without the call.
///
/// # Safety
///
/// `entry` is valid for writes and not on a queue.
#[inline]
unsafe fn define_wait(entry: *mut bindings::wait_queue_entry) {
    // SAFETY: `entry` is valid for writes (safety requirements); every field is written.
    unsafe {
        (*entry).flags = 0;
        (*entry).private = bindings::afunix_current_task().cast();
        (*entry).func = Some(bindings::autoremove_wake_function);
        let head = ptr::addr_of_mut!((*entry).entry);
        (*head).next = head;
        (*head).prev = head;
    }
}

/// The wait queues of a socket.
impl Sock {
    /// The queue datagram writers and connecting clients sleep on (`peer_wait`).
    #[inline]
    pub(crate) fn peer_wait_queue(&self) -> &WaitQueueHead {
        // CAST: `WaitQueueHead` is `repr(transparent)` over `wait_queue_head`.
        // SAFETY: A field of the live `UnixSock` of `self`, initialised with the socket
        // (`Sock::init_unix`) and freed with it.
        unsafe { &*self.peer_wait().cast::<WaitQueueHead>() }
    }

    /// The socket's wait queue (`rcu_dereference(sk->sk_wq)`), under RCU; `None` once
    /// the socket is orphaned.
    #[inline]
    pub(crate) fn wq_rcu<'a>(&'a self, _rcu: &'a RcuReadGuard) -> Option<&'a WaitQueueHead> {
        // SAFETY: `self` is live. A socket's `sk_wq` is its `struct socket`'s queue, freed
        // with the socket inode a grace period after the socket's release, or (an
        // embryo) its own `peer_wq`, part of the socket that `self` keeps alive: either
        // stays while the RCU read lock (`_rcu`) is held.
        unsafe {
            let wq = bindings::afunix_sk_wq(self.as_ptr());
            if wq.is_null() {
                return None;
            }
            WaitQueueHead::from_raw(ptr::addr_of_mut!((*wq).wait))
        }
    }

    /// Takes the lock of the socket's `peer_wait`, which guards the `peer_wake` entries
    /// hooked on it.
    #[inline]
    pub(crate) fn lock_peer_wait(&self) -> PeerWaitGuard<'_> {
        // SAFETY: The lock of the `peer_wait` of a live socket, initialised with the
        // socket; callers keep the lock order ([`crate::api`], "Lock order").
        let lock = unsafe { SpinGuard::lock(ptr::addr_of_mut!((*self.peer_wait()).lock)) };
        // INVARIANT: Just locked.
        PeerWaitGuard {
            owner: self,
            _lock: lock,
        }
    }
}

impl Socket {
    /// The socket's wait queue (`&sock->wq.wait`, which `sk_sleep()` of its `sk` is),
    /// borrowed for as long as the `struct socket` a system call lends.
    #[inline]
    pub(crate) fn wait_queue(&self) -> &WaitQueueHead {
        // CAST: `WaitQueueHead` is `repr(transparent)` over `wait_queue_head`.
        // SAFETY: `self` is a live `struct socket` (type invariant), whose `wq` is
        // initialised with it and lives as long.
        unsafe { &*ptr::addr_of_mut!((*self.as_ptr()).wq.wait).cast::<WaitQueueHead>() }
    }
}

impl<'a> StateGuard<'a> {
    /// The socket whose state lock this is, borrowed for as long as the guard's borrow
    /// of it (not only as long as the guard): to wait on the socket's queue after
    /// unlocking.
    #[inline]
    pub(crate) fn sock_ref(&self) -> &'a Sock {
        // SAFETY: A `StateGuard<'a>` holds a `&'a Sock` of its socket, live for `'a`.
        unsafe { Sock::from_raw(self.sock().as_ptr()) }
    }
}

/// The lock of a socket's `peer_wait`, held.
///
/// The `peer_wake` entry of every socket of this family (AF_UNIX's relay, see
/// [`RelayAdapter`]) is unhooked with a NULL `private`, or hooked on the `peer_wait` of
/// the socket its `private` points to. Both hooking and unhooking happen under the lock
/// of that `peer_wait`, and hooking also under the entry's socket's state lock.
///
/// # Invariants
///
/// The lock of `owner`'s `peer_wait` is held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct PeerWaitGuard<'a> {
    owner: &'a Sock,
    _lock: SpinGuard,
}

impl PeerWaitGuard<'_> {
    /// Hooks the relay of `sk`, whose state lock is held, on this `peer_wait`, unless it
    /// is hooked already (here or on another queue); true if it hooked
    /// (`unix_dgram_peer_wake_connect()`). Only on the queue of `sk`'s connected peer
    /// (else false): the peer's reference, which `sk` holds until it unhooks on
    /// disconnect or release, keeps the queue alive while the relay is on it.
    pub(crate) fn hook_relay(&mut self, sk: &StateGuard<'_>) -> bool {
        if !sk.peer().is_some_and(|p| ptr::eq(p, self.owner)) {
            return false;
        }
        let q = sk.sock().peer_wake_entry();
        // SAFETY: `q` is the entry of a live socket. Its `private` changes only under the
        // lock of the `peer_wait` it is (to be) hooked on, and its hooking also under
        // `sk`'s state lock, held: no other task hooks it meanwhile. While `sk`
        // reconnects, its relay may still be on the old peer's queue and `private` may
        // be cleared under that lock: the read is READ_ONCE, and a stale non-NULL value
        // only skips this hook, as AF_UNIX's `unix_dgram_peer_wake_connect()` does. A
        // NULL `private` means the entry is on no queue: it is added to this one, whose
        // lock is held (type invariant).
        unsafe {
            if !ptr::addr_of!((*q).private).read_volatile().is_null() {
                return false;
            }
            (*q).private = self.owner.as_ptr().cast();
            bindings::afunix___add_wait_queue(self.owner.peer_wait(), q);
        }
        true
    }

    /// Unhooks the relay of `sk` from this `peer_wait`, if it is there
    /// (`unix_dgram_peer_wake_disconnect()`).
    pub(crate) fn unhook_relay(&mut self, sk: &Sock) {
        let q = sk.peer_wake_entry();
        // SAFETY: `q` is the entry of a live socket. If its `private` is this queue's
        // socket, it is hooked here, and stays so: both hooking and unhooking it would
        // need this lock, held (type invariant).
        unsafe {
            if ptr::eq(
                ptr::addr_of!((*q).private).read_volatile(),
                self.owner.as_ptr().cast(),
            ) {
                bindings::afunix___remove_wait_queue(self.owner.peer_wait(), q);
                (*q).private = ptr::null_mut();
            }
        }
    }
}

pub(crate) use crate::api::sock::WaitFunc;

/// The wake function of a socket's `peer_wake` entry (AF_UNIX's
/// `unix_dgram_peer_wake_relay()`).
pub(crate) trait PeerWake {
    /// The `peer_wait` that `relay`'s entry is hooked on is woken with `key` (poll
    /// bits, 0 for all); called under that queue's lock.
    fn relay(relay: &mut Relay<'_>, key: PollMask);
}

/// A socket's `peer_wake` entry, called by the wakeup of the `peer_wait` it is hooked
/// on.
///
/// # Invariants
///
/// The wakeup of the `peer_wait` that the entry of `sk` is on is running, under that
/// queue's lock, for as long as this value exists; while `hooked`, the entry is on that
/// queue and its `private` is the queue's socket.
pub(crate) struct Relay<'a> {
    sk: &'a Sock,
    hooked: bool,
    /// Not `Send`: it lives in the waker's call.
    _not_send: PhantomData<*mut ()>,
}

impl Relay<'_> {
    /// Takes the entry off the queue being woken (once; later calls do nothing).
    #[inline]
    pub(crate) fn unhook(&mut self) {
        if !self.hooked {
            return;
        }
        self.hooked = false;
        let q = self.sk.peer_wake_entry();
        // SAFETY: The entry is on the queue of its `private`, a live socket, whose lock
        // is held (type invariant); the waker's walk (`__wake_up_common`) allows the
        // entry it calls to remove itself.
        unsafe {
            let other = Sock::from_raw((*q).private.cast());
            bindings::afunix___remove_wait_queue(other.peer_wait(), q);
            (*q).private = ptr::null_mut();
        }
    }

    /// The wait queue of the entry's socket (`sk_sleep()`), or `None` once the socket
    /// is orphaned.
    #[inline]
    pub(crate) fn sleep_queue(&self) -> Option<&WaitQueueHead> {
        // SAFETY: `sk` is live (its entry is being called). The waker holds a spinlock
        // (type invariant), which is an RCU read-side section: the queue (see
        // `Sock::wq_rcu`) stays until the call returns, which outlives `&self`.
        unsafe { WaitQueueHead::from_raw(self.sk.sleep_queue()) }
    }
}

/// The wake function of `peer_wake` entries, over a [`PeerWake`] implementation.
pub(crate) struct RelayAdapter<T: PeerWake>(PhantomData<T>);

impl<T: PeerWake> RelayAdapter<T> {
    /// The `wait_queue_func_t` for `init_waitqueue_func_entry()` of `peer_wake`.
    pub(crate) const FUNC: WaitFunc = Self::relay;

    /// # Safety
    ///
    /// Only called by the wakeup of the `peer_wait` that `q` is on, under its lock: `q`
    /// is the `peer_wake` of a live socket of this family, hooked by
    /// [`PeerWaitGuard::hook_relay`], and its `private` is the peer, also live.
    unsafe extern "C" fn relay(
        q: *mut bindings::wait_queue_entry,
        _mode: c_uint,
        _flags: c_int,
        key: *mut c_void,
    ) -> c_int {
        // SAFETY: `container_of`: `q` is the `peer_wake` of a `UnixSock`, whose first
        // field is its `struct sock` (safety requirements).
        let u = unsafe { q.byte_sub(offset_of!(UnixSock, unix.peer_wake)) };
        // SAFETY: As above: a live socket of this family.
        let sk = unsafe { Sock::from_raw(u.cast()) };
        // INVARIANT: Called by the wakeup of the queue `q` is on, under its lock.
        let mut relay = Relay {
            sk,
            hooked: true,
            _not_send: PhantomData,
        };
        // CAST: `key_to_poll()`: the key is a pointer-sized integer of `__poll_t` bits.
        T::relay(&mut relay, PollMask(key as usize as u32));
        0
    }
}

impl SpaceSock<'_> {
    /// The socket's wait queue under RCU (`skwq_has_sleeper()`'s), as [`Sock::wq_rcu`].
    pub(crate) fn wq_rcu<'a>(&'a self, rcu: &'a RcuReadGuard) -> Option<&'a WaitQueueHead> {
        self.sock().wq_rcu(rcu)
    }
}
