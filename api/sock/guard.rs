// SPDX-License-Identifier: GPL-2.0

//! The state lock (`StateGuard`), the bind lock (`BindGuard`), and an embryo being set
//! up under its listener's and client's state locks (`Embryo`).

use super::*;

impl Sock {
    /// Takes the bind lock (interruptible: `EINTR` on a signal).
    pub(crate) fn bind_lock(&self) -> Result<BindGuard<'_>> {
        // SAFETY: `self` is a live socket of this family.
        to_result(unsafe { bindings::afunix_mutex_lock_interruptible(self.bindlock_ptr()) })?;
        // INVARIANT: Locked just above.
        Ok(BindGuard {
            sk: self,
            _not_send: PhantomData,
        })
    }

    /// Takes the state lock (AF_UNIX's `unix_state_lock()`).
    pub(crate) fn lock(&self) -> StateGuard<'_> {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { bindings::afunix_spin_lock(self.state_lock_ptr()) };
        // INVARIANT: The lock was just taken.
        StateGuard {
            sk: self,
            _not_send: PhantomData,
        }
    }

    /// Takes the state lock as the second of two, the first being `first`'s: in the
    /// order of [`crate::api`], "Lock order", which lockdep checks (no subclass: its
    /// order function, `afunix_state_lock_cmp_fn`, tells the two apart).
    pub(crate) fn lock_second(&self, first: &StateGuard<'_>) -> StateGuard<'_> {
        // SAFETY: Both are live sockets of this family (type invariant); `first` holds
        // the first's state lock.
        unsafe {
            bindings::afunix_assert_state_lock_order(
                first.sk.state_lock_ptr(),
                self.state_lock_ptr(),
            );
            bindings::afunix_spin_lock(self.state_lock_ptr());
        }
        // INVARIANT: The lock was just taken.
        StateGuard {
            sk: self,
            _not_send: PhantomData,
        }
    }

    /// Locks the state of two sockets in address order (`unix_state_double_lock()`);
    /// one lock if they are the same socket. The guards come back in argument order.
    pub(crate) fn lock_pair<'a>(
        a: &'a Sock,
        b: &'a Sock,
    ) -> (StateGuard<'a>, Option<StateGuard<'a>>) {
        if ptr::eq(a, b) {
            return (a.lock(), None);
        }
        if a.as_ptr() < b.as_ptr() {
            let ga = a.lock();
            let gb = b.lock_second(&ga);
            (ga, Some(gb))
        } else {
            let gb = b.lock();
            let ga = a.lock_second(&gb);
            (ga, Some(gb))
        }
    }
}

/// A new socket for an incoming connection, not yet handed to its listener
/// ([`StateGuard::queue_embryo`]).
///
/// # Invariants
///
/// The socket's connection state, path, address and peer credentials are `Unconnected`
/// and NULL until this value sets them: the protocol promises to set an embryo's only
/// through it. Broken, the promise only leaks: every writer of them holds the state
/// lock, but the address's, which are atomic. Other tasks reach the socket only
/// through its netns table entry.
pub(crate) struct Embryo(ARef<Sock>, Skb);

impl core::ops::Deref for Embryo {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

/// A new embryo without the skb that will carry it to its listener
/// ([`Sock::alloc_embryo`]); [`BareEmbryo::with_carrier`] gives it one.
///
/// # Invariants
///
/// As [`Embryo`]'s.
pub(crate) struct BareEmbryo(pub(super) ARef<Sock>);

impl core::ops::Deref for BareEmbryo {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

impl BareEmbryo {
    /// Allocates the one-byte skb that will carry the embryo to its listener, charged
    /// to it; on failure, the embryo comes back, for its release.
    pub(crate) fn with_carrier(self) -> core::result::Result<Embryo, (BareEmbryo, Error)> {
        match Skb::embryo_carrier(&self.0) {
            // INVARIANT: The carrier is the embryo's own.
            Ok(skb) => Ok(Embryo(self.0, skb)),
            Err(e) => Err((self, e)),
        }
    }

    /// Gives the embryo's reference back, for its release (a failed connect).
    pub(crate) fn into_sock(self) -> ARef<Sock> {
        self.0
    }
}

/// An embryo set up by the protocol ([`Embryo::connect_to`]), with its carrier, ready for
/// its listener's queue ([`StateGuard::queue_embryo`]).
pub(crate) struct ConnectedEmbryo(ARef<Sock>, Skb);

impl core::ops::Deref for ConnectedEmbryo {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

impl Embryo {
    /// Takes the embryo's state lock, nested in the listener's and the client's that a
    /// connect holds (lockdep's subclass 2: no state lock is ever taken under it). The
    /// embryo is in its netns table: sock_diag may read its state under this lock.
    pub(super) fn lock_third(&self) -> StateGuard<'_> {
        // SAFETY: A live socket of this family; see above for the order.
        unsafe { bindings::afunix_spin_lock_third(self.0.state_lock_ptr()) };
        // INVARIANT: The lock was just taken.
        StateGuard {
            sk: &self.0,
            _not_send: PhantomData,
        }
    }

    /// Connects the embryo to `client` as AF_UNIX's `unix_stream_connect()` does, in one
    /// hold of its state lock: its peer and state, and the path of the listener whose
    /// state lock `listener` holds; and the calling task as its peer credentials. Then
    /// it is ready for its listener's queue ([`StateGuard::queue_embryo`]).
    // Inlined, as the other calls of a connect (`connect::stream_connect`).
    #[inline(always)]
    pub(crate) fn connect_to(self, client: &Sock, listener: &StateGuard<'_>) -> ConnectedEmbryo {
        // SAFETY: The listener's state lock is held, which guards its path; a set path
        // holds its mount and dentry.
        let path = unsafe { HeldPath::get(listener.sock().path_slot()) };
        let old = {
            let mut g = self.lock_third();
            if let Some(path) = path {
                // SAFETY: The embryo's path, unset (only this value writes it: type
                // invariant), is guarded by its state lock (held).
                unsafe { self.0.path_slot().write(path.into_raw()) };
            }
            let p = self.0.as_ptr();
            // SAFETY: Every writer of credentials holds the state lock (held), and every
            // reader it or `sk_peer_lock`; the readers under `sk_peer_lock` alone (the
            // core's `SO_PEERCRED`) need a `struct socket`, which the embryo gets only
            // after the queue hands it on. NULL before (else they would leak);
            // `__sk_destruct` puts them.
            unsafe {
                (*p).sk_peer_pid = bindings::afunix_get_pid(bindings::afunix_current_tgid());
                (*p).sk_peer_cred = bindings::afunix_get_current_cred();
            }
            g.set_conn(Conn::Connected(ARef::from(client)))
        };
        // `Conn::Unconnected` (only this value sets the state): nothing to drop, and no
        // call to the drop glue.
        debug_assert!(matches!(old, Conn::Unconnected));
        core::mem::forget(old);
        ConnectedEmbryo(self.0, self.1)
    }

    /// Gives the embryo its listener's address (`smp_store_release(&newu->addr, ..)` in
    /// `unix_stream_connect()`).
    pub(crate) fn set_addr(&mut self, addr: ARef<UnixAddress>) {
        // INVARIANT: The address was NULL (only this value sets it): a plain release
        // store, where `Sock::publish_addr` must exchange (an overwrite would only leak).
        debug_assert!(!self.0.has_addr());
        self.0
            .addr_slot()
            .store(ARef::into_raw(addr).as_ptr(), Ordering::Release);
    }

    /// Gives the embryo the `SO_PASS*` flags of the listener whose state lock `listener`
    /// holds. Since 6.16 they are the sock's and the embryo takes them at connect; on
    /// 6.12 they are the `struct socket`'s, which takes them at accept ([`graft`]).
    ///
    /// [`graft`]: Sock::graft
    pub(crate) fn inherit_pass_flags(&mut self, listener: &StateGuard<'_>) {
        #[cfg(kline_7_3)]
        // SAFETY: Both sockets are live; the embryo is not yet visible to anyone else
        // who could set its flags (no `struct socket`), the listener's are read as
        // `unix_stream_connect()` reads them, under its state lock.
        unsafe {
            bindings::afunix_sk_copy_pass_flags(self.0.as_ptr(), listener.sock().as_ptr())
        };
        #[cfg(kline_6_12)]
        let _ = listener;
    }

    /// Gives the embryo's reference back, for its release (a failed connect); its
    /// carrier is freed.
    pub(crate) fn into_sock(self) -> ARef<Sock> {
        self.0
    }
}

/// The state lock of a socket, held.
///
/// # Invariants
///
/// The state lock of `sk` is held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct StateGuard<'a> {
    sk: &'a Sock,
    /// Unlocked by the task that locked it: not `Send`.
    _not_send: PhantomData<*mut ()>,
}

impl StateGuard<'_> {
    /// The connection state.
    pub(crate) fn conn(&self) -> ConnState {
        // SAFETY: The state is guarded by the state lock (held, type invariant).
        unsafe { self.sk.conn_state() }
    }

    /// The connected peer, if any.
    pub(crate) fn peer(&self) -> Option<&Sock> {
        // SAFETY: The state is guarded by the state lock (held, type invariant); it is
        // changed only through `&mut self` (`set_conn`), so not while `&self` is lent.
        unsafe { self.sk.conn_peer() }
    }

    /// Moves the socket to `new`, writing `sk_state` and `unix_sock::peer` with it
    /// (`WRITE_ONCE`: both are read without the lock); returns the old state, to drop
    /// (with its peer reference) after unlocking. The socket's relay leaves the old
    /// peer's `peer_wait`, if it is there: that peer's reference, which kept the queue
    /// alive, goes with the old state.
    // Inlined: LLVM left it a call in connect.
    #[inline(always)]
    pub(crate) fn set_conn(&mut self, new: Conn) -> Conn {
        if let Some(old) = self.peer() {
            if !new.peer().is_some_and(|p| ptr::eq(p, old)) {
                old.lock_peer_wait().unhook_relay(self.sk);
            }
        }
        // SAFETY: The state lock is held (type invariant).
        unsafe { self.sk.write_conn(new) }
    }

    /// `WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | bits)`.
    pub(crate) fn add_shutdown(&mut self, bits: Shutdown) {
        let s = self.sk.shutdown() | bits;
        // SAFETY: A volatile write under the state lock (WRITE_ONCE).
        unsafe { ptr::addr_of_mut!((*self.sk.as_ptr()).sk_shutdown).write_volatile(s.0) };
    }

    /// `WRITE_ONCE(sk->sk_err, err)`.
    pub(crate) fn set_err(&mut self, err: Errno) {
        // SAFETY: A volatile write under the state lock (WRITE_ONCE).
        unsafe { ptr::addr_of_mut!((*self.sk.as_ptr()).sk_err).write_volatile(err.0) };
    }

    /// The socket whose lock this is.
    pub(crate) fn sock(&self) -> &Sock {
        self.sk
    }

    /// Sets `sk_max_ack_backlog` (listen).
    pub(crate) fn set_max_ack_backlog(&mut self, n: u32) {
        // SAFETY: A volatile write under the state lock (WRITE_ONCE).
        unsafe { ptr::addr_of_mut!((*self.sk.as_ptr()).sk_max_ack_backlog).write_volatile(n) };
    }

    /// Queues a connection on this listener: the embryo's reference moves into the
    /// queue, in its carrier, until `accept` or the listener's release takes it.
    // Inlined: once per connect.
    #[inline(always)]
    pub(crate) fn queue_embryo(&mut self, embryo: ConnectedEmbryo) {
        debug_assert!(self.conn() == ConnState::Listening);
        let ConnectedEmbryo(sk, skb) = embryo;
        // SAFETY: `skb` is ours and charged to `sk` (`BareEmbryo::with_carrier`). The
        // embryo's `listener` is only compared (WRITE_ONCE), cleared by `take_embryo`.
        unsafe {
            (*skb.view().cb()).embryo = true;
            ptr::addr_of_mut!((*sk.unix()).unix.listener).write_volatile(self.sk.as_ptr());
        }
        // The reference moves into the carrier (`Skb::take_embryo` takes it back).
        core::mem::forget(sk);
        self.sk.queue_tail_locked(skb);
    }

    /// Appends `skb` to this socket's receive queue: under the state lock, under which
    /// a stream reader walks the queue ([`IoGuard::peek`]).
    pub(crate) fn queue_tail(&mut self, skb: Skb) {
        self.sk.queue_tail_locked(skb);
    }

    /// Queues `skb` as the out-of-band byte, the new mark (`queue_oob()`).
    pub(crate) fn queue_oob(&mut self, skb: Skb) {
        let fds = skb.view().fds().map_or(0, |f| f.len() as u32);
        if fds != 0 {
            self.sk.nr_fds().fetch_add(fds, Ordering::Relaxed);
        }
        let q = self.sk.rcvq_lock();
        let p = skb.into_raw();
        self.sk.oob_slot().store(p, Ordering::Relaxed);
        // SAFETY: The queue's lock is held; the queue takes over the skb.
        unsafe { bindings::afunix_skb_queue_tail_locked(self.sk.rcvq_ptr(), p) };
        drop(q);
    }

    /// Appends `data` to the last skb of this socket's receive queue, a stream write
    /// of `from`'s coalesced into the skb before it (`net.rust_afunix.stream_coalesce`),
    /// if that skb was sent by `from`, is `open` (made by such a write: linear, no fds,
    /// not the out-of-band byte, and not being spliced), not cloned, with room for
    /// `data` in its tail, and `same` accepts it (the protocol's checks: credentials,
    /// security id). Returns whether it appended; the caller wakes the reader.
    ///
    /// The skb's `truesize`, charged to `from` when it was made, does not change: the
    /// tail room was part of it. A reader may be copying from the same skb meanwhile
    /// (it drops the state lock to copy): the new bytes are written past the length it
    /// can have seen, and the length is published after them (release; the reader's
    /// [`SkbView::len`] is an acquire), so a reader sees either length with its bytes
    /// written. A reader frees an skb it read out only after checking, under the queue
    /// lock (held here too), that no bytes were added ([`QueuedSkb::unlink_consume`]);
    /// the reader's other unlinks (`manage_oob()`, `MSG_OOB`) run under the state lock
    /// (held here), the purge of a released socket after it is marked dead under the
    /// state lock (checked by the caller), and the collector's under the queue lock.
    /// Only fields written before the skb was queued are read here (not `fp`, which a
    /// reader takes out), and `open`, which its reader clears under the state lock.
    /// Readers read no `tail`, and no `len` but through [`SkbView::len`] (an open
    /// skb's bytes are copied by [`SkbView::copy_to_msg`] without the C routine).
    pub(crate) fn append_to_tail(
        &mut self,
        from: &Sock,
        data: &[u8],
        same: impl FnOnce(&SkbView) -> bool,
    ) -> bool {
        let Ok(n) = u32::try_from(data.len()) else {
            return false;
        };
        let _q = self.sk.rcvq_lock();
        // SAFETY: The queue lock is held: the tail stays queued, and valid, while it is
        // read and appended to. Its `cb` is the module's (a data skb of a stream
        // socket's queue, or an embryo's, never open); `open` (see above) and the
        // credentials and security id `same` reads were written before it was queued;
        // `sk` is only compared. Only appends, under this lock, write `tail` and `len`
        // of a queued stream skb.
        unsafe {
            let p = bindings::afunix_rcvq_peek_tail(self.sk.as_ptr());
            if p.is_null() {
                return false;
            }
            let view = SkbView::from_raw(p);
            if bindings::afunix_skb_sock(p) != from.as_ptr()
                || !(*view.cb()).open
                || bindings::afunix_skb_cloned(p) != 0
                || bindings::afunix_skb_tailroom(p) < n
                || !same(view)
            {
                return false;
            }
            // `n` bytes of tail room (checked) past the length any reader has seen;
            // `data` is `n` readable bytes. Then `skb_put()`'s updates (`tail`, read
            // only by appends; the length last, released after the bytes).
            ptr::copy_nonoverlapping(
                data.as_ptr(),
                bindings::afunix_skb_tail_pointer(p),
                data.len(),
            );
            (*p).tail += n;
            let len = AtomicU32::from_ptr(ptr::addr_of_mut!((*p).len));
            len.store(len.load(Ordering::Relaxed) + n, Ordering::Release);
        }
        true
    }

    /// Copies `from`'s credentials to this socket (connect, under `from`'s lock).
    // Inlined: once per connect.
    #[inline(always)]
    pub(crate) fn copy_peercred(&mut self, from: &StateGuard<'_>) {
        let (sk, from) = (self.sk.as_ptr(), from.sk.as_ptr());
        let _g = self.sk.peer_lock();
        // SAFETY: Both sockets are live; credentials are written under the state lock
        // (and `sk_peer_lock`, for a socket with a `struct socket`: both held here), so
        // `from`'s are stable under its state lock (held). The old ones are NULL: only a
        // socket that neither listens nor is connected connects (else they would leak).
        unsafe {
            (*sk).sk_peer_pid = bindings::afunix_get_pid((*from).sk_peer_pid);
            (*sk).sk_peer_cred = bindings::afunix_get_cred((*from).sk_peer_cred);
        }
    }

    /// Sets the state of the socket's `struct socket`, if it has one, to `SS_CONNECTED`
    /// (a connect; [`Socket::set_connected`] for a caller that holds the `struct socket`).
    // Through `sk_socket`: a connect then keeps one value fewer live to its end.
    pub(crate) fn set_socket_connected(&mut self) {
        // 7.3's AF_UNIX leaves `sock->state` alone ([`Socket::set_connected`]).
        #[cfg(kline_6_12)]
        let s = self.sk.raw_socket();
        #[cfg(kline_6_12)]
        // SAFETY: `sk_socket` is written only under the state lock (held): by `graft`
        // and by `orphan`, which the release trampoline makes sure of before the
        // `struct socket` is freed (`Sock::orphan_from`); so it is NULL or live while
        // the lock is held. The write is `WRITE_ONCE`, as `Socket::set_connected`.
        unsafe {
            if !s.is_null() {
                ptr::addr_of_mut!((*s).state).write_volatile(bindings::socket_state_SS_CONNECTED);
            }
        }
    }

    /// Records the calling task as the socket's credentials (listen, socketpair).
    pub(crate) fn update_peercred(&mut self) {
        let p = self.sk.as_ptr();
        let g = self.sk.peer_lock();
        // SAFETY: The credentials are written under the state lock (held) and
        // `sk_peer_lock` (held: the core reads them under it); the old ones' references
        // move out, to be put after `sk_peer_lock` (atomic context is fine for both).
        let (old_pid, old_cred) = unsafe {
            let old = ((*p).sk_peer_pid, (*p).sk_peer_cred);
            (*p).sk_peer_pid = bindings::afunix_get_pid(bindings::afunix_current_tgid());
            (*p).sk_peer_cred = bindings::afunix_get_current_cred();
            old
        };
        drop(g);
        // SAFETY: The references taken from the socket above (NULL is allowed).
        unsafe {
            bindings::put_pid(old_pid);
            bindings::afunix_put_cred(old_cred);
        }
    }

    /// Takes the path of a pathname socket (or of one accepted from it) out of it, at
    /// its release: the references go with the [`HeldPath`], to drop once unlocked
    /// (`path_put` may sleep).
    pub(crate) fn take_path(&mut self) -> Option<HeldPath> {
        // SAFETY: `path` is guarded by the state lock (held); its references move out
        // of the socket, which is left without a path.
        unsafe { HeldPath::take(self.sk.path_slot()) }
    }

    /// `sock_orphan()`: detaches the socket from its `struct socket` and marks it dead.
    pub(crate) fn orphan(&mut self) {
        // SAFETY: The socket is live; AF_UNIX orphans under the state lock too.
        unsafe { bindings::afunix_sock_orphan(self.sk.as_ptr()) };
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: The lock is held (type invariant).
        unsafe { bindings::afunix_spin_unlock(self.sk.state_lock_ptr()) };
    }
}

/// The bind lock of a socket, held.
///
/// # Invariants
///
/// The `bindlock` of `sk` is held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct BindGuard<'a> {
    sk: &'a Sock,
    /// Unlocked by the task that locked it: not `Send`.
    _not_send: PhantomData<*mut ()>,
}

impl Drop for BindGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::mutex_unlock(self.sk.bindlock_ptr()) };
    }
}
