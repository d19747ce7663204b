// SPDX-License-Identifier: GPL-2.0

//! What the collector of fds in flight (the protocol's `gc.rs`) needs of the C API: its
//! list of the sockets in flight ([`InflightList`]), its walk of their queues
//! ([`Sock::scan_fds`], [`Sock::splice_queues`]), its hit list ([`SkbList`]), the
//! emptying of its reused scratch vectors ([`empty`]), its lock
//! class ([`new_gc_lock`]), and the slot that publishes the collector to the sockets
//! and skbs that reach it without a reference ([`ArcSlot`], [`Published`]).
//!
//! The fd lists of the skbs (`Skb::set_fds`, `take_fds`, `SkbView::fds`) are in
//! [`crate::api::sock`], with the rest of the skb's control block.

use crate::api::bindings;
use crate::api::cred::Kuid;
use crate::api::file::{family_sk_of_file, FdList, Fds};
use crate::api::kline::{InPlaceInit, PinInit};
use crate::api::sock::{QueuedSkb, SkState, Skb, Sock, UnixSock};
use crate::api::sync::SpinLock;
use core::pin::Pin;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use kernel::alloc::{flags::GFP_KERNEL, KBox, KVVec};
use kernel::error::Result;
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow};
use kernel::types::Opaque;

/// The collector's lock over `data`, of a lock class of its own.
pub(crate) fn new_gc_lock<T>(data: T) -> impl PinInit<SpinLock<T>> {
    SpinLock::new(data, bindings::afunix_gc_lock_init)
}

/// Empties `v`, keeping its allocation (6.12's `KVVec` has no `clear`).
#[cfg(kline_6_12)]
pub(crate) fn empty<T: Copy>(v: &mut KVVec<T>) {
    // SAFETY: 0 is within the capacity; the entries are `Copy`, so none needs a drop.
    unsafe { v.set_len(0) };
}

/// Empties `v`, keeping its allocation.
#[cfg(kline_7_3)]
pub(crate) fn empty<T: Copy>(v: &mut KVVec<T>) {
    v.clear();
}

/// The collector's list of the sockets of this family in flight (their file is in an
/// fd list in flight), and their per-socket fields (`gc_link`, `inflight`, `gc_index`
/// of `UnixSock`).
// 7.3's kernel::interop::list::CList: not used: it walks a C list_head, with no add or del.
///
/// It lives inside the collector's lock ([`new_gc_lock`]): a `&InflightList` or
/// `&mut InflightList` is the proof that the lock is held, and is the only way to the
/// per-socket fields.
///
/// # Invariants
///
/// `head` is an initialised list head whose entries are the `gc_link`s of the sockets
/// whose `inflight` is not 0. Each such socket is alive: a list in flight holds its
/// file, and the list is taken out of flight ([`InflightList::put`]) before it puts
/// the file.
pub(crate) struct InflightList {
    head: Pin<KBox<Opaque<bindings::list_head>>>,
}

// SAFETY: The list is only used under the collector's lock, from any thread.
unsafe impl Send for InflightList {}

impl Drop for InflightList {
    fn drop(&mut self) {
        let head = self.head.get();
        // SAFETY: The list is initialised (type invariant) and ours (`&mut self`): every
        // socket left on it is unlinked and counted out, so none points at the freed
        // head.
        unsafe {
            loop {
                let pos = (*head).next;
                if pos == head {
                    break;
                }
                bindings::afunix_list_del(pos);
                (*Self::fields(Self::sock_of(pos))).inflight = 0;
            }
        }
        LIST_EXISTS.store(false, Ordering::Release);
    }
}

/// The index of a socket that is not a candidate of the collector's run.
pub(crate) const NOT_CANDIDATE: u32 = u32::MAX;

/// Whether the one [`InflightList`] exists: a second would pass for the proof that the
/// collector's lock is held.
static LIST_EXISTS: AtomicBool = AtomicBool::new(false);

impl InflightList {
    /// The empty list, once (`EBUSY` while it exists).
    pub(crate) fn new() -> Result<InflightList> {
        if LIST_EXISTS
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Err(EBUSY);
        }
        let head = KBox::pin_init(
            Opaque::ffi_init(|p| {
                // SAFETY: `p` is the head's storage, initialised here.
                unsafe { bindings::afunix_list_init(p) }
            }),
            GFP_KERNEL,
        )
        .inspect_err(|_| LIST_EXISTS.store(false, Ordering::Release))?;
        // INVARIANT: Initialised, empty.
        Ok(InflightList { head })
    }

    fn fields(sk: &Sock) -> *mut UnixSock {
        sk.unix()
    }

    /// One more reference to `sk`'s file goes in flight; true if it was not in flight.
    pub(crate) fn get(&mut self, sk: &Sock) -> bool {
        let u = Self::fields(sk);
        // SAFETY: The collector's lock is held (`&mut self`), which guards these
        // fields; `sk` is alive (borrowed).
        unsafe {
            (*u).inflight += 1;
            if (*u).inflight == 1 {
                bindings::afunix_list_add_tail(ptr::addr_of_mut!((*u).gc_link), self.head.get());
                return true;
            }
        }
        false
    }

    /// One reference to `sk`'s file leaves flight (before it is put); true if it was
    /// the last.
    pub(crate) fn put(&mut self, sk: &Sock) -> bool {
        let u = Self::fields(sk);
        // SAFETY: As in `get`. A socket whose file was in flight is on the list.
        unsafe {
            if (*u).inflight == 0 {
                return false;
            }
            (*u).inflight -= 1;
            if (*u).inflight == 0 {
                bindings::afunix_list_del(ptr::addr_of_mut!((*u).gc_link));
                return true;
            }
        }
        false
    }

    /// References to `sk`'s file in flight.
    pub(crate) fn inflight(&self, sk: &Sock) -> usize {
        // SAFETY: As in `get` (`&self`: the lock is held, no writer).
        unsafe { (*Self::fields(sk)).inflight }
    }

    /// All references to the file of `sk`, a socket in flight (`file_count()`).
    pub(crate) fn file_refs(&self, sk: &Sock) -> usize {
        // Only a socket in flight is known to keep its `struct socket` (below).
        if self.inflight(sk) == 0 {
            return usize::MAX;
        }
        // SAFETY: A socket in flight has its `struct socket` and file, held by a list
        // in flight, which cannot leave flight while the lock (`&self`) is held.
        unsafe {
            let sock = (*sk.as_ptr()).sk_socket;
            if sock.is_null() || (*sock).file.is_null() {
                return usize::MAX;
            }
            bindings::afunix_file_count((*sock).file) as usize
        }
    }

    /// The socket's index among the candidates of this run.
    pub(crate) fn index(&self, sk: &Sock) -> u32 {
        // SAFETY: As in `inflight`.
        unsafe { (*Self::fields(sk)).gc_index }
    }

    /// Sets the socket's index among the candidates of this run.
    pub(crate) fn set_index(&self, sk: &Sock, i: u32) {
        // SAFETY: As in `inflight`; the lock is held by this thread, which is the only
        // one to reach this field, and no reference to it exists.
        unsafe { (*Self::fields(sk)).gc_index = i };
    }

    /// The sockets in flight.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Sock> {
        let head = self.head.get();
        // SAFETY: The list is initialised (type invariant); read under the lock.
        let mut pos = unsafe { (*head).next };
        core::iter::from_fn(move || {
            if pos == head {
                return None;
            }
            // SAFETY: `pos` is the `gc_link` of a socket in flight (type invariant),
            // alive while the lock (`&self`) is held.
            unsafe {
                let sk = Self::sock_of(pos);
                pos = (*pos).next;
                Some(sk)
            }
        })
    }

    /// The socket whose `gc_link` is `pos`.
    ///
    /// # Safety
    ///
    /// `pos` is the `gc_link` of a socket in flight, and the lock is held for `'a`.
    unsafe fn sock_of<'a>(pos: *mut bindings::list_head) -> &'a Sock {
        let off = core::mem::offset_of!(UnixSock, gc_link);
        // SAFETY: CAST: `container_of` of a `gc_link` (safety requirements); the socket
        // is alive while the lock is held.
        unsafe {
            let u = pos.cast::<u8>().sub(off).cast::<UnixSock>();
            Sock::from_raw(ptr::addr_of_mut!((*u).unix.sk))
        }
    }

    /// Walks the list once and moves the sockets that `pick` chooses to its front
    /// (the first of [`InflightList::iter`], in reverse order); returns how many it
    /// chose. `pick` gets the list, to read and set the per-socket fields.
    pub(crate) fn pick_front(
        &mut self,
        mut pick: impl FnMut(&InflightList, &Sock) -> bool,
    ) -> usize {
        let this: &InflightList = self;
        let head = this.head.get();
        let mut picked = 0;
        // SAFETY: The list is initialised (type invariant); the lock is held (`&mut
        // self`: no other walk is running).
        let mut pos = unsafe { (*head).next };
        while pos != head {
            // SAFETY: `pos` is the `gc_link` of a socket in flight (type invariant);
            // its successor is read before it moves.
            let (next, sk) = unsafe { ((*pos).next, Self::sock_of(pos)) };
            if pick(this, sk) {
                // SAFETY: `pos` is on the list whose head is `head`; the lock is held.
                // Moved to the front, it is behind the walk, which goes on at `next`.
                unsafe { bindings::afunix_list_move(pos, head) };
                picked += 1;
            }
            pos = next;
        }
        picked
    }
}

/// The collector's walk of the queues of the sockets in flight.
impl Sock {
    /// Calls `f` with each fd list queued on this socket, or for a listener on its
    /// embryos (whose fds the listener holds until it accepts them), under the queues'
    /// locks; `_gc` is the proof that the collector's lock is held.
    pub(crate) fn scan_fds(&self, _gc: &InflightList, mut f: impl FnMut(&Fds)) {
        let listener = self.state() == SkState::Listen;
        let q = self.rcvq_lock();
        let mut skb = q.peek(None);
        while let Some(s) = skb {
            if listener {
                if let Some(e) = s.embryo() {
                    let eq = e.rcvq_lock_embryo(&q);
                    let mut es = eq.peek(None);
                    while let Some(x) = es {
                        if let Some(fds) = x.fds() {
                            f(fds);
                        }
                        es = eq.peek(Some(x));
                    }
                }
            } else if let Some(fds) = s.fds() {
                f(fds);
            }
            skb = q.peek(Some(s));
        }
    }

    /// Moves every skb queued on this socket, or for a listener on its embryos, to
    /// `hit` (the collector's hit list, AF_UNIX's `unix_collect_skb()`). A queue whose
    /// reader lock is held is left alone (false): a reader in a system call holds the
    /// socket's file, so it is not garbage, and its handles of queued skbs must stay
    /// valid.
    pub(crate) fn splice_queues(&self, _gc: &InflightList, hit: &SkbList) -> bool {
        let listener = self.state() == SkState::Listen;
        let Some(_io) = self.try_io_lock() else {
            return false;
        };
        let q = self.rcvq_lock();
        if !listener {
            self.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
            // SAFETY: The queue's lock is held; `hit` is the collector's private list.
            unsafe { bindings::afunix_skb_queue_splice_tail_init(self.rcvq_ptr(), hit.as_ptr()) };
            return true;
        }
        let mut all = true;
        let mut skb = q.peek(None);
        while let Some(s) = skb {
            if let Some(e) = s.embryo() {
                // An embryo is read only once accepted; its reader lock is free unless
                // a reader raced the analysis.
                if let Some(_eio) = e.try_io_lock() {
                    let _eq = e.rcvq_lock_embryo(&q);
                    e.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
                    // SAFETY: The embryo's queue lock is held; `hit` is private.
                    unsafe {
                        bindings::afunix_skb_queue_splice_tail_init(e.rcvq_ptr(), hit.as_ptr())
                    };
                } else {
                    all = false;
                }
            }
            skb = q.peek(Some(s));
        }
        all
    }
}

/// A private list of skbs (the collector's hit list), freed on drop.
///
/// # Invariants
///
/// `self.0` is an initialised `sk_buff_head` that owns its skbs; no one else uses it.
pub(crate) struct SkbList(Pin<KBox<Opaque<bindings::sk_buff_head>>>);

impl SkbList {
    /// An empty list.
    pub(crate) fn new() -> Result<SkbList> {
        let head = KBox::pin_init(
            Opaque::ffi_init(|p| {
                // SAFETY: `p` is the head's storage, initialised here.
                unsafe { bindings::afunix_skb_queue_head_init(p) }
            }),
            GFP_KERNEL,
        )?;
        // INVARIANT: Initialised and empty.
        Ok(SkbList(head))
    }

    fn as_ptr(&self) -> *mut bindings::sk_buff_head {
        self.0.get()
    }
}

impl Drop for SkbList {
    fn drop(&mut self) {
        loop {
            // SAFETY: A private list (type invariant): no lock is needed.
            let skb = unsafe { bindings::afunix_skb_dequeue_unlocked(self.as_ptr()) };
            let Some(skb) = NonNull::new(skb) else {
                return;
            };
            // SAFETY: Dequeued from a list that owned it.
            drop(unsafe { Skb::from_raw(skb) });
        }
    }
}

/// A static slot through which the module's sockets, skbs and work items reach a value
/// of the module (the collector) without holding a reference to it.
///
/// # Invariants
///
/// `self.0` is NULL or the `Arc::into_raw` of the [`Published`] that set it, which owns
/// that reference until its drop clears the slot.
pub(crate) struct ArcSlot<T>(AtomicPtr<T>);

impl<T: Send + Sync> ArcSlot<T> {
    /// An empty slot.
    pub(crate) const fn new() -> Self {
        // INVARIANT: NULL.
        ArcSlot(AtomicPtr::new(ptr::null_mut()))
    }

    /// Publishes `arc` in the slot until the returned value drops; `EBUSY` if the slot
    /// is taken.
    pub(crate) fn publish(&'static self, arc: Arc<T>) -> Result<Published<T>> {
        let p = Arc::into_raw(arc);
        if self
            .0
            .compare_exchange(
                ptr::null_mut(),
                p.cast_mut(),
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_err()
        {
            // SAFETY: From `Arc::into_raw` just above, not published.
            drop(unsafe { Arc::from_raw(p) });
            return Err(EBUSY);
        }
        // INVARIANT: The slot holds `p`, whose reference the `Published` owns.
        Ok(Published { slot: self, ptr: p })
    }

    /// The published value, if any: borrowed without a reference, which is sound for
    /// the module's own objects only (see [`Published`]).
    #[inline]
    pub(crate) fn get(&self) -> Option<ArcBorrow<'static, T>> {
        let p = self.0.load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: A published pointer is an `Arc::into_raw` whose reference its
        // `Published` holds until it drops, which is after every socket, skb and work
        // item of the module (the callers) is gone (`Published`'s invariant).
        Some(unsafe { ArcBorrow::from_raw(p) })
    }
}

/// The module's reference to a value published in an [`ArcSlot`]; its drop clears the
/// slot and drops the reference.
///
/// # Invariants
///
/// `ptr` is the `Arc::into_raw` that `slot` holds. The value is held by the module's
/// object and dropped at unload, after the module's workqueue is destroyed and every
/// socket and skb of this family is gone: no borrow from [`ArcSlot::get`] is left. (The
/// order of the module's fields keeps this; the type does not check it.)
pub(crate) struct Published<T: Send + Sync + 'static> {
    slot: &'static ArcSlot<T>,
    ptr: *const T,
}

// SAFETY: An `Arc<T>` in raw form, and `T` is `Send + Sync`.
unsafe impl<T: Send + Sync + 'static> Send for Published<T> {}
// SAFETY: As above; `Published` has no `&self` methods.
unsafe impl<T: Send + Sync + 'static> Sync for Published<T> {}

impl<T: Send + Sync + 'static> Drop for Published<T> {
    fn drop(&mut self) {
        self.slot.0.store(ptr::null_mut(), Ordering::Release);
        // SAFETY: From `Arc::into_raw` in `publish`; no borrow of it is left (type
        // invariant).
        drop(unsafe { Arc::from_raw(self.ptr) });
    }
}

impl QueuedSkb<'_> {
    /// Takes the fd list out of a stream skb that stays queued, with its sender. The
    /// collector reads `fp` of queued skbs under its lock: `_gc` is that lock's proof;
    /// the handle (`&mut`, under the reader lock) is the only other way to it.
    pub(crate) fn take_fds(&mut self, _gc: &mut InflightList) -> Option<(FdList, Kuid)> {
        let sk = self.sock();
        let cb = self.cb();
        // SAFETY: The skb is queued on `sk`, whose reader lock the handle holds (only
        // its holder takes `fp` there), and the collector's lock is held (it reads `fp`
        // under it). A non-NULL `fp` is a list of `FdList::into_raw` the skb owned.
        let (fp, uid) = unsafe {
            let fp = NonNull::new(core::mem::replace(&mut (*cb).fp, ptr::null_mut()))?;
            (FdList::from_raw(fp), Kuid((*cb).fp_uid.val))
        };
        sk.nr_fds().fetch_sub(fp.len() as u32, Ordering::Relaxed);
        Some((fp, uid))
    }
}

/// The collector's view of an fd list: its sockets of this family.
impl Fds {
    /// The sockets of this family among the files (one entry per file: a socket passed
    /// twice comes twice).
    pub(crate) fn socks(&self) -> impl Iterator<Item = &Sock> {
        (0..self.len()).filter_map(move |i| {
            // SAFETY: The list holds a reference to each of its files, so each file,
            // its socket and the socket's `struct sock` live while `self` is borrowed.
            unsafe { sock_of_file(self.file(i)) }
        })
    }
}

/// The socket of this family behind `file` ([`family_sk_of_file`]).
///
/// # Safety
///
/// `file` is a file held for `'a` (its socket and `struct sock` live as long as it).
unsafe fn sock_of_file<'a>(file: *mut bindings::file) -> Option<&'a Sock> {
    // SAFETY: `file` is held for `'a` (safety requirements), and so its `struct sock`.
    unsafe { NonNull::new(family_sk_of_file(file)).map(|sk| Sock::from_raw(sk.as_ptr())) }
}
