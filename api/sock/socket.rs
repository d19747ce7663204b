// SPDX-License-Identifier: GPL-2.0

//! `struct socket` (`Socket`), and the tokens of an accept: the accept call's new
//! socket (`NewSocket`) and the embryo taken off the queue for it (`AcceptedSock`).

use super::*;

impl Sock {
    /// `accept`: the next embryo from this listener's queue, waiting unless
    /// `nonblock`; `Ok(None)` when the receive side is shut down. Taken under the
    /// reader lock (as a datagram receive), which is dropped to wait.
    pub(crate) fn accept_embryo(&self, nonblock: bool) -> Result<Option<AcceptedSock>> {
        let mut timeo = self.rcvtimeo(nonblock);
        loop {
            let got = {
                let mut io = self.io_lock();
                let mut skip = 0;
                let got = match io.try_recv_datagram(MsgFlags::NONE, &mut skip) {
                    Ok(Datagram::Taken(skb)) => Ok(skb),
                    Ok(Datagram::Peeked(_)) => return Err(kernel::error::code::EINVAL),
                    Err(e) => Err(e),
                };
                got
            };
            let mark = match got {
                Ok(skb) => {
                    let embryo = skb.take_embryo();
                    skb.free_datagram(self);
                    match embryo {
                        // INVARIANT: The carrier's reference, taken out of it once.
                        Some(e) => return Ok(Some(AcceptedSock(e))),
                        None => continue,
                    }
                }
                Err((e, _)) if e != kernel::error::code::EAGAIN || timeo == 0 => return Err(e),
                Err((_, mark)) => mark,
            };
            if !Skb::wait_for_more(self, &mut timeo, &mark)? {
                return Ok(None);
            }
        }
    }

    /// Puts the new socket of an accept call in charge of this accepted socket
    /// (`sock_graft()`), under the state lock, with the flags of `listener` that
    /// AF_UNIX's accepted sockets inherit; the reference moves into it.
    pub(crate) fn graft(this: AcceptedSock, listener: &Socket, sock: NewSocket<'_>) {
        let this = this.0;
        let sock = sock.0;
        let _g = this.lock();
        #[cfg(kline_6_12)]
        // SAFETY: `sock` is the new socket of the current accept call, with no `sk` yet
        // (`NewSocket`'s invariant).
        unsafe {
            (*sock.0.get()).state = bindings::socket_state_SS_CONNECTED
        };
        // Since 6.16 the flags are the socket's own, copied from the listener at connect.
        #[cfg(kline_7_3)]
        let _ = listener;
        #[cfg(kline_6_12)]
        for nr in [
            sock_flag::PASSCRED,
            sock_flag::PASSPIDFD,
            sock_flag::PASSSEC,
        ] {
            if listener.test_flag(nr) {
                sock.set_flag(nr);
            }
        }
        sock.set_custom_sockopt();
        // An accepted socket speaks to its listener's owner: its addresses are named
        // as the listener's.
        if listener.sk().is_some_and(Sock::as_unix) {
            this.set_as_unix();
        }
        // SAFETY: As above; the reference moves into `sock` (released in its `release`).
        unsafe { bindings::afunix_sock_graft(this.as_ptr(), sock.0.get()) };
        drop(_g);
        core::mem::forget(this);
    }
}

/// An embryo taken off its listener's queue by [`Sock::accept_embryo`], with the
/// reference the queue held: grafted once, onto the accept call's new socket.
///
/// # Invariants
///
/// A socket of this family that no `struct socket` holds yet.
pub(crate) struct AcceptedSock(pub(super) ARef<Sock>);

impl core::ops::Deref for AcceptedSock {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

/// The new `struct socket` of an accept call, lent by the accept trampoline only: it
/// has no `sk` yet and takes one, once ([`Sock::graft`]).
///
/// # Invariants
///
/// `self.0` is the new socket of the current `accept` call, with no `sk`.
pub(crate) struct NewSocket<'a>(pub(super) &'a Socket);

impl<'a> NewSocket<'a> {
    /// # Safety
    ///
    /// `sock` is the new socket of the current `accept` call, which has no `sk`, and
    /// no other `NewSocket` of it exists.
    pub(in crate::api) unsafe fn new(sock: &'a Socket) -> Self {
        NewSocket(sock)
    }
}

/// The `struct socket` of a socket of this family.
///
/// # Invariants
///
/// `self.0` is a live `struct socket` of this family.
#[repr(transparent)]
pub(crate) struct Socket(Opaque<bindings::socket>);

impl Socket {
    /// Borrows a `struct socket`.
    ///
    /// # Safety
    ///
    /// `ptr` must be a live socket of this family for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::socket) -> &'a Socket {
        // CAST: `Socket` is `repr(transparent)` over `struct socket`.
        // SAFETY: Validity for `'a` is guaranteed by the caller.
        unsafe { &*ptr.cast() }
    }

    /// The socket's `struct sock`, or `None` after release.
    pub(crate) fn sk(&self) -> Option<&Sock> {
        // SAFETY: `sk` of a live socket is NULL or a live socket of this family, which
        // stays alive while the `struct socket` holds it (until release).
        unsafe { NonNull::new((*self.0.get()).sk).map(|p| Sock::from_raw(p.as_ptr())) }
    }

    pub(super) fn flags(&self) -> *mut c_ulong {
        // SAFETY: `self.0` is a live socket (type invariant).
        unsafe { ptr::addr_of_mut!((*self.0.get()).flags) }
    }

    /// `test_bit(nr, &sock->flags)` (6.12: the `SO_PASS*` flags live there).
    #[cfg(kline_6_12)]
    pub(super) fn test_flag(&self, nr: u32) -> bool {
        // SAFETY: `flags` of a live socket, changed only with atomic bit operations.
        unsafe { test_bit(nr, self.flags()) }
    }

    /// Whether any of the flags `nrs` (each below `BITS_PER_LONG`) is set, in one load.
    #[cfg(kline_6_12)]
    pub(super) fn any_flag(&self, nrs: &[u32]) -> bool {
        let mask = nrs
            .iter()
            .fold(0usize, |m, &nr| m | 1usize.wrapping_shl(nr));
        // SAFETY: As in `test_flag`; `unsigned long` is the size and alignment of
        // `usize` in the kernel's ABIs.
        let word = unsafe { AtomicUsize::from_ptr(self.flags().cast()) };
        word.load(Ordering::Relaxed) & mask != 0
    }

    /// `set_bit(nr, &sock->flags)`.
    pub(super) fn set_flag(&self, nr: u32) {
        // SAFETY: As in `test_flag`.
        unsafe { bindings::afunix_set_bit(nr as c_long, self.flags()) };
    }

    /// Sends this socket's `SOL_SOCKET` options to the family's `setsockopt`
    /// (`SOCK_CUSTOM_SOCKOPT`), which hands the core's to `sock_setsockopt`.
    pub(crate) fn set_custom_sockopt(&self) {
        self.set_flag(sock_flag::CUSTOM_SOCKOPT);
    }

    /// Sets `sock->state` to `SS_CONNECTED`, as 6.12's AF_UNIX does (7.3's leaves every
    /// socket `SS_UNCONNECTED`, where `sock_alloc` puts it).
    pub(crate) fn set_connected(&self) {
        #[cfg(kline_6_12)]
        // SAFETY: A field of a live socket; `WRITE_ONCE`, as two calls on one socket
        // (connect and accept) may race on it, as in AF_UNIX.
        unsafe {
            ptr::addr_of_mut!((*self.0.get()).state)
                .write_volatile(bindings::socket_state_SS_CONNECTED)
        };
    }

    /// The raw `struct socket`.
    pub(in crate::api) fn as_ptr(&self) -> *mut bindings::socket {
        self.0.get()
    }

    /// Detaches the `struct sock` from the socket (in `release`), with the reference
    /// the socket held since creation.
    pub(in crate::api) fn take_sk(&self) -> Option<ARef<Sock>> {
        // SAFETY: `release` is the last callback of a socket; the reference taken over
        // is the one `sk_alloc` gave to the socket.
        unsafe {
            let sk = core::mem::replace(&mut (*self.0.get()).sk, ptr::null_mut());
            NonNull::new(sk).map(|p| ARef::from_raw(p.cast()))
        }
    }
}

impl Sock {
    /// Orphans the socket if it still names `sock`, whose release ran: the protocol's
    /// release orphans it, and `sk_socket` must not outlive the `struct socket`.
    pub(in crate::api) fn orphan_from(&self, sock: &Socket) {
        // Read once, unlocked: its writers (`sock_graft`, `sock_orphan`) hold the lock.
        if self.raw_socket() == sock.as_ptr() {
            self.lock().orphan();
        }
    }
}

/// `test_bit(nr, addr)`: one bit of a bitmap, read once (as the inline does, without a
/// call into C), racing with writers as the C reader does.
///
/// # Safety
///
/// `addr` is an aligned, live array of `unsigned long` that holds bit `nr`.
pub(super) unsafe fn test_bit(nr: u32, addr: *const c_ulong) -> bool {
    let bits = c_ulong::BITS;
    // SAFETY: The word of bit `nr` (safety requirements); `unsigned long` is the size
    // and alignment of `usize` in the kernel's ABIs.
    let word = unsafe { AtomicUsize::from_ptr(addr.add((nr / bits) as usize).cast_mut().cast()) };
    (word.load(Ordering::Relaxed) >> (nr % bits)) & 1 != 0
}
