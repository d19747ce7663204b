// SPDX-License-Identifier: GPL-2.0

//! The module's socket: `UnixSock` (AF_UNIX's `struct unix_sock` first), its
//! connection state `Conn`, and `Sock`, the `struct sock` inside it: allocation,
//! identity, addresses and paths, flags and options, credentials, hooks and wait queues.

use super::*;

/// A socket of this family: what `sk_alloc` allocates (`struct proto::obj_size`
/// bytes, zeroed), AF_UNIX's `struct unix_sock` first and the module's own fields
/// after it.
///
/// The module keeps in `unix` what AF_UNIX keeps there, so kernel code that reads
/// `unix_sk()` of a socket it is handed (LSM hooks read `addr`, `lock` and `peer`)
/// reads valid fields:
/// - `sk`: the core socket;
/// - `addr`: the bound address, or NULL; set once, with release semantics, under
///   `bindlock` and the table locks; freed by the destructor;
/// - `path`: the socket inode's path, for a pathname socket (and its accepted
///   sockets), under `lock`;
/// - `iolock`: one reader at a time on a stream socket; `bindlock`: one binder at a
///   time;
/// - `lock`: the state lock (`unix_state_lock()`), which guards the connection state
///   ([`Conn`]: `sk_state` and `peer`), `path` and the shutdown transitions;
/// - `peer`: the connected peer, whose reference it holds, as AF_UNIX's `unix_peer()`
///   does; written (`WRITE_ONCE`) with `sk_state` under `lock`, read without it only to
///   compare;
/// - `peer_wq`: its wait queue is where datagram writers and connecting clients wait
///   for room in this socket's queue (`peer_wait`); it is also the socket's wait queue
///   while it is an embryo (a connection not accepted yet);
/// - `peer_wake`: queued on the `peer_wait` of a datagram peer whose queue is full, to
///   relay its wakeup to this socket's pollers; `.private` is that peer;
/// - `scm_stat.nr_fds`: fds queued on this socket with `SCM_RIGHTS` and not received
///   yet (shown as `scm_fds:` in fdinfo), atomic;
/// - `oob_skb`: the out-of-band skb of a stream socket, one of the skbs on the receive
///   queue, or NULL: set and cleared under the state lock and the queue lock, compared
///   atomically (poll).
///
/// `listener` is an embryo's listener while the embryo is on its queue, else NULL, as
/// AF_UNIX sets it: read only by lockdep's order of two queue locks (see [`crate::api`],
/// "Lock order"). `vertex` (AF_UNIX's collector, which never sees this family's sockets)
/// stays NULL. (The module's fields after `unix` fill the 64 bytes that `UnixSock` may
/// add to AF_UNIX's slab object.)
#[repr(C)]
pub(crate) struct UnixSock {
    /// AF_UNIX's socket (see above).
    pub(crate) unix: bindings::unix_sock,
    /// The socket inode of a pathname socket, compared by the global table.
    pub(crate) inode: *mut bindings::inode,
    /// The socket's bucket in its netns table (under the bucket lock).
    pub(crate) hash: kernel::ffi::c_uint,
    /// The socket's key in the striped table it is in: the full hash of an abstract
    /// name (compared before the name itself), or the inode key of a pathname socket in
    /// the global table. Set once, before the socket is linked there.
    pub(crate) key: kernel::ffi::c_uint,
    /// The socket's index among the candidates of the collector's current run.
    pub(crate) gc_index: kernel::ffi::c_uint,
    /// Option bits the protocol keeps (`crate::opts`), zero at creation. Written by
    /// `setsockopt` without a lock: a relaxed atomic, as upstream's unlocked bits.
    opts: AtomicU8,
    /// The socket is counted out of [`NR_SOCKS`] and `/proc/net/protocols`
    /// ([`Sock::count_out`]), once.
    counted_out: AtomicBool,
    /// The addresses the socket returns say `AF_UNIX` ([`Sock::as_unix`]): set before
    /// anyone else sees it (at creation, or an embryo's at accept), then only read.
    as_unix: AtomicBool,
    /// [`RCU_LINKED`] once the socket was linked where lock-free walkers go,
    /// [`RCU_RELEASED`] once its release decided its free (only ever set, as one atomic:
    /// whichever of the two came second sees the other).
    rcu: AtomicU8,
    /// Per [`crate::api::list::Link`] (`sk_node`, `sk_bind_node`): the lock of the chain
    /// the socket is linked in by that node (the address of what the lock guards), or
    /// NULL. Claimed before the link, cleared after the unlink, under that lock.
    chained: [AtomicPtr<core::ffi::c_void>; 2],
    /// The collector's fields, under its lock ([`InflightList`]): the link in its list
    /// of sockets in flight, while `inflight` is not 0.
    pub(crate) gc_link: bindings::list_head,
    /// References to this socket's file held by fd lists in flight.
    pub(crate) inflight: kernel::ffi::c_ulong,
}

// AF_UNIX's slab object is `struct unix_sock`; the module's may be at most 64 bytes
// larger.
const _: () =
    assert!(core::mem::size_of::<UnixSock>() <= core::mem::size_of::<bindings::unix_sock>() + 64);

// bindgen's layouts of the kernel structs the module reads and embeds are the C
// compiler's (7.3's `socket_lock_t` once came out 64 bytes short: issue 36).
const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<bindings::sock>() == bindings::AFUNIX_SOCK_SIZE as usize);
    assert!(
        offset_of!(bindings::sock, sk_peer_lock) == bindings::AFUNIX_SK_PEER_LOCK_OFFSET as usize
    );
    assert!(size_of::<bindings::unix_sock>() == bindings::AFUNIX_UNIX_SOCK_SIZE as usize);
    assert!(
        offset_of!(bindings::unix_sock, lock) == bindings::AFUNIX_UNIX_SOCK_LOCK_OFFSET as usize
    );
    assert!(size_of::<bindings::sk_buff>() == bindings::AFUNIX_SK_BUFF_SIZE as usize);
    assert!(size_of::<bindings::socket>() == bindings::AFUNIX_SOCKET_SIZE as usize);
};

/// The connection state without the peer ([`StateGuard::conn`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ConnState {
    /// [`Conn::Unconnected`].
    Unconnected,
    /// [`Conn::Listening`].
    Listening,
    /// [`Conn::Connected`].
    Connected,
    /// [`Conn::Target`].
    Target,
}

/// [`UnixSock::rcu`]: linked into a chain that lookups walk under RCU
/// ([`Sock::mark_rcu_linked`]).
const RCU_LINKED: u8 = 1;
/// [`UnixSock::rcu`]: released ([`Sock::release_rcu`]).
const RCU_RELEASED: u8 = 2;

/// The connection state of a socket: AF_UNIX's `sk_state` with `unix_peer()`, held
/// under the state lock ([`StateGuard`]) in those two fields, for the core and lockless
/// readers ([`Sock::state`]) too: `peer` is NULL but in `Connected`, whose reference it
/// holds.
pub(crate) enum Conn {
    /// `TCP_CLOSE` without a peer: new, disconnected or released.
    Unconnected,
    /// `TCP_LISTEN`: a bound stream or seqpacket socket taking connections.
    Listening,
    /// `TCP_ESTABLISHED` with a peer, whose reference this holds: a socketpair, a
    /// connected or accepted socket (or embryo), a connected datagram socket.
    Connected(ARef<Sock>),
    /// `TCP_ESTABLISHED` without a peer: a datagram socket that another one connected
    /// to (`unix_dgram_connect()` marks both ends), until a disconnect clears it.
    Target,
}

impl Conn {
    /// The `sk_state` of this state.
    pub(super) fn tcp_state(&self) -> u8 {
        match self {
            Conn::Unconnected => SkState::CLOSE,
            Conn::Listening => SkState::LISTEN,
            Conn::Connected(_) | Conn::Target => SkState::ESTABLISHED,
        }
    }

    /// The peer, if connected.
    pub(crate) fn peer(&self) -> Option<&Sock> {
        match self {
            Conn::Connected(p) => Some(p),
            _ => None,
        }
    }

    /// The peer's reference, if connected (a state given up by [`StateGuard::set_conn`],
    /// to drop after unlocking).
    pub(crate) fn into_peer(self) -> Option<ARef<Sock>> {
        match self {
            Conn::Connected(p) => Some(p),
            _ => None,
        }
    }
}

/// A socket of this family: the `struct sock` inside a `UnixSock`.
///
/// # Invariants
///
/// `self.0` is a `struct sock` allocated by [`Sock::alloc`] or [`Sock::alloc_embryo`]
/// (so it is the first field of a `UnixSock` initialised by
/// [`Sock::init_unix`]), and its refcount is non-zero while a `&Sock` exists, except in
/// the two hooks the core calls on a socket whose last reference is gone while its
/// memory stays: `sk_destruct` and `sk_write_space` (from the destructor of an skb
/// charged to it), in [`Sock::last_put`] after `dec_ref` gave up the last reference
/// (to count the socket out), and lock-free lookups (`api/list.rs`'s `RcuSock`),
/// which read it under RCU and take a reference only with [`Sock::try_get`]. None of
/// them takes a reference with `inc_ref`.
#[repr(transparent)]
pub(crate) struct Sock(Opaque<bindings::sock>);

// SAFETY: A `struct sock` is used from any thread; its mutable state is guarded by its
// own locks or accessed with READ_ONCE/WRITE_ONCE semantics below.
unsafe impl Send for Sock {}
// SAFETY: As above: shared references only reach lock-guarded or atomic state.
unsafe impl Sync for Sock {}

// SAFETY: `sock_hold`/`sock_put` are the refcount of a `struct sock`; the object stays
// alive while the count is non-zero.
unsafe impl AlwaysRefCounted for Sock {
    fn inc_ref(&self) {
        // SAFETY: The existence of `&self` means the refcount is non-zero.
        unsafe { bindings::afunix_sock_hold(self.as_ptr()) };
    }

    // Inlined, the last put not: a data path drops a peer reference per call.
    #[inline]
    unsafe fn dec_ref(obj: NonNull<Self>) {
        let sk = obj.as_ptr().cast::<bindings::sock>();
        // SAFETY: The caller owns a reference, which it gives up here (`sock_put`).
        if unsafe { bindings::afunix_sock_refcnt_dec_and_test(sk) } {
            // SAFETY: Our decrement took the count to zero; `sk` is this family's
            // (`Sock`'s type invariant).
            unsafe { Sock::last_put(sk) };
        }
    }
}

impl Sock {
    /// Frees a socket whose last reference is gone.
    ///
    /// # Safety
    ///
    /// `sk` is a socket of this family, and the caller's own decrement
    /// (`refcount_dec_and_test`) took its count to zero: this runs once per socket.
    #[cold]
    #[inline(never)]
    unsafe fn last_put(sk: *mut bindings::sock) {
        // SAFETY: The memory stays until `sk_free` (a grace period more if it was
        // linked where RCU walkers go), and no one can take a new reference (safety
        // requirements);
        // the `&Sock` formed here is the type invariant's `last_put` exception, used
        // before `sk_free` only.
        unsafe {
            // The destructor follows now unless skbs are still charged to the socket
            // (then it follows the last one's `sock_wfree`): AF_UNIX counts the socket
            // out there, not a grace period later.
            if bindings::afunix_wmem_alloc(sk) == 1 {
                Sock::from_raw(sk).count_out();
            }
            bindings::sk_free(sk);
        }
    }

    /// Borrows a `struct sock` of this family.
    ///
    /// # Safety
    ///
    /// `ptr` must point to a socket of this family that stays alive for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::sock) -> &'a Sock {
        // CAST: `Sock` is `repr(transparent)` over `struct sock`.
        // SAFETY: Validity for `'a` is guaranteed by the caller.
        unsafe { &*ptr.cast() }
    }

    /// A new reference to this socket, unless its last one is gone: a socket reached
    /// under RCU may be dying (`refcount_inc_not_zero`).
    // 7.3's kernel::sync::Refcount: not used: sk_refcnt is C's (struct sock), and Refcount
    // has no inc_not_zero.
    pub(crate) fn try_get(&self) -> Option<ARef<Sock>> {
        // SAFETY: `self` is allocated (a socket reached under RCU stays allocated while
        // the read lock is held); the increment fails once the count is zero.
        if unsafe { bindings::afunix_sock_hold_not_zero(self.as_ptr()) } {
            // SAFETY: The reference just taken goes to the `ARef`.
            Some(unsafe { ARef::from_raw(NonNull::from(self)) })
        } else {
            None
        }
    }

    /// The raw `struct sock`.
    pub(crate) fn as_ptr(&self) -> *mut bindings::sock {
        self.0.get()
    }

    pub(in crate::api) fn unix(&self) -> *mut UnixSock {
        // CAST: `sk` is the first field of `UnixSock` (type invariant).
        self.as_ptr().cast()
    }

    /// Allocates the `struct sock` of `socket` and initialises it as AF_UNIX's
    /// `unix_create1()` does, with this family's hooks; the socket owns it.
    ///
    /// # Safety
    ///
    /// `net` and `socket` are the arguments of a `net_proto_family::create` call;
    /// `prot` is a registered `struct proto` whose `obj_size` is that of
    /// `UnixSock`.
    // The arguments of `create` and the family's hooks, each used once.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn alloc<'a>(
        net: *mut bindings::net,
        socket: *mut bindings::socket,
        family: i32,
        prot: *mut bindings::proto,
        kern: c_int,
        write_space: unsafe extern "C" fn(*mut bindings::sock),
        destruct: unsafe extern "C" fn(*mut bindings::sock),
        relay: WaitFunc,
    ) -> Result<&'a Sock> {
        // GFP_KERNEL: `create` runs in process context without locks.
        let gfp = kernel::bindings::GFP_KERNEL;
        // SAFETY: `net` and `prot` are valid by the safety requirements.
        let sk = unsafe { bindings::sk_alloc(net, family, gfp, prot, kern) };
        if sk.is_null() {
            return Err(kernel::error::code::ENOMEM);
        }
        // SAFETY: `socket` is the socket being created and `sk` was just allocated.
        unsafe { bindings::sock_init_data(socket, sk) };
        // SAFETY: `sk` is the first field of a zeroed `UnixSock` of
        // `obj_size` bytes, not yet visible to anyone else.
        unsafe {
            Sock::init_unix(sk, Some(relay));
            (*sk).sk_allocation = kernel::bindings::GFP_KERNEL_ACCOUNT;
            (*sk).sk_write_space = Some(write_space);
            (*sk).sk_destruct = Some(destruct);
            bindings::afunix_prot_inuse_add(sk, 1);
        }
        // SAFETY: `sk` is now a socket of this family, held by `socket` for as long as
        // the `create` call that borrows it for `'a` runs.
        Ok(unsafe { Sock::from_raw(sk) })
    }

    /// Allocates an embryo for a connection to a listener: a socket of `self`'s netns,
    /// type, protocol and hooks, with no `struct socket` (`unix_create1(net, NULL, ..)`).
    /// The returned reference is the one `sk_alloc` gives.
    // Inlined: once per connect.
    #[inline(always)]
    pub(crate) fn alloc_embryo(&self) -> Result<BareEmbryo> {
        let p = self.as_ptr();
        // SAFETY: `self` is a live socket of this family: its netns, protocol (the
        // module's registered `struct proto`, with the size of `UnixSock`)
        // and hooks are valid; `connect` runs in process context without locks.
        let sk = unsafe {
            let sk = bindings::sk_alloc(
                bindings::afunix_sock_net(p),
                (*p).__sk_common.skc_family.into(),
                kernel::bindings::GFP_KERNEL,
                (*p).__sk_common.skc_prot,
                0,
            );
            if sk.is_null() {
                return Err(kernel::error::code::ENOMEM);
            }
            bindings::sock_init_data(ptr::null_mut(), sk);
            // The relay of `self`'s `peer_wake`: the family's.
            Sock::init_unix(sk, (*self.unix()).unix.peer_wake.func);
            bindings::afunix_set_sk_wq(
                sk,
                ptr::addr_of_mut!((*sk.cast::<UnixSock>()).unix.peer_wq),
            );
            (*sk).sk_type = (*p).sk_type;
            (*sk).sk_allocation = kernel::bindings::GFP_KERNEL_ACCOUNT;
            (*sk).sk_write_space = (*p).sk_write_space;
            (*sk).sk_destruct = (*p).sk_destruct;
            bindings::afunix_prot_inuse_add(sk, 1);
            sk
        };
        // SAFETY: `sk_alloc` gave us a reference to this new socket of this family.
        // INVARIANT: No one else has it yet.
        Ok(BareEmbryo(unsafe {
            ARef::from_raw(NonNull::new_unchecked(sk.cast()))
        }))
    }

    /// Initialises the module's part of a new socket (AF_UNIX's `unix_create1()`): its
    /// locks and `peer_wait`, no peer, and the `peer_wake` relay `relay`, not hooked.
    ///
    /// # Safety
    ///
    /// `sk` is the first field of a `UnixSock` just allocated by `sk_alloc` and
    /// initialised by `sock_init_data`, not yet visible to anyone else; `relay` is a wake
    /// function for its `peer_wake` ([`crate::api::wait::RelayAdapter`]).
    pub(super) unsafe fn init_unix(sk: *mut bindings::sock, relay: Option<WaitFunc>) {
        // CAST: `sk` is the first field of a `UnixSock` (safety requirements).
        let u = sk.cast::<UnixSock>();
        // SAFETY: `u` is valid and nobody else sees it (safety requirements); each
        // initialiser runs once, before any use of what it initialises. The last three
        // stores are `init_waitqueue_func_entry(&u->peer_wake, relay)`.
        unsafe {
            // Freed a grace period after the last reference goes, as lookups walk the
            // tables under RCU (`hash.rs`), unless its release finds it was never
            // linked there (`Sock::release_rcu`). `sock_set_flag`: no one else sees it.
            let flags = sk.byte_add(bindings::AFUNIX_SK_FLAGS_OFFSET as usize);
            *flags.cast::<c_ulong>() |= 1 << bindings::AFUNIX_SOCK_RCU_FREE;
            bindings::afunix_init_state_lock(ptr::addr_of_mut!((*u).unix.lock));
            bindings::afunix_init_rcvq_lock(sk);
            (*u).unix.peer = ptr::null_mut();
            ptr::addr_of_mut!((*u).opts).write(AtomicU8::new(0));
            ptr::addr_of_mut!((*u).counted_out).write(AtomicBool::new(false));
            ptr::addr_of_mut!((*u).as_unix).write(AtomicBool::new(false));
            ptr::addr_of_mut!((*u).rcu).write(AtomicU8::new(0));
            ptr::addr_of_mut!((*u).chained).write([
                AtomicPtr::new(ptr::null_mut()),
                AtomicPtr::new(ptr::null_mut()),
            ]);
            bindings::afunix_init_iolock(ptr::addr_of_mut!((*u).unix.iolock));
            bindings::afunix_init_bindlock(ptr::addr_of_mut!((*u).unix.bindlock));
            bindings::afunix_init_peer_wait(ptr::addr_of_mut!((*u).unix.peer_wq.wait));
            (*u).unix.peer_wake.flags = 0;
            (*u).unix.peer_wake.private = ptr::null_mut();
            (*u).unix.peer_wake.func = relay;
        }
    }

    /// The connection state ([`Conn`]'s encoding: `sk_state`, and `peer` set only when
    /// connected).
    ///
    /// # Safety
    ///
    /// As [`Sock::write_conn`]'s: no one writes the state meanwhile.
    pub(super) unsafe fn conn_state(&self) -> ConnState {
        // SAFETY: Fields of a live socket, written only by `write_conn` (safety
        // requirements).
        let (st, peer) = unsafe {
            let u = self.unix();
            (
                ptr::addr_of!((*u).unix.sk.__sk_common.skc_state).read(),
                ptr::addr_of!((*u).unix.peer).read(),
            )
        };
        match st {
            SkState::LISTEN => ConnState::Listening,
            SkState::ESTABLISHED if peer.is_null() => ConnState::Target,
            SkState::ESTABLISHED => ConnState::Connected,
            _ => ConnState::Unconnected,
        }
    }

    /// The peer of a connected socket, held by its state.
    ///
    /// # Safety
    ///
    /// As [`Sock::conn_state`]'s, for as long as the borrow lasts.
    pub(super) unsafe fn conn_peer(&self) -> Option<&Sock> {
        // SAFETY: A field of a live socket, written only by `write_conn` (safety
        // requirements): NULL, or a socket of this family whose reference the state
        // holds until it is written again.
        unsafe {
            let p = ptr::addr_of!((*self.unix()).unix.peer).read();
            (!p.is_null()).then(|| Sock::from_raw(p))
        }
    }

    /// Replaces the connection state (`sk_state` and `unix_sock::peer`, which holds the
    /// peer's reference) and returns the old one, with that reference.
    ///
    /// # Safety
    ///
    /// The caller holds the state lock, or is the only one to see the socket (an
    /// embryo being set up), or is `sk_destruct`; and holds no borrow of the state.
    pub(super) unsafe fn write_conn(&self, new: Conn) -> Conn {
        let st = new.tcp_state();
        // The new peer's reference moves into the field.
        let peer = new
            .into_peer()
            .map_or(ptr::null_mut(), |p| ARef::into_raw(p).as_ptr().cast());
        let u = self.unix();
        // SAFETY: Exclusive access to the state (safety requirements); the fields are
        // written as AF_UNIX writes them (WRITE_ONCE), for lockless readers. The old
        // `peer`, set only while connected, holds the reference the old state gets.
        unsafe {
            let old_st = self.conn_state();
            let old_peer = ptr::addr_of!((*u).unix.peer).read();
            ptr::addr_of_mut!((*u).unix.peer).write_volatile(peer);
            ptr::addr_of_mut!((*u).unix.sk.__sk_common.skc_state).write_volatile(st);
            match (old_st, NonNull::new(old_peer)) {
                (ConnState::Connected, Some(p)) => Conn::Connected(ARef::from_raw(p.cast())),
                (ConnState::Listening, _) => Conn::Listening,
                (ConnState::Target, _) => Conn::Target,
                _ => Conn::Unconnected,
            }
        }
    }

    /// `hash` of the socket: changed under the bucket locks, read also without them
    /// (a racy read only picks a bucket to lock and check), so atomic.
    pub(super) fn hash_slot(&self) -> &AtomicU32 {
        // SAFETY: An aligned `u32` field of a live socket, accessed only atomically.
        unsafe { AtomicU32::from_ptr(ptr::addr_of_mut!((*self.unix()).hash)) }
    }

    /// `key` of the socket: written before the socket is linked into a striped table,
    /// read by RCU walkers, so atomic (the link publishes it).
    pub(super) fn key_slot(&self) -> &AtomicU32 {
        // SAFETY: An aligned `u32` field of a live socket, accessed only atomically.
        unsafe { AtomicU32::from_ptr(ptr::addr_of_mut!((*self.unix()).key)) }
    }

    /// The socket's bucket in its netns table (`sk_hash`).
    pub(crate) fn hash(&self) -> u32 {
        self.hash_slot().load(Ordering::Relaxed)
    }

    /// Sets `sk_hash` (under the bucket locks).
    pub(crate) fn set_hash(&self, h: u32) {
        self.hash_slot().store(h, Ordering::Relaxed);
    }

    /// The socket's key in its striped table: the full hash of an abstract name, or
    /// the inode key of a pathname socket.
    pub(crate) fn key(&self) -> u32 {
        self.key_slot().load(Ordering::Relaxed)
    }

    /// Sets the name hash of an abstract name (under the bucket locks, before insertion).
    pub(crate) fn set_name_hash(&self, h: u32) {
        self.key_slot().store(h, Ordering::Relaxed);
    }

    pub(super) fn addr_slot(&self) -> &AtomicPtr<UnixAddress> {
        // SAFETY: `addr` is a pointer-sized, aligned field of a live socket, accessed
        // only atomically (release store, acquire loads).
        unsafe { AtomicPtr::from_ptr(ptr::addr_of_mut!((*self.unix()).unix.addr).cast()) }
    }

    /// The bound address (`smp_load_acquire(&u->addr)`), borrowed: once set, it stays
    /// until the socket is destroyed.
    pub(crate) fn addr_ref(&self) -> Option<&Address> {
        let p = self.addr_slot().load(Ordering::Acquire);
        // SAFETY: A non-NULL `addr` came from `ARef::into_raw` in `publish_addr` and is
        // given back only in `destruct_addr`, when no `&Sock` is left (and, for a socket
        // lookups walk to without a lock, a grace period after: they are over).
        unsafe { p.as_ref() }.map(|a| &**a)
    }

    /// Whether the socket has an address.
    pub(crate) fn has_addr(&self) -> bool {
        self.addr_ref().is_some()
    }

    /// The bound address, with a reference of its own.
    pub(crate) fn addr(&self) -> Option<ARef<UnixAddress>> {
        let p = self.addr_slot().load(Ordering::Acquire);
        // SAFETY: As in `addr_ref`: `p` is NULL or a live address held by the socket.
        unsafe { p.as_ref() }.map(ARef::from)
    }

    /// Publishes the address of an unbound socket (`smp_store_release(&u->addr, ..)`).
    /// Callers hold the bind lock and saw no address under it (an embryo's is set by
    /// `Embryo::set_addr`).
    // Inlined into the bind's rehash, its one caller.
    #[inline(always)]
    pub(crate) fn publish_addr(&self, addr: ARef<UnixAddress>) {
        let new = ARef::into_raw(addr).as_ptr();
        if let Err(new) = self.addr_slot().compare_exchange(
            ptr::null_mut(),
            new,
            Ordering::Release,
            Ordering::Relaxed,
        ) {
            // Already bound (cannot happen under the bind lock): keep the old one.
            // SAFETY: `new` came from `ARef::into_raw` just above.
            drop(unsafe { ARef::from_raw(NonNull::new_unchecked(new)) });
        }
    }

    /// The last of `sk_destruct` (AF_UNIX's `unix_sock_destructor()`), after the
    /// protocol's: empties the receive queue (it finds nothing: release emptied it and
    /// senders check `is_dead` under the state lock), frees the address and counts the
    /// socket out if its last reference did not ([`Sock::count_out`]).
    ///
    /// # Safety
    ///
    /// Only from `sk_destruct` (see [`Sock::destruct_addr`]).
    pub(crate) unsafe fn destruct(&self) {
        // In an RCU callback (softirq), or wherever the last reference went: an embryo
        // would need the protocol's release (table locks, `path_put`): not here.
        // SAFETY: This is `sk_destruct`: the last reference is gone.
        unsafe {
            self.purge_rcvq_destruct(|e| {
                kernel::pr_err!("an embryo left in a destroyed listener's queue\n");
                drop(e);
            })
        };
        // Release left it unconnected, its relay unhooked (`StateGuard::set_conn`); a
        // peer left (none should be) is put here.
        // SAFETY: As above: no one else reaches the socket.
        debug_assert!(unsafe { (*self.peer_wake_entry()).private.is_null() });
        // SAFETY: As above: no one else reaches the socket.
        drop(unsafe { self.write_conn(Conn::Unconnected) });
        // SAFETY: As above.
        unsafe { self.destruct_addr() };
        self.count_out();
    }

    /// Counts the socket out of [`NR_SOCKS`] and `/proc/net/protocols` (undoes the
    /// `+1`s of the protocol's [`nr_socks_inc`] and of `Sock::alloc`/`alloc_embryo`),
    /// once, when AF_UNIX's destructor would run: at its last reference, or at the
    /// free of the last skb charged to it after that ([`SpaceSock::count_out_if_last`]),
    /// else (a free the module does not see) in the destructor.
    pub(super) fn count_out(&self) {
        // SAFETY: `self` is a socket of this family, a `UnixSock`, whose memory is valid.
        let counted_out = unsafe { &(*self.unix()).counted_out };
        if !counted_out.swap(true, Ordering::Relaxed) {
            nr_socks_dec();
            // SAFETY: Undoes the `+1` of `Sock::alloc`/`Sock::alloc_embryo`; the
            // socket's netns lives until its memory is freed.
            unsafe { bindings::afunix_prot_inuse_add(self.as_ptr(), -1) };
        }
    }

    /// Sets the datagram queue limit of a new socket (`sk_max_ack_backlog`, from the
    /// netns's `max_dgram_qlen`), before anyone else sees it (`WRITE_ONCE`).
    pub(crate) fn init_max_ack_backlog(&self, n: u32) {
        // SAFETY: A volatile write of a field of a live socket (WRITE_ONCE).
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_max_ack_backlog).write_volatile(n) };
    }

    /// Frees the address (in the destructor).
    ///
    /// # Safety
    ///
    /// Only from `sk_destruct`: the socket has left every table (each held a
    /// reference) and no skb charged to it is left (the core runs the destructor
    /// after the last one), and no RCU walker's `RcuSock::name` is left (a grace period
    /// passed since the last reference of a socket ever linked where they walk:
    /// `SOCK_RCU_FREE`, [`Sock::mark_rcu_linked`]), so no
    /// `addr_ref`/`sender_addr` borrow can exist.
    pub(super) unsafe fn destruct_addr(&self) {
        let p = self.addr_slot().swap(ptr::null_mut(), Ordering::Acquire);
        if let Some(p) = NonNull::new(p) {
            // SAFETY: `p` came from `ARef::into_raw` in `publish_addr`; no borrow of it
            // is left (safety requirements).
            drop(unsafe { ARef::from_raw(p) });
        }
    }

    /// The socket inode of a pathname socket (only compared), or NULL.
    pub(crate) fn inode_ptr(&self) -> *mut bindings::inode {
        self.inode_slot().load(Ordering::Relaxed)
    }

    /// `inode` of the socket: set before the socket enters the global table, read by
    /// its RCU walkers, so atomic.
    pub(super) fn inode_slot(&self) -> &AtomicPtr<bindings::inode> {
        // SAFETY: An aligned pointer field of a live socket, accessed only atomically.
        unsafe { AtomicPtr::from_ptr(ptr::addr_of_mut!((*self.unix()).inode)) }
    }

    /// The key of a bound pathname socket in the global table (from its inode number,
    /// kept in the socket: the inode itself is only pinned until release), or `None`.
    pub(crate) fn inode_key(&self) -> Option<u32> {
        (!self.inode_ptr().is_null()).then(|| self.key())
    }

    /// The state lock (`UnixSock::lock`).
    pub(super) fn state_lock_ptr(&self) -> *mut bindings::spinlock_t {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.lock) }
    }

    /// The reader mutex (`UnixSock::iolock`).
    pub(super) fn iolock_ptr(&self) -> *mut bindings::mutex {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.iolock) }
    }

    /// The bind mutex (`UnixSock::bindlock`).
    pub(super) fn bindlock_ptr(&self) -> *mut bindings::mutex {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.bindlock) }
    }

    /// `SO_PASSCRED` or `SO_PASSPIDFD` is set (connect and send autobind, credentials
    /// on send and receive); false for a socket without its `struct socket`.
    ///
    /// Callers read their own socket during a call on it, or another socket under its
    /// state lock (which `sock_orphan` and `sock_graft` take).
    #[inline]
    pub(crate) fn passcred(&self) -> bool {
        self.socket_flags_any(&[sock_flag::PASSCRED, sock_flag::PASSPIDFD])
    }

    /// `SO_PASSCRED`, `SO_PASSPIDFD` or `SO_PASSSEC` is set (whether `SO_PASSSEC`
    /// counts is [`Sock::passsec`]'s question), in one load of the flags.
    #[inline]
    pub(crate) fn passcred_or_sec(&self) -> bool {
        self.socket_flags_any(&[
            sock_flag::PASSCRED,
            sock_flag::PASSPIDFD,
            sock_flag::PASSSEC,
        ])
    }

    /// `SO_PASSCRED` alone is set (an `SCM_CREDENTIALS` message on receive).
    pub(crate) fn passcred_only(&self) -> bool {
        self.socket_flag(sock_flag::PASSCRED)
    }

    /// `SO_PASSPIDFD` is set.
    pub(crate) fn passpidfd(&self) -> bool {
        self.socket_flag(sock_flag::PASSPIDFD)
    }

    /// `SO_PASSSEC` is set and counts: only with the kernel's LSM socket hooks
    /// (`scm_has_secdata()`).
    pub(crate) fn passsec(&self) -> bool {
        bindings::AFUNIX_SECURITY_NETWORK != 0 && self.socket_flag(sock_flag::PASSSEC)
    }

    /// `sk->sk_socket`: the socket's `struct socket`, NULL once orphaned (or for an
    /// embryo). Valid while the socket is not orphaned: `sock_orphan` clears it under
    /// the state lock, and a system call on the socket holds it.
    pub(crate) fn raw_socket(&self) -> *mut bindings::socket {
        // SAFETY: A read of a pointer field of a live socket; `READ_ONCE`, as
        // `sk_set_socket` writes it with `WRITE_ONCE` (a caller may hold no lock).
        unsafe { ptr::addr_of!((*self.as_ptr()).sk_socket).read_volatile() }
    }

    /// `test_bit(nr, &sk->sk_socket->flags)`, false without a `struct socket`.
    pub(super) fn socket_flag(&self, nr: u32) -> bool {
        self.socket_flags_any(&[nr])
    }

    /// Whether any of the `SO_PASS*` flags `nrs` is set (since 6.16 they are the
    /// socket's, `sk->sk_scm_recv_flags`, not its `struct socket`'s), in one load.
    #[cfg(kline_7_3)]
    pub(super) fn socket_flags_any(&self, nrs: &[u32]) -> bool {
        let mask = nrs.iter().fold(0u32, |m, &nr| m | 1u32.wrapping_shl(nr));
        // SAFETY: A read of the flags of a live socket.
        unsafe { bindings::afunix_sk_pass_flags(self.as_ptr()) & mask != 0 }
    }

    /// Calls `f` with the socket's `struct socket` (`None` once orphaned, or for an
    /// embryo), under RCU: of another task's socket too, which its release may be
    /// orphaning meanwhile.
    #[inline]
    pub(in crate::api) fn with_socket_rcu<R>(&self, f: impl FnOnce(Option<&Socket>) -> R) -> R {
        let _rcu = RcuReadGuard::new();
        // SAFETY: A `READ_ONCE` of a pointer field of a live socket.
        let sock = unsafe { ptr::addr_of!((*self.as_ptr()).sk_socket).read_volatile() };
        // SAFETY: A `struct socket` is the socket inode's (`struct socket_alloc`), which
        // the VFS frees a grace period after its last reference (`sock_free_inode` is
        // sockfs's `free_inode`): it stays valid while the RCU read lock is held, and
        // the borrow does not leave `f`.
        let sock = (!sock.is_null()).then(|| unsafe { Socket::from_raw(sock) });
        f(sock)
    }

    /// Whether any of the flags `nrs` of the socket's `struct socket` is set (none
    /// without one), in one load.
    #[inline]
    #[cfg(kline_6_12)]
    pub(super) fn socket_flags_any(&self, nrs: &[u32]) -> bool {
        self.with_socket_rcu(|s| s.is_some_and(|s| s.any_flag(nrs)))
    }

    /// The mode of the inode of the socket's `struct socket`
    /// (`SOCK_INODE(sk->sk_socket)->i_mode`), `None` without a `struct socket`.
    pub(crate) fn socket_inode_mode(&self) -> Option<u16> {
        self.with_socket_rcu(|s| {
            // SAFETY: The inode of a `struct socket` valid under RCU (see above) is the
            // same allocation.
            // (`READ_ONCE`: `fchmod` may change it meanwhile.)
            s.map(|s| unsafe {
                ptr::addr_of!((*bindings::afunix_sock_inode(s.as_ptr())).i_mode).read_volatile()
            })
        })
    }

    /// Whether the socket still has its `struct socket` (not orphaned), read once
    /// ([`Sock::raw_socket`]).
    pub(crate) fn has_socket(&self) -> bool {
        !self.raw_socket().is_null()
    }

    /// `refcount_read(&sk->sk_refcnt)`.
    pub(crate) fn refcount(&self) -> u32 {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_sk_refcnt(self.as_ptr()) }
    }

    /// `sock_i_ino()`: the inode number of the socket's `struct socket`, or 0.
    pub(crate) fn i_ino(&self) -> u64 {
        // SAFETY: `self` is a live socket; `sock_i_ino` reads `sk_socket` under
        // `sk_callback_lock`.
        unsafe { bindings::afunix_sock_ino(self.as_ptr()) as u64 }
    }

    /// `sock_sndtimeo()`.
    pub(crate) fn sndtimeo(&self, nonblock: bool) -> isize {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_sndtimeo(self.as_ptr(), nonblock) }
    }

    /// `sk_peek_offset(sk, flags)`: where a `MSG_PEEK` starts (`SO_PEEK_OFF`), or 0.
    pub(crate) fn peek_offset(&self, flags: MsgFlags) -> i32 {
        // As the inline: without `MSG_PEEK`, 0 (checked here: no call).
        if !flags.has(MsgFlags::PEEK) {
            return 0;
        }
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_peek_offset(self.as_ptr(), flags.raw() as c_int) }
    }

    /// `sk_peek_offset_fwd()`: a peek read `n` more bytes.
    pub(crate) fn peek_offset_fwd(&self, n: usize) {
        // SAFETY: `self` is a live socket; callers hold its reader lock.
        unsafe { bindings::afunix_peek_offset_fwd(self.as_ptr(), n as c_int) };
    }

    /// `sk_peek_offset_bwd()`: a read consumed `n` bytes.
    pub(crate) fn peek_offset_bwd(&self, n: usize) {
        // SAFETY: `self` is a live socket; callers hold its reader lock.
        unsafe { bindings::afunix_peek_offset_bwd(self.as_ptr(), n as c_int) };
    }

    /// `SIOCOUTQ`: bytes of this socket's skbs not yet freed (`sk_wmem_alloc_get`).
    pub(crate) fn outq_len(&self) -> i64 {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_outq_len(self.as_ptr()) as i64 }
    }

    /// `SIOCUNIXFILE`: a new `O_PATH` fd of a pathname socket's inode
    /// (`unix_open_file()`): `CAP_NET_ADMIN` in the socket's netns needed.
    pub(crate) fn open_file(&self) -> Result<i32> {
        // SAFETY: `self` is a live socket, which holds its netns, and a netns holds
        // its user namespace.
        let admin = unsafe {
            let net = bindings::afunix_sock_net(self.as_ptr());
            bindings::ns_capable((*net).user_ns, bindings::CAP_NET_ADMIN as c_int)
        };
        if !admin {
            return Err(kernel::error::code::EPERM);
        }
        if !self.has_addr() {
            return Err(kernel::error::code::ENOENT);
        }
        self.path()
            .ok_or(kernel::error::code::ENOENT)?
            .open_o_path()
    }

    pub(super) fn path_slot(&self) -> *mut bindings::path {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.path) }
    }

    /// The path of a pathname socket (or of one accepted from it), with references of
    /// its own, or `None`.
    pub(crate) fn path(&self) -> Option<HeldPath> {
        let _g = self.lock();
        // SAFETY: `path` is guarded by the state lock (held); a set path holds its
        // mount and dentry, so they are live.
        unsafe { HeldPath::get(self.path_slot()) }
    }

    /// `UNIX_DIAG_VFS`: the socket file's inode number and device, for a pathname socket
    /// (and one accepted from it).
    pub(crate) fn vfs_ino_dev(&self) -> Option<(u32, u32)> {
        let _g = self.lock();
        let p = self.path_slot();
        // SAFETY: `path` is guarded by the state lock (held); a set path holds its
        // dentry, whose inode and super block are live.
        unsafe {
            if (*p).dentry.is_null() {
                return None;
            }
            let (mut ino, mut dev) = (0u32, 0u32);
            bindings::afunix_path_ino_dev(p, &mut ino, &mut dev);
            Some((ino, dev))
        }
    }

    /// Records the socket inode's path, inode and its key in the global table in a
    /// socket being bound (under its bind lock, before it enters the global table);
    /// the path's references move into the socket.
    pub(crate) fn set_path(&self, path: HeldPath, inode: *mut bindings::inode, key: u32) {
        // The address is already published: `SIOCUNIXFILE` may read the path (under the
        // state lock) from now on.
        let _g = self.lock();
        // SAFETY: `path` is guarded by the state lock (held).
        unsafe { self.path_slot().write(path.into_raw()) };
        // Read by lookups only once the socket is in the global table, after this; the
        // link publishes them. `inode` is the live inode of `path`'s dentry (callers).
        self.inode_slot().store(inode, Ordering::Relaxed);
        self.key_slot().store(key, Ordering::Relaxed);
    }

    /// Takes `sk_peer_lock`, which guards the credentials.
    pub(super) fn peer_lock(&self) -> SpinGuard {
        // SAFETY: `sk_peer_lock` of a live socket, initialised by `sock_init_data`; no
        // lock is taken under it ([`crate::api`], "Lock order").
        unsafe { SpinGuard::lock(ptr::addr_of_mut!((*self.as_ptr()).sk_peer_lock)) }
    }

    /// Wakes one task waiting on `peer_wait` (a connect waiting for backlog room).
    pub(crate) fn wake_peer_wait_one(&self) {
        // SAFETY: `peer_wait` of a live socket of this family.
        unsafe { bindings::afunix_wake_up_interruptible(self.peer_wait()) };
    }

    /// Whether `sk`'s peer is `other` (a lockless compare: the pointer is not followed).
    pub(crate) fn peer_is(&self, other: &Sock) -> bool {
        // SAFETY: A volatile read of a pointer field of a live socket (READ_ONCE).
        let p = unsafe { ptr::addr_of!((*self.unix()).unix.peer).read_volatile() };
        core::ptr::eq(p, other.as_ptr())
    }

    /// `READ_ONCE(sk->sk_max_ack_backlog)`: the datagram queue limit.
    pub(crate) fn max_ack_backlog(&self) -> u32 {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        unsafe { ptr::addr_of!((*self.as_ptr()).sk_max_ack_backlog).read_volatile() }
    }

    /// The socket type's number (`SOCK_STREAM`, `SOCK_DGRAM` or `SOCK_SEQPACKET`), for
    /// hashing and reporting.
    pub(crate) fn sk_type(&self) -> u16 {
        // SAFETY: `sk_type` is set at creation and never changes.
        unsafe { (*self.as_ptr()).sk_type }
    }

    /// The socket type.
    pub(crate) fn kind(&self) -> Kind {
        match self.sk_type() {
            sock_type::STREAM => Kind::Stream,
            sock_type::SEQPACKET => Kind::Seqpacket,
            // Only these three are created (`SOCK_RAW` becomes `SOCK_DGRAM`).
            _ => Kind::Dgram,
        }
    }

    /// Whether this is a connection-oriented socket (stream or seqpacket).
    pub(crate) fn is_connection_oriented(&self) -> bool {
        self.kind() != Kind::Dgram
    }

    /// `READ_ONCE(sk->sk_state)`.
    pub(crate) fn state(&self) -> SkState {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        let raw = unsafe { ptr::addr_of!((*self.as_ptr()).__sk_common.skc_state).read_volatile() };
        SkState::from_raw(raw)
    }

    /// `READ_ONCE(sk->sk_shutdown)`.
    pub(crate) fn shutdown(&self) -> Shutdown {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        Shutdown(unsafe { ptr::addr_of!((*self.as_ptr()).sk_shutdown).read_volatile() })
    }

    /// `READ_ONCE(sk->sk_err)`.
    pub(crate) fn err(&self) -> i32 {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        unsafe { ptr::addr_of!((*self.as_ptr()).sk_err).read_volatile() }
    }

    /// `READ_ONCE(sk->sk_sndbuf)`.
    pub(crate) fn sndbuf(&self) -> i32 {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        unsafe { ptr::addr_of!((*self.as_ptr()).sk_sndbuf).read_volatile() }
    }

    /// Bytes of this socket's skbs in flight (`sk_wmem_alloc`).
    pub(crate) fn wmem_alloc(&self) -> u32 {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_wmem_alloc(self.as_ptr()) }
    }

    /// `sock_flag(sk, nr)`.
    pub(super) fn sock_flag(&self, nr: u32) -> bool {
        // SAFETY: `sk_flags` (at its offset) of a live socket; read once, racing with
        // `sock_set_flag`'s `__set_bit` as C's `sock_flag` does.
        unsafe {
            let flags = self
                .as_ptr()
                .byte_add(bindings::AFUNIX_SK_FLAGS_OFFSET as usize);
            test_bit(nr, flags.cast())
        }
    }

    fn rcu_state(&self) -> &AtomicU8 {
        // SAFETY: `self` is a live socket of this family, a `UnixSock`; the field is
        // only accessed atomically.
        unsafe { &(*self.unix()).rcu }
    }

    /// Before a link into a chain that lookups walk under RCU ([`crate::api::list`]):
    /// the socket then stays allocated a grace period past its last reference
    /// (`SOCK_RCU_FREE`). `EINVAL` if its release made it freed at once.
    pub(in crate::api) fn mark_rcu_linked(&self) -> Result {
        if self.rcu_state().fetch_or(RCU_LINKED, Ordering::Relaxed) & RCU_RELEASED != 0 {
            return Err(kernel::error::code::EINVAL);
        }
        Ok(())
    }

    /// Whether the socket was ever linked where lookups walk under RCU.
    pub(in crate::api) fn rcu_linked(&self) -> bool {
        self.rcu_state().load(Ordering::Relaxed) & RCU_LINKED != 0
    }

    /// The lock the socket's `sk_node`, or `sk_bind_node`, is linked under
    /// ([`UnixSock::chained`]).
    pub(in crate::api) fn chained(&self, bind_node: bool) -> &AtomicPtr<core::ffi::c_void> {
        // SAFETY: `self` is a live socket of this family, a `UnixSock`; the field is
        // only accessed atomically.
        let slots = unsafe { &(*self.unix()).chained };
        &slots[usize::from(bind_node)]
    }

    /// At release: a socket never linked where lookups walk under RCU is freed at its
    /// last reference, as AF_UNIX's always are (`sock_reset_flag(sk, SOCK_RCU_FREE)`):
    /// no RCU callback, and its slab object is reused warm. A link from now on fails.
    /// (An embryo never accepted has no release of its own and keeps the flag.)
    pub(in crate::api) fn release_rcu(&self) {
        if self.rcu_state().fetch_or(RCU_RELEASED, Ordering::Relaxed) & RCU_LINKED != 0 {
            return;
        }
        // SAFETY: `sk_flags` (at its offset) of a live socket, an aligned `unsigned
        // long`. Its other writers (`sock_set_flag` in `setsockopt`, `sock_orphan`) need
        // the socket's file or run in its release, which is this thread's: the
        // atomic clear races with none of them.
        let flags = unsafe {
            AtomicUsize::from_ptr(
                self.as_ptr()
                    .byte_add(bindings::AFUNIX_SK_FLAGS_OFFSET as usize)
                    .cast(),
            )
        };
        flags.fetch_and(!(1 << bindings::AFUNIX_SOCK_RCU_FREE), Ordering::Relaxed);
    }

    /// `sock_flag(sk, SOCK_DEAD)`: the socket was released.
    pub(crate) fn is_dead(&self) -> bool {
        self.sock_flag(bindings::AFUNIX_SOCK_DEAD)
    }

    /// Whether the addresses this socket returns (getsockname, getpeername, accept, a
    /// receive's `msg_name`) say `AF_UNIX` rather than the family's number: a socket
    /// `tools/afunix-run` made for an AF_UNIX program, and the sockets accepted from it.
    pub(crate) fn as_unix(&self) -> bool {
        // SAFETY: `self` is a live socket of this family, a `UnixSock`; the field is
        // only accessed atomically.
        unsafe { &(*self.unix()).as_unix }.load(Ordering::Relaxed)
    }

    /// Makes the socket report `AF_UNIX` ([`Sock::as_unix`]).
    pub(in crate::api) fn set_as_unix(&self) {
        // SAFETY: As in `as_unix`.
        unsafe { &(*self.unix()).as_unix }.store(true, Ordering::Relaxed);
    }

    /// The byte of option bits the protocol keeps in the socket (zero at creation).
    pub(crate) fn proto_opts(&self) -> &AtomicU8 {
        // SAFETY: `self` is a live socket of this family, a `UnixSock`; the field is
        // only accessed atomically.
        unsafe { &(*self.unix()).opts }
    }

    /// `sock_flag(sk, SOCK_RCVTSTAMP)`: `SO_TIMESTAMP` (or `SO_TIMESTAMPNS`) is set.
    pub(crate) fn rcvtstamp(&self) -> bool {
        self.sock_flag(bindings::AFUNIX_SOCK_RCVTSTAMP)
    }

    /// Whether the socket asked for its errors in poll's priority band too
    /// (`SO_SELECT_ERR_QUEUE`, `SOCK_SELECT_ERR_QUEUE`).
    pub(crate) fn select_err_queue(&self) -> bool {
        self.sock_flag(bindings::AFUNIX_SOCK_SELECT_ERR_QUEUE)
    }

    /// `sock_error()`: takes the pending socket error, if any.
    pub(crate) fn take_error(&self) -> Option<Error> {
        // SAFETY: `self` is a live socket.
        let err = unsafe { bindings::afunix_sock_error(self.as_ptr()) };
        (err < 0).then(|| Error::from_errno(err))
    }

    /// `sk_is_readable()`: a BPF psock has data (never, for this family).
    pub(crate) fn psock_readable(&self) -> bool {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_is_readable(self.as_ptr()) }
    }

    /// `sock_rcvtimeo()`.
    pub(crate) fn rcvtimeo(&self, nonblock: bool) -> isize {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_rcvtimeo(self.as_ptr(), nonblock) }
    }

    /// `sock_rcvlowat()`.
    pub(crate) fn rcvlowat(&self, waitall: bool, len: usize) -> usize {
        let len = c_int::try_from(len).unwrap_or(c_int::MAX);
        // SAFETY: `self` is a live socket.
        let lowat = unsafe { bindings::afunix_rcvlowat(self.as_ptr(), waitall, len) };
        usize::try_from(lowat).unwrap_or(1)
    }

    /// `SO_OOBINLINE` (`sock_flag(sk, SOCK_URGINLINE)`).
    pub(crate) fn urg_inline(&self) -> bool {
        // SAFETY: `self` is a live socket; the flag word is read atomically.
        unsafe { bindings::afunix_sock_urginline(self.as_ptr()) }
    }

    /// `sk_send_sigurg()`: `SIGURG` to the socket's owner (`F_SETOWN`), and `POLL_PRI`
    /// to its async waiters.
    pub(crate) fn send_sigurg(&self) {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::sk_send_sigurg(self.as_ptr()) };
    }

    /// Calls `sk->sk_state_change`.
    pub(crate) fn state_change(&self) {
        // SAFETY: `self` is a live socket; the hook was set by `sock_init_data`.
        unsafe {
            if let Some(f) = (*self.as_ptr()).sk_state_change {
                f(self.as_ptr())
            }
        }
    }

    /// Calls `sk->sk_data_ready`.
    pub(crate) fn data_ready(&self) {
        // SAFETY: `self` is a live socket; the hook was set by `sock_init_data`.
        unsafe {
            if let Some(f) = (*self.as_ptr()).sk_data_ready {
                f(self.as_ptr())
            }
        }
    }

    /// `sk_wake_async()`: SIGIO to the socket's owner, if asked for.
    pub(crate) fn wake_async(&self, how: i32, band: i32) {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_wake_async(self.as_ptr(), how, band) };
    }

    /// Sets `SOCKWQ_ASYNC_NOSPACE`.
    pub(crate) fn set_nospace(&self) {
        // SAFETY: `self` is a live socket, of this task or another: the helper reaches
        // its `sk_wq` under RCU and only if set (an orphaned socket has none).
        unsafe { bindings::afunix_set_nospace(self.as_ptr()) };
    }

    /// Sets (`waiting`) or clears `SOCKWQ_ASYNC_WAITDATA`: a reader sleeps for data, so
    /// the wakeups that bring it (`SOCK_WAKE_WAITD`) send no `SIGIO`.
    pub(crate) fn set_waitdata(&self, waiting: bool) {
        // SAFETY: `self` is a live socket; the helper reaches its `sk_wq` under RCU and
        // only if set (an orphaned socket has none), as `set_nospace`'s.
        unsafe {
            if waiting {
                bindings::afunix_set_waitdata(self.as_ptr());
            } else {
                bindings::afunix_clear_waitdata(self.as_ptr());
            }
        }
    }

    /// `sk_error_report()`: tells the socket's users about `sk_err`.
    pub(crate) fn error_report(&self) {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_error_report(self.as_ptr()) };
    }

    /// The socket's wait queue (`sk_sleep()`).
    pub(crate) fn sleep_queue(&self) -> *mut bindings::wait_queue_head {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_sk_sleep(self.as_ptr()) }
    }

    /// The wait queue datagram writers sleep on (`peer_wait`).
    pub(crate) fn peer_wait(&self) -> *mut bindings::wait_queue_head {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.peer_wq.wait) }
    }

    /// The `peer_wake` entry of the socket (its relay, see [`crate::wakeup`]).
    pub(crate) fn peer_wake_entry(&self) -> *mut bindings::wait_queue_entry {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.peer_wake) }
    }
}

/// A socket in its `sk_write_space` hook: its memory is valid for the call, but its last
/// reference may be gone (the hook runs in the destructor of its last skb), so this
/// gives no `&Sock` (from which a reference could be taken), only what the hook reads.
pub(crate) struct SpaceSock<'a>(&'a Sock);

impl<'a> SpaceSock<'a> {
    /// # Safety
    ///
    /// `sk` is the socket of an `sk_write_space` call, valid for `'a`.
    pub(in crate::api) unsafe fn new(sk: &'a Sock) -> SpaceSock<'a> {
        SpaceSock(sk)
    }

    /// The socket, for the other files of `api/` (which take no reference to it).
    pub(in crate::api) fn sock(&self) -> &'a Sock {
        self.0
    }

    /// After the protocol's hook, in `sock_wfree` (which keeps one byte of the skb
    /// charged across the hook): when the socket's last reference is gone and that byte
    /// is all that is charged, the core frees the socket as the hook returns, so it is
    /// counted out now ([`Sock::count_out`]), where AF_UNIX's destructor counts it.
    pub(in crate::api) fn count_out_if_last(&self) {
        // SAFETY: The memory of the socket is valid for the hook (type invariant).
        let refs = unsafe { bindings::afunix_sock_refcnt(self.0.as_ptr()) };
        if refs == 0 && self.0.wmem_alloc() == 1 {
            self.0.count_out();
        }
    }

    /// `READ_ONCE(sk->sk_state)`.
    pub(crate) fn state(&self) -> SkState {
        self.0.state()
    }

    /// Bytes of this socket's skbs in flight (`sk_wmem_alloc`).
    pub(crate) fn wmem_alloc(&self) -> u32 {
        self.0.wmem_alloc()
    }

    /// `READ_ONCE(sk->sk_sndbuf)`.
    pub(crate) fn sndbuf(&self) -> i32 {
        self.0.sndbuf()
    }

    /// `sk_wake_async()`.
    pub(crate) fn wake_async(&self, how: i32, band: i32) {
        self.0.wake_async(how, band)
    }
}
