// SPDX-License-Identifier: GPL-2.0

//! The receive queue: its lock and walks, the out-of-band mark, the reader lock
//! (`IoGuard`) and the queued skbs it lends (`QueuedSkb`, `QueueCursor`), received
//! datagrams (`Datagram`).

use super::*;

impl Sock {
    /// `SIOCINQ` of a socket that is not listening: unread bytes (stream, seqpacket)
    /// or the next datagram's length (`unix_inq_len()`).
    pub(crate) fn inq_len(&self) -> i64 {
        let q = self.rcvq_lock();
        let Some(mut skb) = q.peek(None) else {
            return 0;
        };
        if !self.is_connection_oriented() {
            return skb.len().into();
        }
        let mut amount = 0i64;
        loop {
            amount += i64::from(skb.len().wrapping_sub(skb.consumed()));
            match q.peek(Some(skb)) {
                Some(next) => skb = next,
                None => return amount,
            }
        }
    }

    /// The receive queue's lock.
    pub(super) fn queue_spinlock(&self) -> *mut bindings::spinlock_t {
        // SAFETY: A field of a live socket.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue.lock) }
    }

    /// Appends `skb` to the receive queue (counting its fds in `scm_fds:`), under its
    /// state lock ([`StateGuard::queue_tail`]) and the queue's lock, taken without
    /// disabling interrupts: no hard interrupt takes it (as AF_UNIX's
    /// `unix_stream_connect`, which takes it so too). Inlined: a call less per queued
    /// skb.
    #[inline(always)]
    pub(in crate::api) fn queue_tail_locked(&self, skb: Skb) {
        let fds = skb.view().fds().map_or(0, |f| f.len() as u32);
        if fds != 0 {
            self.nr_fds().fetch_add(fds, Ordering::Relaxed);
        }
        let q = self.rcvq_lock();
        // SAFETY: The queue's lock is held; the queue takes over the skb.
        unsafe { bindings::afunix_skb_queue_tail_locked(self.rcvq_ptr(), skb.into_raw()) };
        drop(q);
    }

    /// Takes the lock of the receive queue.
    pub(in crate::api) fn rcvq_lock(&self) -> RcvqGuard<'_> {
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data` (its class set by `init_unix`); callers keep the lock order
        // ([`crate::api`], "Lock order").
        let _lock = unsafe { SpinGuard::lock(self.queue_spinlock()) };
        RcvqGuard { sk: self, _lock }
    }

    /// Calls `f` with the number of connections queued on this listener and the socket
    /// inode numbers of their connecting sockets, in queue order (`UNIX_DIAG_ICONS`),
    /// under the queue's lock: `f` must not sleep.
    pub(crate) fn with_embryo_peers<R>(
        &self,
        f: impl FnOnce(u32, &mut dyn Iterator<Item = u32>) -> R,
    ) -> R {
        let q = self.rcvq_lock();
        let n = self.rcvq_len();
        let mut started = false;
        let mut cur: Option<&SkbView> = None;
        let mut peers = core::iter::from_fn(|| {
            let next = match (started, cur) {
                (false, _) => q.peek(None),
                (true, Some(prev)) => q.peek(Some(prev)),
                (true, None) => None,
            };
            started = true;
            cur = next;
            let skb = next?;
            Some(
                skb.embryo()
                    .and_then(Sock::queued_embryo_peer)
                    .map_or(0, |p| p.i_ino() as u32),
            )
        });
        f(n, &mut peers)
    }

    /// The connecting socket of an embryo queued on its listener: set before the
    /// embryo was queued and kept, with its reference, until the embryo is accepted or
    /// released, neither of which happens while the caller holds the listener's queue
    /// lock (AF_UNIX reads `unix_peer(skb->sk)` so too).
    pub(super) fn queued_embryo_peer(&self) -> Option<&Sock> {
        // SAFETY: `peer` of a queued embryo is stable and holds a reference (above),
        // for as long as the borrow of `self` (the carrier skb, queued) lasts.
        unsafe {
            let p = ptr::addr_of!((*self.unix()).unix.peer).read_volatile();
            NonNull::new(p).map(|p| Sock::from_raw(p.as_ptr()))
        }
    }

    /// `unix_recvq_full_lockless()`: more queued than the backlog allows.
    pub(crate) fn rcvq_full(&self) -> bool {
        self.rcvq_len() > self.max_ack_backlog()
    }

    /// Whether the receive queue is empty (lockless).
    pub(crate) fn rcvq_empty(&self) -> bool {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_rcvq_empty(self.as_ptr()) }
    }

    /// The number of skbs in the receive queue (lockless).
    pub(crate) fn rcvq_len(&self) -> u32 {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_rcvq_len(self.as_ptr()) }
    }

    /// Whether the error queue is empty (lockless).
    pub(crate) fn errq_empty(&self) -> bool {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_errq_empty(self.as_ptr()) }
    }

    pub(in crate::api) fn oob_slot(&self) -> &AtomicPtr<bindings::sk_buff> {
        // SAFETY: A field of a live socket, only accessed atomically.
        unsafe { AtomicPtr::from_ptr(ptr::addr_of_mut!((*self.unix()).unix.oob_skb)) }
    }

    /// The receive queue (`sk_receive_queue`).
    pub(super) fn receive_queue(&self) -> *mut bindings::sk_buff_head {
        // SAFETY: A field of a live socket.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue) }
    }

    /// Forgets the out-of-band mark if it is `p`, an skb just unlinked.
    fn forget_mark(&self, p: *mut bindings::sk_buff) {
        let _ = self.oob_slot().compare_exchange(
            p,
            ptr::null_mut(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Whether `skb` is the out-of-band mark (`READ_ONCE(u->oob_skb)`: lockless, only
    /// compared).
    pub(crate) fn is_oob_mark(&self, skb: &SkbView) -> bool {
        ptr::eq(self.oob_slot().load(Ordering::Relaxed), skb.as_ptr())
    }

    /// Whether out-of-band data is pending (`EPOLLPRI`).
    pub(crate) fn has_oob(&self) -> bool {
        !self.oob_slot().load(Ordering::Relaxed).is_null()
    }

    /// `SIOCATMARK` of a stream socket: the next byte a read returns is the out-of-band
    /// one (or an emptied skb stands before it, or no mark is left after it).
    pub(crate) fn at_mark(&self) -> bool {
        let _io = self.io_lock();
        let q = self.rcvq_lock();
        let Some(skb) = q.peek(None) else {
            return false;
        };
        let oob = self.oob_slot().load(Ordering::Relaxed);
        let next = q.peek(Some(skb)).map_or(ptr::null_mut(), SkbView::as_ptr);
        skb.as_ptr() == oob || (skb.unread() == 0 && (oob.is_null() || next == oob))
    }

    /// Whether the queue holds unread data for a close to report (`ECONNRESET` to the
    /// peer): an emptied skb at the head (a consumed out-of-band byte) does not count.
    pub(crate) fn has_unread(&self) -> bool {
        let q = self.rcvq_lock();
        match q.peek(None) {
            Some(s) if s.unread() == 0 => q.peek(Some(s)).is_some(),
            Some(_) => true,
            None => false,
        }
    }

    /// `scm_fds:` of fdinfo: fds queued and not received yet.
    pub(in crate::api) fn nr_fds(&self) -> &core::sync::atomic::AtomicU32 {
        // SAFETY: A field of a live socket, only accessed atomically.
        unsafe {
            core::sync::atomic::AtomicU32::from_ptr(
                ptr::addr_of_mut!((*self.unix()).unix.scm_stat.nr_fds).cast(),
            )
        }
    }

    /// The fds queued on this socket and not received yet (`scm_fds:` of fdinfo); for
    /// a listener, those queued on its embryos (`unix_count_nr_fds()`).
    pub(crate) fn queued_fds(&self) -> u32 {
        if self.state() != SkState::Listen {
            return self.nr_fds().load(Ordering::Relaxed);
        }
        let q = self.rcvq_lock();
        let mut n = 0u32;
        let mut skb = q.peek(None);
        while let Some(s) = skb {
            if let Some(e) = s.embryo() {
                n = n.wrapping_add(e.nr_fds().load(Ordering::Relaxed));
            }
            skb = q.peek(Some(s));
        }
        n
    }

    /// [`IoGuard::purge_rcvq`] for `sk_destruct`, which runs after the last reference
    /// went (a grace period after, in an RCU callback, for a socket that was linked where
    /// RCU walkers go): without the queue's lock, as no one else can reach the queue.
    ///
    /// # Safety
    ///
    /// Only from `sk_destruct`: no one else can reach the queue.
    pub(super) unsafe fn purge_rcvq_destruct(&self, on_embryo: impl FnMut(ARef<Sock>)) {
        self.purge_with(bindings::afunix_skb_dequeue_unlocked, on_embryo);
    }

    pub(super) fn purge_with(
        &self,
        dequeue: unsafe extern "C" fn(*mut bindings::sk_buff_head) -> *mut bindings::sk_buff,
        mut on_embryo: impl FnMut(ARef<Sock>),
    ) {
        loop {
            // SAFETY: `self` is a live socket; `skb_dequeue` takes the queue lock, the
            // unlocked one is only used when no one else can reach the queue.
            let skb = unsafe { dequeue(ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue)) };
            let Some(skb) = NonNull::new(skb) else {
                return;
            };
            // SAFETY: The skb was dequeued, so this is its only owner.
            free_purged(unsafe { Skb::from_raw(skb) }, &mut on_embryo);
        }
    }

    /// Takes the reader lock (AF_UNIX's `u->iolock`). May sleep.
    pub(crate) fn io_lock(&self) -> IoGuard<'_> {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { bindings::afunix_mutex_lock(self.iolock_ptr()) };
        // INVARIANT: The lock was just taken.
        IoGuard {
            sk: self,
            _not_send: PhantomData,
        }
    }

    /// Takes the reader lock if it is free, without sleeping (also under a spinlock).
    pub(crate) fn try_io_lock(&self) -> Option<IoGuard<'_>> {
        // SAFETY: `self` is a live socket of this family (type invariant).
        let locked = unsafe { bindings::afunix_mutex_trylock(self.iolock_ptr()) } != 0;
        // Not `then_some`: its argument is built either way, and a guard built for a
        // lock not taken would unlock the holder's on drop.
        if !locked {
            return None;
        }
        // INVARIANT: Just taken.
        Some(IoGuard {
            sk: self,
            _not_send: PhantomData,
        })
    }

    /// The tail of the receive queue and its length, to notice new data while waiting
    /// (only compared, never followed).
    pub(crate) fn rcvq_tail_mark(&self) -> (usize, u32) {
        let _q = self.rcvq_lock();
        // SAFETY: `self` is a live socket; the queue lock is held, so the tail stays
        // queued (and valid) while its length is read.
        unsafe {
            let tail = bindings::afunix_rcvq_peek_tail(self.as_ptr());
            let len = tail.as_ref().map_or(0, |t| t.len);
            (tail as usize, len)
        }
    }
}

/// The lock of a socket's receive queue, held: queued skbs stay queued.
pub(in crate::api) struct RcvqGuard<'a> {
    sk: &'a Sock,
    _lock: SpinGuard,
}

impl RcvqGuard<'_> {
    /// The first skb of the queue, or the one after `after`.
    pub(in crate::api) fn peek(&self, after: Option<&SkbView>) -> Option<&SkbView> {
        // SAFETY: The queue lock is held, so the skbs are queued and valid while this
        // guard lives; `skb_peek`/`skb_peek_next` only read the list links.
        unsafe {
            let skb = match after {
                None => bindings::afunix_rcvq_peek(self.sk.as_ptr()),
                Some(prev) => bindings::afunix_rcvq_peek_next(self.sk.as_ptr(), prev.as_ptr()),
            };
            NonNull::new(skb).map(|p| SkbView::from_raw(p.as_ptr()))
        }
    }
}

/// The reader lock of a socket, held: its holder is the only one to unlink skbs from a
/// stream socket's receive queue.
///
/// The queued skbs it lends ([`QueuedSkb`], [`QueueCursor`]) borrow it mutably: one at
/// a time, none across [`IoGuard::unlocked`], and none left when the guard goes.
///
/// # Invariants
///
/// The `iolock` of `sk` is held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct IoGuard<'a> {
    sk: &'a Sock,
    /// Unlocked by the task that locked it: not `Send`.
    _not_send: PhantomData<*mut ()>,
}

impl IoGuard<'_> {
    /// Checks that `state` is the state lock of this guard's socket: a guard proves a
    /// lock only for the socket it names (`EINVAL` for another, a bug).
    pub(super) fn check_state(sk: &Sock, state: &StateGuard<'_>) -> Result {
        let same = ptr::eq(state.sock(), sk);
        debug_assert!(same, "a state guard of another socket");
        if same {
            Ok(())
        } else {
            Err(kernel::error::code::EINVAL)
        }
    }

    /// The first skb of the receive queue; `state` is this socket's state lock (as
    /// `unix_stream_read_generic()`).
    ///
    /// The skb stays queued, and so valid, while the handle lives: only the holder of
    /// the reader lock unlinks skbs of a stream socket (the handle borrows it
    /// mutably), the collector does not touch a queue whose reader lock is held
    /// ([`Sock::splice_queues`]) and a purge takes the reader lock
    /// ([`IoGuard::purge_rcvq`]). Senders write an skb (data, `cb`) and queue it under
    /// the receiver's state lock: taking that lock to find the skb makes those writes
    /// visible to the reader. Bytes a coalesced write appends later are published by
    /// its length ([`SkbView::len`]).
    pub(crate) fn peek(&mut self, state: &StateGuard<'_>) -> Result<Option<QueuedSkb<'_>>> {
        Self::check_state(self.sk, state)?;
        // SAFETY: The queue of a live socket; `skb_peek` only reads the list links.
        let p = unsafe { bindings::afunix_rcvq_peek(self.sk.as_ptr()) };
        // INVARIANT: `p` is queued on `sk`, whose reader lock `self` holds (see above).
        Ok(NonNull::new(p).map(|skb| QueuedSkb {
            sk: self.sk,
            skb,
            _io: PhantomData,
        }))
    }

    /// Takes the lock of the receive queue, for the out-of-band bookkeeping of a stream
    /// read (under the state lock, as AF_UNIX's `manage_oob()`): a cursor at the head.
    pub(crate) fn lock_queue(&mut self, state: &StateGuard<'_>) -> Result<QueueCursor<'_>> {
        Self::check_state(self.sk, state)?;
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data`; under the state lock, in the lock order ([`crate::api`]).
        let _lock = unsafe { SpinGuard::lock(self.sk.queue_spinlock()) };
        // SAFETY: The queue lock is held; `skb_peek` only reads the list links.
        let cur = unsafe { bindings::afunix_rcvq_peek(self.sk.as_ptr()) };
        Ok(QueueCursor {
            sk: self.sk,
            cur,
            _lock,
            _io: PhantomData,
        })
    }

    /// `__skb_try_recv_datagram()`: the datagram at peek offset `*skip` (updated to the
    /// offset within it), without waiting. On failure, the error (`EAGAIN` when there
    /// is nothing) and the last skb seen, for [`Skb::wait_for_more`].
    pub(crate) fn try_recv_datagram(
        &mut self,
        flags: MsgFlags,
        skip: &mut i32,
    ) -> core::result::Result<Datagram<'_>, (Error, QueueMark)> {
        let sk = self.sk.as_ptr();
        let mut err: c_int = 0;
        let mut last = ptr::null_mut();
        // SAFETY: `sk` is live; the reader lock is held (as AF_UNIX); the out pointers
        // are valid.
        let skb = unsafe {
            bindings::__skb_try_recv_datagram(
                sk,
                bindings::afunix_rcvq(sk),
                flags.raw(),
                skip,
                &mut err,
                &mut last,
            )
        };
        match NonNull::new(skb) {
            Some(skb) if !flags.has(MsgFlags::PEEK) => {
                // Unlinked: it is no mark any more (the mark is followed only under the
                // reader lock, held).
                self.sk.forget_mark(skb.as_ptr());
                // SAFETY: Without `MSG_PEEK` the skb was unlinked and is ours.
                Ok(Datagram::Taken(unsafe { Skb::from_raw(skb) }))
            }
            // INVARIANT: A reference of ours to an skb that stays queued.
            Some(skb) => Ok(Datagram::Peeked(PeekedSkb {
                skb,
                _io: PhantomData,
            })),
            None => Err((
                Error::from_errno(if err < 0 { err } else { -11 }),
                QueueMark(last),
            )),
        }
    }

    /// Frees every skb of the receive queue, handing the embryos of a listener's queue
    /// to `on_embryo` after the reader lock is dropped (an embryo's release takes its
    /// own). The reader lock excludes every handle of a queued skb.
    pub(crate) fn purge_rcvq(self, on_embryo: impl FnMut(ARef<Sock>)) {
        let sk = self.sk;
        PrivateSkbs::with(|list| {
            {
                let _q = sk.rcvq_lock();
                // No out-of-band mark may outlive its skb: cleared with the splice.
                sk.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
                // SAFETY: The queue's lock is held; `list` is private to this call.
                unsafe {
                    bindings::afunix_skb_queue_splice_tail_init(sk.rcvq_ptr(), list.as_ptr())
                };
            }
            drop(self);
            list.free(on_embryo);
        });
    }

    /// Releases the reader lock for the duration of `f` (to sleep), then retakes it.
    pub(crate) fn unlocked<R>(&mut self, f: impl FnOnce() -> R) -> R {
        // SAFETY: The lock is held (type invariant) and retaken before returning.
        unsafe { bindings::mutex_unlock(self.sk.iolock_ptr()) };
        let r = f();
        // SAFETY: `self.sk` is still alive: the guard borrows it.
        unsafe { bindings::afunix_mutex_lock(self.sk.iolock_ptr()) };
        r
    }
}

impl Drop for IoGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: The lock is held (type invariant).
        unsafe { bindings::mutex_unlock(self.sk.iolock_ptr()) };
    }
}

/// Frees an skb purged from a receive queue as dropped on close, handing the embryo
/// of a listener's carrier to `on_embryo`.
fn free_purged(skb: Skb, on_embryo: &mut impl FnMut(ARef<Sock>)) {
    let embryo = skb.take_embryo();
    skb.drop_on_close();
    if let Some(e) = embryo {
        on_embryo(e);
    }
}

/// A list of skbs on the stack, private to one call (a purge): its skbs are freed by
/// [`PrivateSkbs::free`] or on drop.
///
/// # Invariants
///
/// The head is initialised and does not move (it lives in [`PrivateSkbs::with`]'s
/// frame); its skbs are owned by it.
pub(super) struct PrivateSkbs(Opaque<bindings::sk_buff_head>);

impl PrivateSkbs {
    /// Calls `f` with a new empty list, which is freed after it.
    pub(super) fn with<R>(f: impl FnOnce(&PrivateSkbs) -> R) -> R {
        let list = PrivateSkbs(Opaque::uninit());
        // SAFETY: The head's storage, initialised in place: its links point to itself,
        // and `list` stays in this frame until it drops at the end of it.
        unsafe { bindings::afunix_skb_queue_head_init(list.as_ptr()) };
        f(&list)
    }

    pub(super) fn as_ptr(&self) -> *mut bindings::sk_buff_head {
        self.0.get()
    }

    pub(super) fn free(&self, mut on_embryo: impl FnMut(ARef<Sock>)) {
        loop {
            // SAFETY: A private list (type invariant): no lock is needed.
            let skb = unsafe { bindings::afunix_skb_dequeue_unlocked(self.as_ptr()) };
            let Some(skb) = NonNull::new(skb) else {
                return;
            };
            // SAFETY: Dequeued from a list that owned it.
            free_purged(unsafe { Skb::from_raw(skb) }, &mut on_embryo);
        }
    }
}

impl Drop for PrivateSkbs {
    fn drop(&mut self) {
        self.free(drop);
    }
}

/// An skb on the receive queue of a socket whose reader lock an [`IoGuard`] holds,
/// borrowed from that guard mutably: the only handle of a queued skb while it lives.
/// Unlinking it ([`QueuedSkb::unlink_consume`]) consumes it; moving on
/// ([`QueuedSkb::next`]) gives it up.
///
/// # Invariants
///
/// `skb` is queued on `sk`'s receive queue, and the reader lock of `sk` is held (by the
/// guard borrowed for `'g`) while this value exists.
pub(crate) struct QueuedSkb<'g> {
    sk: &'g Sock,
    skb: NonNull<bindings::sk_buff>,
    _io: PhantomData<&'g mut ()>,
}

impl core::ops::Deref for QueuedSkb<'_> {
    type Target = SkbView;

    fn deref(&self) -> &SkbView {
        // SAFETY: Queued, so valid, while `self` lives (type invariant).
        unsafe { SkbView::from_raw(self.skb.as_ptr()) }
    }
}

impl<'g> QueuedSkb<'g> {
    /// The socket on whose queue the skb is.
    pub(crate) fn sock(&self) -> &'g Sock {
        self.sk
    }

    /// The skb after this one, under the socket's state lock `state` (see
    /// [`IoGuard::peek`]); this handle is given up.
    pub(crate) fn next(self, state: &StateGuard<'_>) -> Result<Option<QueuedSkb<'g>>> {
        IoGuard::check_state(self.sk, state)?;
        // SAFETY: `self.skb` is queued on `sk` (type invariant); `skb_peek_next` only
        // reads the list links, which change only under the queue lock and the state
        // lock (held) or by this reader.
        let p = unsafe { bindings::afunix_rcvq_peek_next(self.sk.as_ptr(), self.skb.as_ptr()) };
        // INVARIANT: As in `IoGuard::peek`; the reader lock moves to the new handle.
        Ok(NonNull::new(p).map(|skb| QueuedSkb {
            sk: self.sk,
            skb,
            _io: PhantomData,
        }))
    }

    /// Marks `n` more bytes of this stream skb as read.
    pub(crate) fn consume(&mut self, n: u32) {
        self.consumed_slot().fetch_add(n, Ordering::Relaxed);
    }

    /// Closes the skb to coalesced writes ([`StateGuard::append_to_tail`]), which check
    /// under the state lock `state` (this socket's) whether it is `open`.
    pub(crate) fn close_to_appends(&mut self, state: &StateGuard<'_>) -> Result {
        IoGuard::check_state(self.sk, state)?;
        // SAFETY: The skb is queued on `sk` (type invariant), valid while it is; its `cb`
        // is the module's. `open` is written after queueing only here, under the state
        // lock, which appends hold to read it; its other reader, `copy_to_msg`, runs
        // under the reader lock that this handle holds.
        unsafe { (*self.cb()).open = false };
        Ok(())
    }

    /// Takes the queue lock with a cursor at this skb (see [`IoGuard::lock_queue`]).
    pub(crate) fn lock_queue(self, state: &StateGuard<'_>) -> Result<QueueCursor<'g>> {
        IoGuard::check_state(self.sk, state)?;
        // SAFETY: As in `IoGuard::lock_queue`.
        let _lock = unsafe { SpinGuard::lock(self.sk.queue_spinlock()) };
        Ok(QueueCursor {
            sk: self.sk,
            cur: self.skb.as_ptr(),
            _lock,
            _io: PhantomData,
        })
    }

    /// Unlinks the skb, all of it read, from the receive queue and frees it; unless a
    /// coalesced write added bytes to it since the reader saw it read out
    /// ([`StateGuard::append_to_tail`]): it then stays queued, for the next read.
    // Inlined into the stream read's loop: once per skb read.
    #[inline(always)]
    pub(crate) fn unlink_consume(self) {
        let p = self.skb.as_ptr();
        // Appends to it take the queue's lock, held from the check to the unlink.
        let q = self.sk.rcvq_lock();
        if self.unread() != 0 {
            return;
        }
        // SAFETY: `p` is queued on this socket's receive queue (type invariant), whose
        // lock is held, and no one else unlinks it.
        unsafe { bindings::afunix_skb_unlink_locked(p, self.sk.receive_queue()) };
        self.sk.forget_mark(p);
        drop(q);
        // SAFETY: Unlinked above: ours alone.
        unsafe { bindings::consume_skb(p) };
    }
}

/// The receive queue of a stream socket, its lock held by a reader that holds the
/// reader lock ([`IoGuard::lock_queue`]), and a position in it (an skb, or the end).
/// The skbs it shows are borrowed from it; unlinking one takes `&mut self`.
///
/// # Invariants
///
/// The queue lock of `sk` is held, and its reader lock (by the guard borrowed mutably
/// for `'g`); `cur` is NULL or an skb queued on `sk`.
pub(crate) struct QueueCursor<'g> {
    sk: &'g Sock,
    cur: *mut bindings::sk_buff,
    _lock: SpinGuard,
    _io: PhantomData<&'g mut ()>,
}

impl<'g> QueueCursor<'g> {
    /// The skb at the cursor, `None` at the end.
    pub(crate) fn current(&self) -> Option<&SkbView> {
        // SAFETY: Queued, so valid, while the queue lock is held (type invariant).
        NonNull::new(self.cur).map(|p| unsafe { SkbView::from_raw(p.as_ptr()) })
    }

    pub(super) fn next_of(&self, p: *mut bindings::sk_buff) -> *mut bindings::sk_buff {
        // SAFETY: The queue lock is held and `p` is queued on it (callers).
        unsafe { bindings::afunix_rcvq_peek_next(self.sk.as_ptr(), p) }
    }

    /// Moves to the next skb (stays at the end).
    pub(crate) fn move_next(&mut self) {
        if !self.cur.is_null() {
            self.cur = self.next_of(self.cur);
        }
    }

    /// Moves to the first skb.
    pub(crate) fn move_first(&mut self) {
        // SAFETY: The queue lock is held.
        self.cur = unsafe { bindings::afunix_rcvq_peek(self.sk.as_ptr()) };
    }

    /// Moves to the out-of-band mark; false (at the end) without one.
    pub(crate) fn move_to_mark(&mut self) -> bool {
        // The mark is set and cleared under the queue lock (held); it is queued.
        self.cur = self.sk.oob_slot().load(Ordering::Relaxed);
        !self.cur.is_null()
    }

    /// Whether the skb at the cursor is the out-of-band mark.
    pub(crate) fn is_mark(&self) -> bool {
        !self.cur.is_null() && ptr::eq(self.sk.oob_slot().load(Ordering::Relaxed), self.cur)
    }

    /// Clears the out-of-band mark.
    pub(crate) fn clear_mark(&mut self) {
        self.sk.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
    }

    /// Unlinks the skb at the cursor, which moves to the next; the caller owns the
    /// skb from now on (`None` at the end).
    pub(crate) fn remove_current(&mut self) -> Option<Skb> {
        let p = NonNull::new(self.cur)?;
        self.cur = self.next_of(p.as_ptr());
        // SAFETY: The queue lock is held and `p` is queued on it; once unlinked, this is
        // the skb's only owner (no handle of it is left: they borrow `self`).
        unsafe { bindings::afunix_skb_unlink_locked(p.as_ptr(), self.sk.receive_queue()) };
        self.sk.forget_mark(p.as_ptr());
        // SAFETY: Unlinked above: ours.
        Some(unsafe { Skb::from_raw(p) })
    }

    /// Unlinks the skb before the cursor if `pred` accepts it; the caller owns it.
    pub(crate) fn remove_prev_if(&mut self, pred: impl FnOnce(&SkbView) -> bool) -> Option<Skb> {
        let cur = NonNull::new(self.cur)?;
        // SAFETY: The queue lock is held and `cur` is queued: its `prev` is a queued skb
        // or the queue's head.
        let prev = unsafe { (*cur.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.prev };
        if prev == self.sk.receive_queue().cast() {
            return None;
        }
        let prev = NonNull::new(prev)?;
        // SAFETY: Queued, so valid, under the queue lock.
        if !pred(unsafe { SkbView::from_raw(prev.as_ptr()) }) {
            return None;
        }
        // SAFETY: As in `remove_current`.
        unsafe { bindings::afunix_skb_unlink_locked(prev.as_ptr(), self.sk.receive_queue()) };
        self.sk.forget_mark(prev.as_ptr());
        // SAFETY: Unlinked above: ours.
        Some(unsafe { Skb::from_raw(prev) })
    }

    /// Drops the queue lock; a handle of the skb at the cursor, if any (it stays
    /// queued: the reader lock is still held).
    pub(crate) fn unlock(self) -> Option<QueuedSkb<'g>> {
        // INVARIANT: `cur` is queued on `sk`, whose reader lock stays held for `'g`.
        NonNull::new(self.cur).map(|skb| QueuedSkb {
            sk: self.sk,
            skb,
            _io: PhantomData,
        })
    }
}

/// A datagram received under the reader lock ([`IoGuard::try_recv_datagram`]).
pub(crate) enum Datagram<'g> {
    /// Unlinked: the caller owns it.
    Taken(Skb),
    /// Peeked (`MSG_PEEK`): still queued, held by a reference of the caller's; only
    /// read, while the reader lock is held.
    Peeked(PeekedSkb<'g>),
}

impl Datagram<'_> {
    /// A shared view of the datagram.
    pub(crate) fn view(&self) -> &SkbView {
        match self {
            Datagram::Taken(skb) => skb.view(),
            // SAFETY: A reference of ours keeps the skb valid (type invariant).
            Datagram::Peeked(p) => unsafe { SkbView::from_raw(p.skb.as_ptr()) },
        }
    }

    /// Frees the datagram after a receive on `sk` (`skb_free_datagram()`).
    pub(crate) fn free(self, sk: &Sock) {
        match self {
            Datagram::Taken(skb) => skb.free_datagram(sk),
            Datagram::Peeked(p) => {
                let p = ManuallyDrop::new(p);
                // SAFETY: Our reference to the skb (type invariant), given up.
                unsafe { bindings::skb_free_datagram(sk.as_ptr(), p.skb.as_ptr()) };
            }
        }
    }
}

/// A datagram still queued, held by a reference of its own, under the reader lock: a
/// receive with `MSG_PEEK`. No write to it: another reader or the collector may see it.
///
/// # Invariants
///
/// `skb` is a reference of ours to a valid skb.
pub(crate) struct PeekedSkb<'g> {
    skb: NonNull<bindings::sk_buff>,
    _io: PhantomData<&'g mut ()>,
}

impl Drop for PeekedSkb<'_> {
    fn drop(&mut self) {
        // SAFETY: Our reference (type invariant).
        unsafe { bindings::consume_skb(self.skb.as_ptr()) };
    }
}

/// The receive queue's head, and an embryo's queue lock (the collector's walk of a
/// listener's embryos, [`crate::api::inflight`], takes it).
impl Sock {
    pub(in crate::api) fn rcvq_ptr(&self) -> *mut bindings::sk_buff_head {
        // SAFETY: A field of a live socket.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue) }
    }

    /// Takes the lock of an embryo's receive queue under its listener's, `listener`: in
    /// the order of [`crate::api`], "Lock order", which lockdep checks (no subclass:
    /// `afunix_rcvq_lock_cmp_fn` knows the embryo by its `listener`).
    pub(in crate::api) fn rcvq_lock_embryo<'a>(
        &'a self,
        listener: &RcvqGuard<'_>,
    ) -> RcvqGuard<'a> {
        // SAFETY: A field of a live socket.
        let lock = unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue.lock) };
        // SAFETY: Both are live sockets; `listener` holds the listener's queue lock.
        unsafe { bindings::afunix_assert_rcvq_lock_order(listener.sk.as_ptr(), self.as_ptr()) };
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data`.
        let _lock = unsafe { SpinGuard::lock(lock) };
        RcvqGuard { sk: self, _lock }
    }
}
