// SPDX-License-Identifier: GPL-2.0

//! Sockets and skbs: the module's socket ([`UnixSock`], AF_UNIX's `struct unix_sock`
//! first), its connection state ([`Conn`]) and locks as guards ([`StateGuard`],
//! [`IoGuard`], [`BindGuard`], [`RcvQueue`]), `struct socket` ([`Socket`]), owned and
//! borrowed skbs with the module's control block ([`Skb`], [`SkbView`], [`SkbCb`]), and
//! the small C facts the protocol reads (signals, limits, module parameters).
//!
//! Other parts of the C API the protocol uses have files of their own in `api/` (the
//! message header in [`crate::api::msg`], wait queues in [`crate::api::wait`], the
//! collector's walks in [`crate::api::inflight`], ...).

use crate::api::addr::{Address, UnixAddress};
use crate::api::bindings;
use crate::api::cred::{same_pid, Creds, Kgid, Kuid, Pid};
use crate::api::error::{to_result, Errno, EMSGSIZE};
use crate::api::file::{FdList, Fds};
pub(crate) use crate::api::msg::Msg;
use crate::api::sync::SpinGuard;
use crate::api::vfs::HeldPath;
use core::cell::UnsafeCell;
use core::ffi::c_int;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicI64, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use kernel::error::{Error, Result};
use kernel::ffi::{c_long, c_ulong};
use kernel::types::{ARef, AlwaysRefCounted, Opaque};

/// The type of a wait queue entry's wake function (`wait_queue_func_t`), as a socket's
/// `peer_wake` has one ([`crate::api::wait::RelayAdapter`]).
pub(crate) type WaitFunc = unsafe extern "C" fn(
    *mut bindings::wait_queue_entry,
    core::ffi::c_uint,
    c_int,
    *mut core::ffi::c_void,
) -> c_int;

/// `sk_state` values (`include/net/tcp_states.h`), as AF_UNIX uses them.
pub(crate) mod state {
    /// Connected (socketpair, accepted or connected socket).
    pub(crate) const ESTABLISHED: u8 = 1;
    /// Not connected (the initial state) or closed.
    pub(crate) const CLOSE: u8 = 7;
    /// Listening.
    pub(crate) const LISTEN: u8 = 10;
}

/// `sk_shutdown` bits.
pub(crate) mod shut {
    /// No more receptions.
    pub(crate) const RCV: u8 = 1;
    /// No more sends.
    pub(crate) const SEND: u8 = 2;
    /// Both.
    pub(crate) const MASK: u8 = 3;
}

/// The bits of `UnixSock::opts`: socket options upstream AF_UNIX added after 6.12.
pub(crate) mod opt {
    /// `SO_PASSRIGHTS` (upstream 6.16): `SCM_RIGHTS` accepted.
    pub(crate) const PASS_RIGHTS: u8 = 1;
    /// `SO_INQ` (upstream 6.17): `SCM_INQ` on every successful stream receive.
    pub(crate) const RECVMSG_INQ: u8 = 2;
    /// Not an option: the socket is counted out of [`super::NR_SOCKS`] and
    /// `/proc/net/protocols` ([`super::Sock::count_out`]).
    pub(super) const COUNTED_OUT: u8 = 0x80;
}

/// Live sockets of this family, embryos included (AF_UNIX's `unix_nr_socks`): raised
/// by [`nr_socks_inc`] before one is allocated, lowered by [`nr_socks_dec`] when that
/// allocation fails, and when a socket's last reference goes
/// ([`Sock::count_out`]).
static NR_SOCKS: AtomicI64 = AtomicI64::new(0);

/// Counts a socket about to be allocated; the new count.
pub(crate) fn nr_socks_inc() -> i64 {
    NR_SOCKS.fetch_add(1, Ordering::Relaxed) + 1
}

/// Gives back a count of [`nr_socks_inc`] (the allocation failed or was refused).
pub(crate) fn nr_socks_dec() {
    NR_SOCKS.fetch_sub(1, Ordering::Relaxed);
}

/// Socket types (`enum sock_type`), as user space passes them: the architecture's.
pub(crate) mod sock_type {
    use crate::api::bindings;

    /// `SOCK_STREAM`.
    pub(crate) const STREAM: u16 = bindings::AFUNIX_SOCK_STREAM as u16;
    /// `SOCK_DGRAM`.
    pub(crate) const DGRAM: u16 = bindings::AFUNIX_SOCK_DGRAM as u16;
    /// `SOCK_RAW`.
    pub(crate) const RAW: u16 = bindings::AFUNIX_SOCK_RAW as u16;
    /// `SOCK_SEQPACKET`.
    pub(crate) const SEQPACKET: u16 = bindings::AFUNIX_SOCK_SEQPACKET as u16;
}

/// `msg_flags` bits used by the protocol.
pub(crate) mod msg {
    /// `MSG_OOB`.
    pub(crate) const OOB: u32 = 1;
    /// `MSG_PEEK`.
    pub(crate) const PEEK: u32 = 2;
    /// `MSG_CTRUNC`.
    pub(crate) const CTRUNC: u32 = crate::api::bindings::AFUNIX_MSG_CTRUNC;
    /// `MSG_TRUNC`.
    pub(crate) const TRUNC: u32 = 0x20;
    /// `MSG_DONTWAIT`.
    pub(crate) const DONTWAIT: u32 = 0x40;
    /// `MSG_WAITALL`.
    pub(crate) const WAITALL: u32 = 0x100;
    /// `MSG_NOSIGNAL`.
    pub(crate) const NOSIGNAL: u32 = 0x4000;
    /// `MSG_CMSG_COMPAT`: a 32-bit caller (control messages in the compat layout).
    pub(crate) const CMSG_COMPAT: u32 = crate::api::bindings::AFUNIX_MSG_CMSG_COMPAT;
    /// `MSG_SPLICE_PAGES`: the message's iterator holds pages to take, not copy (set
    /// only by the kernel: `splice()` and `sendfile()` into the socket).
    pub(crate) const SPLICE_PAGES: u32 = crate::api::bindings::AFUNIX_MSG_SPLICE_PAGES;
}

/// `sock->flags` bits that an accepted socket inherits (`include/linux/net.h`).
mod sock_flag {
    use crate::api::bindings;

    /// `SOCK_PASSCRED`.
    pub(super) const PASSCRED: u32 = bindings::SOCK_PASSCRED;
    /// `SOCK_PASSSEC`.
    pub(super) const PASSSEC: u32 = bindings::SOCK_PASSSEC;
    /// `SOCK_PASSPIDFD`.
    pub(super) const PASSPIDFD: u32 = bindings::SOCK_PASSPIDFD;
    /// `SOCK_CUSTOM_SOCKOPT`: `SOL_SOCKET` options go to the family's `setsockopt`.
    pub(super) const CUSTOM_SOCKOPT: u32 = bindings::SOCK_CUSTOM_SOCKOPT;
}

/// The ioctls of the family (`unix_ioctl()`).
pub(crate) mod ioctl {
    use crate::api::bindings;

    /// `SIOCOUTQ`.
    pub(crate) const SIOCOUTQ: u32 = bindings::AFUNIX_SIOCOUTQ;
    /// `SIOCINQ`.
    pub(crate) const SIOCINQ: u32 = bindings::AFUNIX_SIOCINQ;
    /// `SIOCUNIXFILE`.
    pub(crate) const SIOCUNIXFILE: u32 = bindings::AFUNIX_SIOCUNIXFILE;
    /// `SIOCATMARK`.
    pub(crate) const SIOCATMARK: u32 = bindings::AFUNIX_SIOCATMARK;
}

/// `PAGE_SIZE`, from the kernel's headers.
pub(crate) const PAGE_SIZE: usize = bindings::AFUNIX_PAGE_SIZE as usize;

/// `MAX_SKB_FRAGS` (`CONFIG_MAX_SKB_FRAGS`), from the kernel's headers.
pub(crate) const MAX_SKB_FRAGS: usize = bindings::AFUNIX_MAX_SKB_FRAGS as usize;

/// `sk_wake_async()` arguments.
pub(crate) mod wake_async {
    /// `SOCK_WAKE_WAITD`.
    pub(crate) const WAITD: i32 = 1;
    /// `SOCK_WAKE_SPACE`.
    pub(crate) const SPACE: i32 = 2;
    /// `POLL_IN`.
    pub(crate) const POLL_IN: i32 = 1;
    /// `POLL_OUT`.
    pub(crate) const POLL_OUT: i32 = 2;
    /// `POLL_HUP`.
    pub(crate) const POLL_HUP: i32 = 6;
}

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
/// - `lock`: the state lock (`unix_state_lock()`), which guards `conn` (and so `peer`),
///   `path` and the shutdown/state transitions;
/// - `peer`: the peer of `conn`, a copy without a reference of its own, written
///   (`WRITE_ONCE`) with `conn` under `lock`, read without it only to compare;
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
/// `listener` and `vertex` (AF_UNIX's collector, which never sees this family's sockets)
/// stay NULL. (The module's fields after `unix` fill the 64 bytes that `UnixSock` may
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
    /// The options upstream added after 6.12, bits of [`opt`]: `SO_PASSRIGHTS` (6.16's
    /// `sk_scm_rights`: the socket accepts `SCM_RIGHTS`; read by senders under the
    /// receiver's state lock) and `SO_INQ` (6.17's `recvmsg_inq`; read by the socket's
    /// own receives). Written by `setsockopt` without a lock: a relaxed atomic, as
    /// upstream's unlocked bits.
    opts: AtomicU8,
    /// The collector's fields, under its lock ([`InflightList`]): the link in its list
    /// of sockets in flight, while `inflight` is not 0.
    pub(crate) gc_link: bindings::list_head,
    /// References to this socket's file held by fd lists in flight.
    pub(crate) inflight: kernel::ffi::c_ulong,
    /// The connection state, under `unix.lock`.
    conn: UnsafeCell<Conn>,
}

// AF_UNIX's slab object is `struct unix_sock`; the module's may be at most 64 bytes
// larger.
const _: () =
    assert!(core::mem::size_of::<UnixSock>() <= core::mem::size_of::<bindings::unix_sock>() + 64);

/// The connection state of a socket: AF_UNIX's `sk_state` with `unix_peer()`, held
/// under the state lock ([`StateGuard`]). `sk_state` is written with it, for the core
/// and lockless readers ([`Sock::state`]).
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
    fn tcp_state(&self) -> u8 {
        match self {
            Conn::Unconnected => state::CLOSE,
            Conn::Listening => state::LISTEN,
            Conn::Connected(_) | Conn::Target => state::ESTABLISHED,
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

/// The module's part of an skb's control block (`skb->cb`).
#[repr(C)]
pub(crate) struct SkbCb {
    /// Bytes of a stream skb already read (AF_UNIX's `UNIXCB(skb).consumed`).
    pub(crate) consumed: kernel::ffi::c_uint,
    /// The skb carries an embryo to its listener, and the embryo's reference.
    pub(crate) embryo: kernel::ffi::c_uint,
    /// The sender's credentials (AF_UNIX's `UNIXCB(skb).pid`): a reference to a pid,
    /// or NULL for an skb without credentials; put by the skb's destructor.
    pub(crate) pid: *mut bindings::pid,
    /// With `pid`, the credentials' user (`INVALID_UID` without credentials).
    pub(crate) uid: bindings::kuid_t,
    /// With `pid`, the credentials' group (`INVALID_GID` without credentials).
    pub(crate) gid: bindings::kgid_t,
    /// The files of `SCM_RIGHTS` (AF_UNIX's `UNIXCB(skb).fp`): an fd list in flight,
    /// accounted by [`crate::gc`], or NULL. Read by the collector under its lock and
    /// the queue's lock; taken from a queued skb only under both the reader lock and
    /// the collector's lock.
    pub(crate) fp: *mut bindings::scm_fp_list,
    /// With `fp`, the sending user, whose count of fds in flight includes them.
    pub(crate) fp_uid: bindings::kuid_t,
    /// The sender's LSM security id (AF_UNIX's `UNIXCB(skb).secid`), 0 without one.
    pub(crate) secid: u32,
    /// Not 0: coalesced writes may be appended to the skb, which one made
    /// ([`Skb::alloc_from_bytes`]): linear, without fds, not the out-of-band byte (both
    /// are boundaries a read stops at). Set before the skb is queued; cleared by its
    /// reader under the state lock ([`IoGuard::close_to_appends`]).
    pub(crate) open: u32,
}

// The module's part must fit in the skb's control block.
const _: () = assert!(core::mem::size_of::<SkbCb>() <= bindings::AFUNIX_SKB_CB_SIZE as usize);

/// A socket of this family: the `struct sock` inside a `UnixSock`.
///
/// # Invariants
///
/// `self.0` is a `struct sock` allocated by [`Sock::alloc`] or [`Sock::alloc_embryo`]
/// (so it is the first field of a `UnixSock` initialised by
/// [`Sock::init_unix`]), and its refcount is non-zero while a `&Sock` exists, except in
/// the two hooks the core calls on a socket whose last reference is gone while its
/// memory stays: `sk_destruct` and `sk_write_space` (from the destructor of an skb
/// charged to it), in `dec_ref` after the last reference went (to count the socket
/// out), and lock-free lookups (`hash.rs`'s `RcuSock`), which read it under
/// RCU and take a reference only with [`Sock::try_get`]. None of them takes a
/// reference with `inc_ref`.
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

    unsafe fn dec_ref(obj: NonNull<Self>) {
        let sk = obj.as_ptr().cast::<bindings::sock>();
        // SAFETY: The caller owns a reference, which it gives up here (`sock_put`).
        // When it was the last, the memory stays until `sk_free` (a grace period
        // more: `SOCK_RCU_FREE`), and no one can take a new reference.
        unsafe {
            if !bindings::afunix_sock_refcnt_dec_and_test(sk) {
                return;
            }
            // The destructor follows now unless skbs are still charged to the socket
            // (then it follows the last one's `sock_wfree`): AF_UNIX counts the socket
            // out there, not a grace period later.
            if bindings::afunix_wmem_alloc(sk) == 1 {
                Sock::from_raw(sk).count_out();
            }
            bindings::sk_free(sk);
        }
    }
}

impl Sock {
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

    pub(super) fn unix(&self) -> *mut UnixSock {
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
    pub(crate) fn alloc_embryo(&self) -> Result<Embryo> {
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
        Ok(Embryo(unsafe {
            ARef::from_raw(NonNull::new_unchecked(sk.cast()))
        }))
    }

    /// Initialises the module's part of a new socket (AF_UNIX's `unix_create1()`): its
    /// locks and `peer_wait`, no peer, and the `peer_wake` relay `relay`, not hooked.
    ///
    /// # Safety
    ///
    /// `sk` is the first field of a `UnixSock` just allocated by `sk_alloc`,
    /// not yet visible to anyone else; `relay` is a wake function for its `peer_wake`
    /// ([`crate::api::wait::RelayAdapter`]).
    unsafe fn init_unix(sk: *mut bindings::sock, relay: Option<WaitFunc>) {
        // CAST: `sk` is the first field of a `UnixSock` (safety requirements).
        let u = sk.cast::<UnixSock>();
        // SAFETY: `u` is valid and nobody else sees it (safety requirements); each
        // initialiser runs once, before any use of what it initialises. The last three
        // stores are `init_waitqueue_func_entry(&u->peer_wake, relay)`.
        unsafe {
            // Freed a grace period after the last reference goes: lookups walk the
            // tables under RCU (`hash.rs`).
            bindings::afunix_sock_set_rcu_free(sk);
            bindings::afunix_init_state_lock(ptr::addr_of_mut!((*u).unix.lock));
            (*u).unix.peer = ptr::null_mut();
            ptr::addr_of_mut!((*u).conn).write(UnsafeCell::new(Conn::Unconnected));
            ptr::addr_of_mut!((*u).opts).write(AtomicU8::new(opt::PASS_RIGHTS));
            bindings::afunix_init_iolock(ptr::addr_of_mut!((*u).unix.iolock));
            bindings::afunix_init_bindlock(ptr::addr_of_mut!((*u).unix.bindlock));
            bindings::afunix_init_peer_wait(ptr::addr_of_mut!((*u).unix.peer_wq.wait));
            (*u).unix.peer_wake.flags = 0;
            (*u).unix.peer_wake.private = ptr::null_mut();
            (*u).unix.peer_wake.func = relay;
        }
    }

    fn conn_cell(&self) -> &UnsafeCell<Conn> {
        // SAFETY: `conn` of a live socket of this family, initialised by `init_unix`.
        unsafe { &*ptr::addr_of!((*self.unix()).conn) }
    }

    /// Replaces the connection state, and `sk_state` and `unix_sock::peer` with it.
    ///
    /// # Safety
    ///
    /// The caller holds the state lock, or is the only one to see the socket (an
    /// embryo being set up), or is `sk_destruct`; and holds no borrow of the state.
    unsafe fn write_conn(&self, new: Conn) -> Conn {
        let st = new.tcp_state();
        let peer = new.peer().map_or(ptr::null_mut(), Sock::as_ptr);
        let u = self.unix();
        // SAFETY: Exclusive access to `conn` (safety requirements); the two copies are
        // written as AF_UNIX writes them (WRITE_ONCE), for lockless readers.
        unsafe {
            let old = ptr::replace(self.conn_cell().get(), new);
            ptr::addr_of_mut!((*u).unix.peer).write_volatile(peer);
            ptr::addr_of_mut!((*u).unix.sk.__sk_common.skc_state).write_volatile(st);
            old
        }
    }

    /// The socket's bucket in its netns table (`sk_hash`).
    pub(crate) fn hash(&self) -> u32 {
        // SAFETY: A plain read of a field that changes only under the socket's bucket
        // lock(s) and bind lock, which the callers hold (or a racy read is harmless:
        // `Bucket::of` stays in range).
        unsafe { ptr::addr_of!((*self.unix()).hash).read_volatile() }
    }

    /// Sets `sk_hash` (under the bucket locks).
    pub(crate) fn set_hash(&self, h: u32) {
        // SAFETY: Callers hold the old and the new bucket's locks.
        unsafe { ptr::addr_of_mut!((*self.unix()).hash).write_volatile(h) };
    }

    /// The socket's key in its striped table: the full hash of an abstract name, or
    /// the inode key of a pathname socket.
    pub(crate) fn key(&self) -> u32 {
        // SAFETY: Written once, before the socket enters its abstract bucket (under that
        // bucket's lock) or the global table (under the bind lock); the link
        // (`rcu_assign_pointer`) publishes it to RCU walkers.
        unsafe { ptr::addr_of!((*self.unix()).key).read() }
    }

    /// Sets the name hash of an abstract name (under the bucket locks, before insertion).
    pub(crate) fn set_name_hash(&self, h: u32) {
        // SAFETY: Callers hold the bucket locks and the bind lock.
        unsafe { ptr::addr_of_mut!((*self.unix()).key).write(h) };
    }

    fn addr_slot(&self) -> &AtomicPtr<UnixAddress> {
        // SAFETY: `addr` is a pointer-sized, aligned field of a live socket, accessed
        // only atomically (release store, acquire loads).
        unsafe { AtomicPtr::from_ptr(ptr::addr_of_mut!((*self.unix()).unix.addr).cast()) }
    }

    /// The bound address (`smp_load_acquire(&u->addr)`), borrowed: once set, it stays
    /// until the socket is destroyed.
    pub(crate) fn addr_ref(&self) -> Option<&Address> {
        let p = self.addr_slot().load(Ordering::Acquire);
        // SAFETY: A non-NULL `addr` came from `ARef::into_raw` in `publish_addr` and is
        // given back only in `destruct_addr`, when no `&Sock` is left (a grace period
        // after the last reference: lock-free lookups are over).
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
    /// Callers hold the bind lock and saw no address under it, or set up an embryo
    /// nobody else sees.
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
    /// senders check `is_dead` under the state lock), frees the address and counts the socket out if its last reference did not
    /// ([`Sock::count_out`]).
    ///
    /// # Safety
    ///
    /// Only from `sk_destruct` (see [`Sock::destruct_addr`]).
    pub(crate) unsafe fn destruct(&self) {
        // In an RCU callback (softirq): an embryo would need the protocol's release
        // (table locks, `path_put`): not here.
        // SAFETY: This is `sk_destruct`: the last reference is gone.
        unsafe {
            self.purge_rcvq_destruct(|e| {
                kernel::pr_err!("an embryo left in a destroyed listener's queue\n");
                drop(e);
            })
        };
        // Release left it unconnected; a peer left (none should be) is put here.
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
    fn count_out(&self) {
        // SAFETY: `self` is a socket of this family, a `UnixSock`, whose memory is valid.
        let opts = unsafe { &(*self.unix()).opts };
        if opts.fetch_or(opt::COUNTED_OUT, Ordering::Relaxed) & opt::COUNTED_OUT == 0 {
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
    /// after the last one), and a grace period passed since the last reference went
    /// (`SOCK_RCU_FREE`: no RCU walker's `RcuSock::name` is left), so no
    /// `addr_ref`/`sender_addr` borrow can exist.
    unsafe fn destruct_addr(&self) {
        let p = self.addr_slot().swap(ptr::null_mut(), Ordering::Acquire);
        if let Some(p) = NonNull::new(p) {
            // SAFETY: `p` came from `ARef::into_raw` in `publish_addr`; no borrow of it
            // is left (safety requirements).
            drop(unsafe { ARef::from_raw(p) });
        }
    }

    /// The socket inode of a pathname socket (only compared), or NULL.
    pub(crate) fn inode_ptr(&self) -> *mut bindings::inode {
        // SAFETY: Set before the socket enters the global table and never changed.
        unsafe { ptr::addr_of!((*self.unix()).inode).read() }
    }

    /// The key of a bound pathname socket in the global table (from its inode number,
    /// kept in the socket: the inode itself is only pinned until release), or `None`.
    pub(crate) fn inode_key(&self) -> Option<u32> {
        (!self.inode_ptr().is_null()).then(|| self.key())
    }

    /// The state lock (`UnixSock::lock`).
    fn state_lock_ptr(&self) -> *mut bindings::spinlock_t {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.lock) }
    }

    /// The reader mutex (`UnixSock::iolock`).
    fn iolock_ptr(&self) -> *mut bindings::mutex {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.iolock) }
    }

    /// The bind mutex (`UnixSock::bindlock`).
    fn bindlock_ptr(&self) -> *mut bindings::mutex {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { ptr::addr_of_mut!((*self.unix()).unix.bindlock) }
    }

    /// Takes the bind lock (interruptible: `EINTR` on a signal).
    pub(crate) fn bind_lock(&self) -> Result<BindGuard<'_>> {
        // SAFETY: `self` is a live socket of this family.
        to_result(unsafe { bindings::afunix_mutex_lock_interruptible(self.bindlock_ptr()) })?;
        // INVARIANT: Locked just above.
        Ok(BindGuard { sk: self })
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
        // SAFETY: A read of a pointer field of a live socket.
        unsafe { (*self.as_ptr()).sk_socket }
    }

    /// `test_bit(nr, &sk->sk_socket->flags)`, false without a `struct socket`.
    fn socket_flag(&self, nr: u32) -> bool {
        self.socket_flags_any(&[nr])
    }

    /// Whether any of the flags `nrs` of the socket's `struct socket` is set (none
    /// without one), in one load.
    #[inline]
    fn socket_flags_any(&self, nrs: &[u32]) -> bool {
        let sock = self.raw_socket();
        if sock.is_null() {
            return false;
        }
        // SAFETY: A non-NULL `sk_socket` is the socket's `struct socket`, of this
        // family, which holds it until release (`sock_orphan` clears the field under
        // the state lock; see `passcred`).
        let sock = unsafe { Socket::from_raw(sock) };
        sock.any_flag(nrs)
    }

    /// The mode of the inode of the socket's `struct socket`
    /// (`SOCK_INODE(sk->sk_socket)->i_mode`), `None` without a `struct socket`.
    pub(crate) fn socket_inode_mode(&self) -> Option<u16> {
        let sock = self.raw_socket();
        if sock.is_null() {
            return None;
        }
        // SAFETY: A non-NULL `sk_socket` is the socket's `struct socket`, which holds
        // it until release (as in `Sock::socket_flag`), and whose inode lives as long.
        Some(unsafe { (*bindings::afunix_sock_inode(sock)).i_mode })
    }

    /// Whether the socket still has its `struct socket` (not orphaned); plain read, as
    /// AF_UNIX's `/proc` does, under the state lock.
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
        unsafe { bindings::sock_i_ino(self.as_ptr()) as u64 }
    }

    /// `sock_sndtimeo()`.
    pub(crate) fn sndtimeo(&self, nonblock: bool) -> isize {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_sndtimeo(self.as_ptr(), nonblock) }
    }

    /// `sk_peek_offset(sk, flags)`: where a `MSG_PEEK` starts (`SO_PEEK_OFF`), or 0.
    pub(crate) fn peek_offset(&self, flags: u32) -> i32 {
        // As the inline: without `MSG_PEEK`, 0 (checked here: no call).
        if flags & bindings::MSG_PEEK == 0 {
            return 0;
        }
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_peek_offset(self.as_ptr(), flags as c_int) }
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

    /// Takes the lock of the receive queue.
    pub(super) fn rcvq_lock(&self) -> RcvqGuard<'_> {
        // SAFETY: A field of a live socket.
        let lock = unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue.lock) };
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data`. Only an embryo's queue lock is taken under it (by the
        // collector, `rcvq_lock_embryo`), and that one nested.
        let _lock = unsafe { SpinGuard::lock(lock) };
        RcvqGuard { sk: self, _lock }
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

    fn path_slot(&self) -> *mut bindings::path {
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
    fn queued_embryo_peer(&self) -> Option<&Sock> {
        // SAFETY: `peer` of a queued embryo is stable and holds a reference (above),
        // for as long as the borrow of `self` (the carrier skb, queued) lasts.
        unsafe {
            let p = ptr::addr_of!((*self.unix()).unix.peer).read_volatile();
            NonNull::new(p).map(|p| Sock::from_raw(p.as_ptr()))
        }
    }

    /// Records the socket inode's path, inode and its key in the global table in a
    /// socket being bound (under its bind lock, before it enters the global table);
    /// the path's references move into the socket.
    pub(crate) fn set_path(&self, path: HeldPath, inode: *mut bindings::inode, key: u32) {
        let u = self.unix();
        // The address is already published: `SIOCUNIXFILE` may read the path (under the
        // state lock) from now on.
        let _g = self.lock();
        // SAFETY: `path` is guarded by the state lock (held); `inode` and `key` are read
        // only once the socket is in the global table, after this (a pathname socket is
        // in no striped table before); `inode` is the live inode of `path`'s dentry
        // (callers).
        unsafe {
            self.path_slot().write(path.into_raw());
            ptr::addr_of_mut!((*u).inode).write(inode);
            ptr::addr_of_mut!((*u).key).write(key);
        }
    }

    /// `unix_recvq_full_lockless()`: more queued than the backlog allows.
    pub(crate) fn rcvq_full(&self) -> bool {
        self.rcvq_len() > self.max_ack_backlog()
    }

    /// Takes `sk_peer_lock`, which guards the credentials.
    fn peer_lock(&self) -> SpinGuard {
        // SAFETY: `sk_peer_lock` of a live socket, initialised by `sock_init_data`; no
        // spinlock is taken under it.
        unsafe { SpinGuard::lock(ptr::addr_of_mut!((*self.as_ptr()).sk_peer_lock)) }
    }

    /// Records the calling task as the socket's credentials (listen).
    pub(crate) fn update_peercred(&self) {
        let p = self.as_ptr();
        let g = self.peer_lock();
        // SAFETY: The credentials are guarded by `sk_peer_lock` (held); the old ones'
        // references move out, to be put after unlocking.
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

    /// Drops the path of a pathname socket (on release, out of every table).
    pub(crate) fn release_path(&self) {
        let g = self.lock();
        // SAFETY: `path` is guarded by the state lock (held); its references move out
        // of the socket, which is left without a path.
        let path = unsafe { HeldPath::take(self.path_slot()) };
        drop(g);
        drop(path);
    }

    /// Wakes one task waiting on `peer_wait` (a connect waiting for backlog room).
    pub(crate) fn wake_peer_wait_one(&self) {
        // SAFETY: `peer_wait` of a live socket of this family.
        unsafe { bindings::afunix_wake_up_interruptible(self.peer_wait()) };
    }

    /// `accept`: the next embryo from this listener's queue, waiting unless
    /// `nonblock`; `Ok(None)` when the receive side is shut down.
    pub(crate) fn accept_embryo(&self, nonblock: bool) -> Result<Option<ARef<Sock>>> {
        let flags = if nonblock {
            crate::api::sock::msg::DONTWAIT
        } else {
            0
        };
        loop {
            let Some(skb) = Skb::recv_datagram(self, flags)? else {
                return Ok(None);
            };
            let embryo = skb.take_embryo();
            skb.free_datagram(self);
            if embryo.is_some() {
                return Ok(embryo);
            }
        }
    }

    /// Puts `sock` in charge of this accepted socket (`sock_graft()`), under the state
    /// lock, and gives it the caller's reference.
    pub(crate) fn graft(this: ARef<Sock>, listener: &Socket, sock: &Socket) {
        let _g = this.lock();
        // SAFETY: `sock` is the new socket of an accept call, with no `sk` yet.
        unsafe { (*sock.0.get()).state = bindings::socket_state_SS_CONNECTED };
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
        // SAFETY: As above; the reference moves into `sock` (released in its `release`).
        unsafe { bindings::afunix_sock_graft(this.as_ptr(), sock.0.get()) };
        drop(_g);
        core::mem::forget(this);
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

    /// The socket type (`SOCK_STREAM`, `SOCK_DGRAM` or `SOCK_SEQPACKET`).
    pub(crate) fn sk_type(&self) -> u16 {
        // SAFETY: `sk_type` is set at creation and never changes.
        unsafe { (*self.as_ptr()).sk_type }
    }

    /// Whether this is a connection-oriented socket (stream or seqpacket).
    pub(crate) fn is_connection_oriented(&self) -> bool {
        matches!(self.sk_type(), sock_type::STREAM | sock_type::SEQPACKET)
    }

    /// `READ_ONCE(sk->sk_state)`.
    pub(crate) fn state(&self) -> u8 {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        unsafe { ptr::addr_of!((*self.as_ptr()).__sk_common.skc_state).read_volatile() }
    }

    /// `READ_ONCE(sk->sk_shutdown)`.
    pub(crate) fn shutdown(&self) -> u8 {
        // SAFETY: A volatile read of a field of a live socket (READ_ONCE).
        unsafe { ptr::addr_of!((*self.as_ptr()).sk_shutdown).read_volatile() }
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
    fn sock_flag(&self, nr: u32) -> bool {
        // SAFETY: `sk_flags` (at its offset) of a live socket; read once, racing with
        // `sock_set_flag`'s `__set_bit` as C's `sock_flag` does.
        unsafe {
            let flags = self
                .as_ptr()
                .byte_add(bindings::AFUNIX_SK_FLAGS_OFFSET as usize);
            test_bit(nr, flags.cast())
        }
    }

    /// `sock_flag(sk, SOCK_DEAD)`: the socket was released.
    pub(crate) fn is_dead(&self) -> bool {
        self.sock_flag(bindings::AFUNIX_SOCK_DEAD)
    }

    /// Whether the option bit `bit` ([`opt`]) is set.
    fn opt(&self, bit: u8) -> bool {
        // SAFETY: `self` is a live socket of this family, a `UnixSock`.
        unsafe { (*self.unix()).opts.load(Ordering::Relaxed) & bit != 0 }
    }

    /// Sets or clears the option bit `bit` ([`opt`]).
    fn set_opt(&self, bit: u8, on: bool) {
        // SAFETY: As in `opt`.
        let opts = unsafe { &(*self.unix()).opts };
        if on {
            opts.fetch_or(bit, Ordering::Relaxed);
        } else {
            opts.fetch_and(!bit, Ordering::Relaxed);
        }
    }

    /// Whether the socket accepts `SCM_RIGHTS` (`SO_PASSRIGHTS`, on by default).
    pub(crate) fn pass_rights(&self) -> bool {
        self.opt(opt::PASS_RIGHTS)
    }

    /// Sets `SO_PASSRIGHTS`.
    pub(crate) fn set_pass_rights(&self, on: bool) {
        self.set_opt(opt::PASS_RIGHTS, on);
    }

    /// Whether each receive reports the bytes left (`SO_INQ`, off by default).
    pub(crate) fn recvmsg_inq(&self) -> bool {
        self.opt(opt::RECVMSG_INQ)
    }

    /// Sets `SO_INQ`.
    pub(crate) fn set_recvmsg_inq(&self, on: bool) {
        self.set_opt(opt::RECVMSG_INQ, on);
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

    /// Appends `skb` to the receive queue (counting its fds in `scm_fds:`), under the
    /// queue's lock taken without disabling interrupts: no hard interrupt takes it (as
    /// AF_UNIX's `unix_stream_connect`, which takes it so too).
    pub(crate) fn queue_tail(&self, skb: Skb) {
        let fds = skb.view().fds().map_or(0, |f| f.len() as u32);
        if fds != 0 {
            self.nr_fds().fetch_add(fds, Ordering::Relaxed);
        }
        let q = self.rcvq_lock();
        // SAFETY: The queue's lock is held; the queue takes over the skb.
        unsafe { bindings::afunix_skb_queue_tail_locked(self.rcvq_ptr(), skb.into_raw()) };
        drop(q);
    }

    pub(super) fn oob_slot(&self) -> &AtomicPtr<bindings::sk_buff> {
        // SAFETY: A field of a live socket, only accessed atomically.
        unsafe { AtomicPtr::from_ptr(ptr::addr_of_mut!((*self.unix()).unix.oob_skb)) }
    }

    /// The receive queue (`sk_receive_queue`).
    fn receive_queue(&self) -> *mut bindings::sk_buff_head {
        // SAFETY: A field of a live socket.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue) }
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

    /// Forgets the out-of-band mark (release, before the queue is purged).
    pub(crate) fn clear_oob(&self) {
        let _q = self.rcvq_lock();
        self.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
    }

    /// `scm_fds:` of fdinfo: fds queued and not received yet.
    pub(super) fn nr_fds(&self) -> &core::sync::atomic::AtomicU32 {
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
        if self.state() != state::LISTEN {
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

    /// Frees every skb of the receive queue, handing the embryos of a listener's queue
    /// to `on_embryo`.
    pub(crate) fn purge_rcvq(&self, on_embryo: impl FnMut(ARef<Sock>)) {
        // No out-of-band mark may outlive its skb.
        if self.has_oob() {
            self.clear_oob();
        }
        self.purge_with(bindings::skb_dequeue, on_embryo);
    }

    /// [`Sock::purge_rcvq`] for `sk_destruct`, which runs a grace period after the last
    /// reference went (`SOCK_RCU_FREE`), in an RCU callback (softirq): without the
    /// queue's lock, which is taken with softirqs on everywhere else.
    ///
    /// # Safety
    ///
    /// Only from `sk_destruct`: no one else can reach the queue.
    unsafe fn purge_rcvq_destruct(&self, on_embryo: impl FnMut(ARef<Sock>)) {
        self.purge_with(bindings::afunix_skb_dequeue_unlocked, on_embryo);
    }

    fn purge_with(
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
            let skb = unsafe { Skb::from_raw(skb) };
            let embryo = skb.take_embryo();
            skb.drop_on_close();
            if let Some(e) = embryo {
                on_embryo(e);
            }
        }
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
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_set_nospace(self.as_ptr()) };
    }

    /// Sets (`waiting`) or clears `SOCKWQ_ASYNC_WAITDATA`: a reader sleeps for data, so
    /// the wakeups that bring it (`SOCK_WAKE_WAITD`) send no `SIGIO`.
    pub(crate) fn set_waitdata(&self, waiting: bool) {
        // SAFETY: `self` is a live socket. `sk_set_bit`/`sk_clear_bit` touch its
        // `sk_wq_raw` only with `SOCK_FASYNC` set, which the last `fput`'s
        // `fasync(-1)` clears before the socket is released.
        unsafe {
            if waiting {
                bindings::afunix_set_waitdata(self.as_ptr());
            } else {
                bindings::afunix_clear_waitdata(self.as_ptr());
            }
        }
    }

    /// Records the calling task as the peer credentials (`SO_PEERCRED`).
    ///
    /// Called once per socket, before it is visible to others (socketpair, embryo).
    pub(crate) fn init_peercred(&self) {
        let p = self.as_ptr();
        // SAFETY: `self` is a live socket that no one else sees yet; the old pid/cred
        // are NULL (fresh socket), and `__sk_destruct` puts the new ones.
        unsafe {
            (*p).sk_peer_pid = bindings::afunix_get_pid(bindings::afunix_current_tgid());
            (*p).sk_peer_cred = bindings::afunix_get_current_cred();
        }
    }

    /// Takes the state lock (AF_UNIX's `unix_state_lock()`).
    pub(crate) fn lock(&self) -> StateGuard<'_> {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { bindings::afunix_spin_lock(self.state_lock_ptr()) };
        // INVARIANT: The lock was just taken.
        StateGuard { sk: self }
    }

    /// Takes the state lock as the second of two, the first being `_first`'s.
    pub(crate) fn lock_second(&self, _first: &StateGuard<'_>) -> StateGuard<'_> {
        // SAFETY: `self` is a live socket of this family (type invariant); the one
        // other state lock held is taken before this one on every path (connect
        // locks the listener first; `lock_pair` orders by address).
        unsafe { bindings::afunix_spin_lock_nested(self.state_lock_ptr()) };
        // INVARIANT: The lock was just taken.
        StateGuard { sk: self }
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

    /// `sk_error_report()`: tells the socket's users about `sk_err`.
    pub(crate) fn error_report(&self) {
        // SAFETY: `self` is a live socket.
        unsafe { bindings::afunix_error_report(self.as_ptr()) };
    }

    /// Takes the reader lock (AF_UNIX's `u->iolock`). May sleep.
    pub(crate) fn io_lock(&self) -> IoGuard<'_> {
        // SAFETY: `self` is a live socket of this family (type invariant).
        unsafe { bindings::afunix_mutex_lock(self.iolock_ptr()) };
        // INVARIANT: The lock was just taken.
        IoGuard { sk: self }
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

/// A socket in its `sk_write_space` hook: its memory is valid for the call, but its last
/// reference may be gone (the hook runs in the destructor of its last skb), so this
/// gives no `&Sock` (from which a reference could be taken), only what the hook reads.
pub(crate) struct SpaceSock<'a>(&'a Sock);

impl<'a> SpaceSock<'a> {
    /// # Safety
    ///
    /// `sk` is the socket of an `sk_write_space` call, valid for `'a`.
    pub(super) unsafe fn new(sk: &'a Sock) -> SpaceSock<'a> {
        SpaceSock(sk)
    }

    /// The socket, for the other files of `api/` (which take no reference to it).
    pub(super) fn sock(&self) -> &'a Sock {
        self.0
    }

    /// After the protocol's hook, in `sock_wfree` (which keeps one byte of the skb
    /// charged across the hook): when the socket's last reference is gone and that byte
    /// is all that is charged, the core frees the socket as the hook returns, so it is
    /// counted out now ([`Sock::count_out`]), where AF_UNIX's destructor counts it.
    pub(super) fn count_out_if_last(&self) {
        // SAFETY: The memory of the socket is valid for the hook (type invariant).
        let refs = unsafe { bindings::afunix_sock_refcnt(self.0.as_ptr()) };
        if refs == 0 && self.0.wmem_alloc() == 1 {
            self.0.count_out();
        }
    }

    /// `READ_ONCE(sk->sk_state)`.
    pub(crate) fn state(&self) -> u8 {
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

/// The lock of a socket's receive queue, held: queued skbs stay queued.
pub(super) struct RcvqGuard<'a> {
    sk: &'a Sock,
    _lock: SpinGuard,
}

impl RcvqGuard<'_> {
    /// The first skb of the queue, or the one after `after`.
    pub(super) fn peek(&self, after: Option<&SkbView>) -> Option<&SkbView> {
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

/// A new socket for an incoming connection, not yet handed to its listener: its
/// connection state and path are set without its lock until
/// [`StateGuard::queue_embryo`] hands it over.
///
/// # Invariants
///
/// Only this value writes the socket's connection state and path. Other tasks reach the
/// socket only through its netns table entry, whose readers read its address
/// (atomically) and `sk_state` (`READ_ONCE`), or skip it before reading more (sock_diag
/// skips a socket without a socket inode, as AF_UNIX's `sk_diag_dump()`).
pub(crate) struct Embryo(ARef<Sock>);

impl core::ops::Deref for Embryo {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

/// An embryo set up by the protocol ([`Embryo::connected`]), ready for its listener's
/// queue ([`StateGuard::queue_embryo`]).
pub(crate) struct ConnectedEmbryo(ARef<Sock>);

impl core::ops::Deref for ConnectedEmbryo {
    type Target = Sock;
    fn deref(&self) -> &Sock {
        &self.0
    }
}

impl Embryo {
    /// Sets the embryo's connection state; returns the old one (no lock: no one else
    /// sees the embryo).
    pub(crate) fn set_conn(&mut self, new: Conn) -> Conn {
        // SAFETY: Nobody else sees the embryo (type invariant), and `&mut self` excludes
        // a borrow of its state.
        unsafe { self.0.write_conn(new) }
    }

    /// Gives the embryo the path of the listener whose state lock `listener` holds,
    /// with references of its own (none if the listener has none).
    pub(crate) fn copy_path(&mut self, listener: &StateGuard<'_>) {
        // SAFETY: The listener's state lock is held, which guards its path; a set path
        // holds its mount and dentry.
        if let Some(path) = unsafe { HeldPath::get(listener.sock().path_slot()) } {
            // SAFETY: The embryo's path is unset and no one else sees it (type
            // invariant).
            unsafe { self.0.path_slot().write(path.into_raw()) };
        }
    }

    /// The embryo, set up, for its listener's queue ([`StateGuard::queue_embryo`]).
    pub(crate) fn connected(self) -> ConnectedEmbryo {
        ConnectedEmbryo(self.0)
    }

    /// Gives the embryo's reference back, for its release (a failed connect).
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
}

impl StateGuard<'_> {
    /// The connection state.
    pub(crate) fn conn(&self) -> &Conn {
        // SAFETY: `conn` is guarded by the state lock (held, type invariant); it is
        // changed only through `&mut self` (`set_conn`).
        unsafe { &*self.sk.conn_cell().get() }
    }

    /// The connected peer, if any.
    pub(crate) fn peer(&self) -> Option<&Sock> {
        self.conn().peer()
    }

    /// Moves the socket to `new`, writing `sk_state` and `unix_sock::peer` with it
    /// (`WRITE_ONCE`: both are read without the lock); returns the old state, to drop
    /// (with its peer reference) after unlocking.
    pub(crate) fn set_conn(&mut self, new: Conn) -> Conn {
        // SAFETY: The state lock is held (type invariant).
        unsafe { self.sk.write_conn(new) }
    }

    /// `WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | bits)`.
    pub(crate) fn add_shutdown(&mut self, bits: u8) {
        let s = self.sk.shutdown() | bits;
        // SAFETY: A volatile write under the state lock (WRITE_ONCE).
        unsafe { ptr::addr_of_mut!((*self.sk.as_ptr()).sk_shutdown).write_volatile(s) };
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
    /// queue, marked in the skb, until `accept` or the listener's release takes it.
    pub(crate) fn queue_embryo(&mut self, skb: Skb, embryo: ConnectedEmbryo) {
        // SAFETY: `skb` is ours and charged to `embryo` (`Skb::embryo_carrier`).
        unsafe { (*skb.view().cb()).embryo = 1 };
        core::mem::forget(embryo.0);
        self.sk.queue_tail(skb);
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
    /// lock (held here too), that no bytes were added ([`IoGuard::unlink_consume`]);
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
                || (*view.cb()).open == 0
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
    pub(crate) fn copy_peercred(&mut self, from: &StateGuard<'_>) {
        let (sk, from) = (self.sk.as_ptr(), from.sk.as_ptr());
        let _g = self.sk.peer_lock();
        // SAFETY: Both sockets are live; this one's credentials are guarded by
        // `sk_peer_lock` (held), and `from`'s by its state lock (held). The old ones
        // are NULL: only a socket that neither listens nor is connected connects.
        unsafe {
            (*sk).sk_peer_pid = bindings::afunix_get_pid((*from).sk_peer_pid);
            (*sk).sk_peer_cred = bindings::afunix_get_cred((*from).sk_peer_cred);
        }
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

/// The reader lock of a socket, held: its holder is the only one to unlink skbs from a
/// stream socket's receive queue.
///
/// # Invariants
///
/// The `iolock` of `sk` is held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct IoGuard<'a> {
    sk: &'a Sock,
}

impl<'a> IoGuard<'a> {
    /// The socket whose reader lock this is.
    pub(crate) fn sock(&self) -> &Sock {
        self.sk
    }

    /// The first skb of the receive queue, or the one after `after`; `state` is this
    /// socket's state lock (as `unix_stream_read_generic()`).
    ///
    /// The skb stays queued, and so valid, until this guard unlinks it: only the holder
    /// of the reader lock unlinks skbs of a stream socket, and release (which purges
    /// the queue) cannot run during a `recvmsg` of the same socket. Senders write an
    /// skb (data, `cb`) and queue it under the receiver's state lock: taking that lock
    /// to find the skb makes those writes visible to the reader. Bytes a coalesced
    /// write appends later are published by its length ([`SkbView::len`]).
    pub(crate) fn peek(
        &self,
        state: &StateGuard<'_>,
        after: Option<&SkbView>,
    ) -> Option<QueuedSkb<'_>> {
        if !ptr::eq(state.sock(), self.sk) {
            return None;
        }
        // SAFETY: See above; `skb_peek`/`skb_peek_next` only read the list links.
        unsafe {
            let skb = match after {
                None => bindings::afunix_rcvq_peek(self.sk.as_ptr()),
                Some(prev) => bindings::afunix_rcvq_peek_next(self.sk.as_ptr(), prev.as_ptr()),
            };
            NonNull::new(skb).map(|p| QueuedSkb(SkbView::from_raw(p.as_ptr())))
        }
    }

    /// Unlinks `skb` (from [`IoGuard::peek`]), all of it read, from the receive queue
    /// and frees it; unless a coalesced write added bytes to it since the reader saw it
    /// read out ([`StateGuard::append_to_tail`]): it then stays queued, for the next
    /// read. The handle is consumed: no reference to the skb outlives this call.
    pub(crate) fn unlink_consume(&self, skb: QueuedSkb<'_>) {
        let p = skb.as_ptr();
        // Appends to it take the queue's lock, held from the check to the unlink.
        let q = self.sk.rcvq_lock();
        if skb.unread() != 0 {
            return;
        }
        // SAFETY: `skb` is queued on this socket's receive queue (it came from `peek`
        // under this guard), whose lock is held, and no one else unlinks it.
        unsafe { bindings::afunix_skb_unlink_locked(p, self.sk.receive_queue()) };
        drop(q);
        // SAFETY: Unlinked above: ours alone.
        unsafe { bindings::consume_skb(p) };
    }

    /// Closes `skb` (from [`IoGuard::peek`]) to coalesced writes
    /// ([`StateGuard::append_to_tail`]), which check under the state lock `state`
    /// (this socket's) whether it is `open`.
    pub(crate) fn close_to_appends(&self, state: &StateGuard<'_>, skb: &QueuedSkb<'_>) {
        if !ptr::eq(state.sock(), self.sk) {
            return;
        }
        // SAFETY: `skb` is queued on this socket (from `peek` under this guard), valid
        // while it is; its `cb` is the module's. `open` is written after queueing only
        // here, under the state lock, which appends hold to read it; the other reader
        // of it, `copy_to_msg`, runs under this reader lock.
        unsafe { (*skb.cb()).open = 0 };
    }

    /// Takes the lock of the receive queue, for the out-of-band bookkeeping of a stream
    /// read (under the state lock, as AF_UNIX's `manage_oob()`).
    pub(crate) fn lock_queue<'s>(&'s self, _state: &StateGuard<'_>) -> RcvQueue<'s> {
        let q = self.sk.receive_queue();
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data`; taken under the state lock, as AF_UNIX does.
        let _lock = unsafe { SpinGuard::lock(ptr::addr_of_mut!((*q).lock)) };
        RcvQueue { sk: self.sk, _lock }
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

/// The receive queue of a stream socket, its lock held by a reader that holds the
/// reader lock ([`IoGuard::lock_queue`]): the skbs it hands out stay queued, so valid,
/// while the reader lock is held (only its holder unlinks them), also after this guard.
pub(crate) struct RcvQueue<'g> {
    sk: &'g Sock,
    _lock: SpinGuard,
}

impl<'g> RcvQueue<'g> {
    fn queued(p: *mut bindings::sk_buff) -> Option<QueuedSkb<'g>> {
        // SAFETY: `p` is NULL or an skb of the queue, which stays queued and valid for
        // `'g` (see the type's comment).
        NonNull::new(p).map(|p| QueuedSkb(unsafe { SkbView::from_raw(p.as_ptr()) }))
    }

    /// The first skb of the queue.
    pub(crate) fn first(&self) -> Option<QueuedSkb<'g>> {
        // SAFETY: The queue lock is held; `skb_peek` reads the list links.
        Self::queued(unsafe { bindings::afunix_rcvq_peek(self.sk.as_ptr()) })
    }

    /// The skb after `skb`, a queued one.
    pub(crate) fn next(&self, skb: &QueuedSkb<'_>) -> Option<QueuedSkb<'g>> {
        // SAFETY: The queue lock is held and `skb` is queued on it.
        Self::queued(unsafe { bindings::afunix_rcvq_peek_next(self.sk.as_ptr(), skb.as_ptr()) })
    }

    /// The skb before `skb`, a queued one: `None` at the head.
    pub(crate) fn prev(&self, skb: &QueuedSkb<'_>) -> Option<QueuedSkb<'g>> {
        // SAFETY: The queue lock is held and `skb` is queued on it: its `prev` is a
        // queued skb or the queue's head.
        let prev = unsafe { (*skb.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.prev };
        if prev == self.sk.receive_queue().cast() {
            return None;
        }
        Self::queued(prev)
    }

    /// The out-of-band mark (`oob_skb`), a queued skb, if any.
    pub(crate) fn mark(&self) -> Option<QueuedSkb<'g>> {
        // The mark is set and cleared under the queue lock (held).
        Self::queued(self.sk.oob_slot().load(Ordering::Relaxed))
    }

    /// Whether `skb` is the out-of-band mark.
    pub(crate) fn is_mark(&self, skb: &QueuedSkb<'_>) -> bool {
        self.sk.is_oob_mark(skb)
    }

    /// Clears the out-of-band mark.
    pub(crate) fn clear_mark(&self) {
        self.sk.oob_slot().store(ptr::null_mut(), Ordering::Relaxed);
    }

    /// Unlinks `skb` from the queue; the caller owns it from now on. `skb` must be the
    /// only handle of it left (a handle is not `Copy`; the protocol peeks each skb once
    /// and drops what it unlinked only after its last handle of it).
    pub(crate) fn unlink(&self, skb: QueuedSkb<'_>) -> Skb {
        let p = skb.as_ptr();
        // SAFETY: The queue lock is held and `skb` is queued on it; once unlinked, this
        // is the skb's only owner.
        unsafe {
            bindings::afunix_skb_unlink_locked(p, self.sk.receive_queue());
            Skb::from_raw(NonNull::new_unchecked(p))
        }
    }
}

/// An skb on the receive queue of a socket whose reader lock a guard holds (from
/// [`IoGuard::peek`]); given back to [`IoGuard::unlink_consume`] to free it. Not `Copy`:
/// once consumed, it cannot be used.
pub(crate) struct QueuedSkb<'g>(&'g SkbView);

impl core::ops::Deref for QueuedSkb<'_> {
    type Target = SkbView;

    fn deref(&self) -> &SkbView {
        self.0
    }
}

impl Drop for IoGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: The lock is held (type invariant).
        unsafe { bindings::mutex_unlock(self.sk.iolock_ptr()) };
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

    fn flags(&self) -> *mut c_ulong {
        // SAFETY: `self.0` is a live socket (type invariant).
        unsafe { ptr::addr_of_mut!((*self.0.get()).flags) }
    }

    /// `test_bit(nr, &sock->flags)`.
    fn test_flag(&self, nr: u32) -> bool {
        // SAFETY: `flags` of a live socket, changed only with atomic bit operations.
        unsafe { test_bit(nr, self.flags()) }
    }

    /// Whether any of the flags `nrs` (each below `BITS_PER_LONG`) is set, in one load.
    fn any_flag(&self, nrs: &[u32]) -> bool {
        let mask = nrs
            .iter()
            .fold(0usize, |m, &nr| m | 1usize.wrapping_shl(nr));
        // SAFETY: As in `test_flag`; `unsigned long` is the size and alignment of
        // `usize` in the kernel's ABIs.
        let word = unsafe { AtomicUsize::from_ptr(self.flags().cast()) };
        word.load(Ordering::Relaxed) & mask != 0
    }

    /// `set_bit(nr, &sock->flags)`.
    fn set_flag(&self, nr: u32) {
        // SAFETY: As in `test_flag`.
        unsafe { bindings::afunix_set_bit(nr as c_long, self.flags()) };
    }

    /// Sends this socket's `SOL_SOCKET` options to the family's `setsockopt`
    /// (`SOCK_CUSTOM_SOCKOPT`), which hands the core's to `sock_setsockopt`.
    pub(crate) fn set_custom_sockopt(&self) {
        self.set_flag(sock_flag::CUSTOM_SOCKOPT);
    }

    /// Sets `sock->state` (`SS_CONNECTED` etc.).
    pub(crate) fn set_connected(&self) {
        // SAFETY: The socket core serialises ops on one `struct socket` for this field.
        unsafe { (*self.0.get()).state = bindings::socket_state_SS_CONNECTED };
    }

    /// Detaches the `struct sock` from the socket (in `release`), with the reference
    /// the socket held since creation.
    pub(crate) fn take_sk(&self) -> Option<ARef<Sock>> {
        // SAFETY: `release` is the last callback of a socket; the reference taken over
        // is the one `sk_alloc` gave to the socket.
        unsafe {
            let sk = core::mem::replace(&mut (*self.0.get()).sk, ptr::null_mut());
            NonNull::new(sk).map(|p| ARef::from_raw(p.cast()))
        }
    }
}

/// An skb owned by the module: freed on drop unless handed on.
///
/// # Invariants
///
/// `self.0` is a valid skb that this value owns.
pub(crate) struct Skb(NonNull<bindings::sk_buff>);

impl Skb {
    /// # Safety
    ///
    /// The caller must own `ptr` and give it up.
    pub(super) unsafe fn from_raw(ptr: NonNull<bindings::sk_buff>) -> Skb {
        // INVARIANT: Ownership comes from the caller.
        Skb(ptr)
    }

    /// An skb of `head` linear and `data_len` fragment bytes (none of them in use yet),
    /// charged to `sk`'s send buffer, waiting for room unless `nonblock`
    /// (`sock_alloc_send_pskb()`), with the module's destructor of kind `D`.
    fn alloc_charged<D: SkbDestructor>(
        sk: &Sock,
        head: usize,
        data_len: usize,
        nonblock: bool,
        order: i32,
    ) -> Result<Skb> {
        let mut err: c_int = 0;
        // SAFETY: `sk` is a live socket; `err` is a valid out pointer.
        let skb = unsafe {
            bindings::sock_alloc_send_pskb(
                sk.as_ptr(),
                head as _,
                data_len as _,
                nonblock.into(),
                &mut err,
                order,
            )
        };
        let Some(skb) = NonNull::new(skb) else {
            return Err(Error::from_errno(if err < 0 { err } else { -12 }));
        };
        // SAFETY: `sock_alloc_send_pskb` returned a new skb that we own.
        let skb = unsafe { Skb::from_raw(skb) };
        // SAFETY: Its `cb` is zeroed (no credentials yet);
        // `skb_wfree` is `sock_wfree` (set by the allocation, charging it to `sk`) after putting the credentials, as AF_UNIX's `unix_wfree`.
        unsafe {
            (*skb.0.as_ptr())
                .__bindgen_anon_3
                .__bindgen_anon_1
                .destructor = Some(skb_wfree::<D>);
        }
        Ok(skb)
    }

    /// Allocates an skb charged to `sk`'s send buffer, with `len` bytes of which
    /// `data_len` in page fragments, waiting for room unless `nonblock`
    /// (`sock_alloc_send_pskb()`); then calls `prepare` on it (credentials and fds, as
    /// AF_UNIX's `unix_scm_to_skb()` before the copy) and copies `len` bytes from `msg`
    /// into it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn alloc_from_msg<D: SkbDestructor>(
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        data_len: usize,
        nonblock: bool,
        order: i32,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<Skb> {
        let head = len
            .checked_sub(data_len)
            .ok_or_else(|| Error::from(EMSGSIZE))?;
        let mut skb = Self::alloc_charged::<D>(sk, head, data_len, nonblock, order)?;
        let p = skb.0.as_ptr();
        // SAFETY: The skb has `head` bytes of tailroom and `data_len` bytes of frags, as
        // AF_UNIX lays them out (`skb_put` + `data_len`/`len`).
        unsafe {
            bindings::skb_put(p, head as u32);
            (*p).data_len = data_len as u32;
            (*p).len = len as u32;
        }
        prepare(&mut skb)?;
        let iter = msg.iter();
        // SAFETY: `p` has room for `len` bytes; `iter` is the message's iterator.
        to_result(unsafe { bindings::skb_copy_datagram_from_iter(p, 0, iter, len as c_int) })?;
        Ok(skb)
    }

    /// Allocates a linear skb charged to `sk`'s send buffer, waiting for room unless
    /// `nonblock`, calls `prepare` on it, and copies `data` into it: a stream write
    /// already copied from the caller (`net.rust_afunix.stream_coalesce`), to which
    /// later ones may be appended (`open`).
    pub(crate) fn alloc_from_bytes<D: SkbDestructor>(
        sk: &Sock,
        data: &[u8],
        nonblock: bool,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<Skb> {
        let n = u32::try_from(data.len()).map_err(|_| Error::from(EMSGSIZE))?;
        let mut skb = Self::alloc_charged::<D>(sk, data.len(), 0, nonblock, 0)?;
        prepare(&mut skb)?;
        // SAFETY: The skb has `n` bytes of tail room (allocated so); `data` is `n`
        // readable bytes. Not queued yet: its `cb` is ours alone.
        unsafe {
            bindings::afunix_skb_put_data(skb.0.as_ptr(), data.as_ptr().cast(), n);
            (*skb.view().cb()).open = 1;
        }
        Ok(skb)
    }

    /// Allocates an skb with no data charged to `sk`'s send buffer, waiting for room
    /// unless `nonblock` (`sock_alloc_send_pskb(sk, 0, 0, ..)`); calls `prepare` on it;
    /// then takes up to `len` bytes of the pages of `msg`'s iterator as its fragments,
    /// without copying (`skb_splice_from_iter()`, for `MSG_SPLICE_PAGES`), and charges
    /// them to `sk`. Returns the skb and the bytes it took (at least one).
    pub(crate) fn alloc_spliced<D: SkbDestructor>(
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        nonblock: bool,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<(Skb, usize)> {
        let mut skb = Self::alloc_charged::<D>(sk, 0, 0, nonblock, 0)?;
        let p = skb.0.as_ptr();
        // SAFETY: Our new skb. The spliced pages need no checksum
        // (`CHECKSUM_UNNECESSARY`, as AF_UNIX).
        unsafe { bindings::afunix_skb_set_csum_unnecessary(p) };
        prepare(&mut skb)?;
        let len = isize::try_from(len).map_err(|_| Error::from(EMSGSIZE))?;
        // SAFETY: `p` is our skb; `msg.iter()` is the message's iterator; `skb_splice_from_iter`
        // takes page references into the skb's fragments and grows its `len`,
        // `data_len` and `truesize` by what it took.
        let n = unsafe {
            bindings::skb_splice_from_iter(p, msg.iter(), len, (*sk.as_ptr()).sk_allocation)
        };
        if n < 0 {
            return Err(Error::from_errno(n as c_int));
        }
        if n == 0 {
            // Nothing left in the iterator: `len` was more than it held.
            return Err(kernel::error::code::EINVAL);
        }
        // The skb's `truesize` grew by `n`: so does the charge `sock_wfree` takes back.
        // SAFETY: `sk` is a live socket.
        unsafe { bindings::afunix_wmem_charge(sk.as_ptr(), n as u32) };
        Ok((skb, n as usize))
    }

    /// Receives a datagram from `sk` (`skb_recv_datagram()`), waiting unless `flags` has
    /// `MSG_DONTWAIT`. `Ok(None)`: end of file (receive side shut down).
    pub(crate) fn recv_datagram(sk: &Sock, flags: u32) -> Result<Option<Skb>> {
        let mut err: c_int = 0;
        // SAFETY: `sk` is a live socket; `err` is a valid out pointer.
        let skb = unsafe { bindings::skb_recv_datagram(sk.as_ptr(), flags, &mut err) };
        match NonNull::new(skb) {
            // SAFETY: We own the returned skb (unlinked, or a new reference on peek).
            Some(skb) => Ok(Some(unsafe { Skb::from_raw(skb) })),
            None if err < 0 => Err(Error::from_errno(err)),
            None => Ok(None),
        }
    }

    /// The one-byte skb that carries `embryo` to a listener, charged to the embryo
    /// (`sock_wmalloc(newsk, 1, 0, GFP_KERNEL)`).
    pub(crate) fn embryo_carrier(embryo: &Sock) -> Result<Skb> {
        // SAFETY: `embryo` is a live socket; process context, no locks held.
        let skb = unsafe { bindings::afunix_embryo_skb(embryo.as_ptr()) };
        let skb = NonNull::new(skb).ok_or(kernel::error::code::ENOMEM)?;
        // SAFETY: A new skb that we own.
        Ok(unsafe { Skb::from_raw(skb) })
    }

    /// Takes the embryo reference out of a carrier skb (see `Sock::queue_embryo`).
    fn take_embryo(&self) -> Option<ARef<Sock>> {
        let cb = self.view().cb();
        // SAFETY: We own the skb; `cb` is the module's.
        unsafe {
            if (*cb).embryo == 0 {
                return None;
            }
            // SAFETY: A carrier skb is charged to its embryo (`skb->sk`, never NULL
            // for one), and `queue_embryo` moved a reference to it into the skb.
            let sk = NonNull::new(bindings::afunix_skb_sock(self.0.as_ptr()))?;
            (*cb).embryo = 0;
            Some(ARef::from_raw(sk.cast()))
        }
    }

    /// `__skb_try_recv_datagram()`: the datagram at peek offset `*skip` (updated to the
    /// offset within it), without waiting. On failure, the error (`EAGAIN` when there
    /// is nothing) and the last skb seen, for [`Skb::wait_for_more`].
    pub(crate) fn try_recv_datagram(
        io: &IoGuard<'_>,
        flags: u32,
        skip: &mut i32,
    ) -> core::result::Result<Skb, (Error, QueueMark)> {
        let sk = io.sk.as_ptr();
        let mut err: c_int = 0;
        let mut last = ptr::null_mut();
        // SAFETY: `sk` is live; the reader lock is held (as AF_UNIX); the out pointers
        // are valid.
        let skb = unsafe {
            bindings::__skb_try_recv_datagram(
                sk,
                bindings::afunix_rcvq(sk),
                flags,
                skip,
                &mut err,
                &mut last,
            )
        };
        match NonNull::new(skb) {
            // SAFETY: We own the returned skb (unlinked, or a new reference on peek).
            Some(skb) => Ok(unsafe { Skb::from_raw(skb) }),
            None => Err((
                Error::from_errno(if err < 0 { err } else { -11 }),
                QueueMark(last),
            )),
        }
    }

    /// `__skb_wait_for_more_packets()`: sleeps until something is queued after `mark`,
    /// an error, the end of the stream, a signal or the end of `*timeo`. `Ok(true)`: try
    /// again; `Ok(false)`: end of file (receive side shut down).
    pub(crate) fn wait_for_more(sk: &Sock, timeo: &mut isize, mark: &QueueMark) -> Result<bool> {
        let mut err: c_int = 0;
        let p = sk.as_ptr();
        // SAFETY: `sk` is live and no lock is held; `mark.0` is only compared.
        let r = unsafe {
            bindings::__skb_wait_for_more_packets(
                p,
                bindings::afunix_rcvq(p),
                &mut err,
                timeo,
                mark.0,
            )
        };
        if r == 0 {
            Ok(true)
        } else if err < 0 {
            Err(Error::from_errno(err))
        } else {
            Ok(false)
        }
    }

    /// Attaches credentials to a data skb of [`Skb::alloc_from_msg`] (AF_UNIX's
    /// `unix_scm_to_skb()`), with a pid reference of its own, put by its destructor.
    pub(crate) fn set_creds(&mut self, creds: &Creds) {
        let pid = creds.pid.clone().map_or(ptr::null_mut(), Pid::into_raw);
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`. The
        // old pid, if any, was a reference the skb held (put here, as it is replaced).
        unsafe {
            let old = core::mem::replace(&mut (*cb).pid, pid);
            (*cb).uid = bindings::kuid_t { val: creds.uid.0 };
            (*cb).gid = bindings::kgid_t { val: creds.gid.0 };
            // A new skb has none: no call (`put_pid` of NULL does nothing).
            if !old.is_null() {
                bindings::put_pid(old);
            }
        }
    }

    /// Stamps the skb with the time of day (`__net_timestamp()`), for a receiver with
    /// `SO_TIMESTAMP`.
    pub(crate) fn net_timestamp(&mut self) {
        // SAFETY: We own the skb; its `tstamp` is written before it is queued.
        unsafe { bindings::afunix_net_timestamp(self.view().as_ptr()) };
    }

    /// Records the sender's security id (`unix_get_secdata()`).
    pub(crate) fn set_secid(&mut self, secid: u32) {
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`.
        unsafe { (*self.view().cb()).secid = secid };
    }

    /// A shared view of the skb.
    pub(crate) fn view(&self) -> &SkbView {
        // SAFETY: `self.0` is valid while `self` lives.
        unsafe { SkbView::from_raw(self.0.as_ptr()) }
    }

    /// Frees a datagram after a receive (`skb_free_datagram()`).
    pub(crate) fn free_datagram(self, sk: &Sock) {
        let p = self.into_raw();
        // SAFETY: We own `p`, and `sk` is the socket it was received on.
        unsafe { bindings::skb_free_datagram(sk.as_ptr(), p) };
    }

    /// Frees the skb as dropped on close (`SKB_DROP_REASON_SOCKET_CLOSE`).
    fn drop_on_close(self) {
        let p = self.into_raw();
        // SAFETY: We own `p`.
        unsafe {
            bindings::sk_skb_reason_drop(
                ptr::null_mut(),
                p,
                bindings::skb_drop_reason_SKB_DROP_REASON_SOCKET_CLOSE,
            )
        };
    }

    fn into_raw(self) -> *mut bindings::sk_buff {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl Drop for Skb {
    fn drop(&mut self) {
        // SAFETY: We own the skb (type invariant).
        unsafe {
            bindings::sk_skb_reason_drop(
                ptr::null_mut(),
                self.0.as_ptr(),
                bindings::skb_drop_reason_SKB_DROP_REASON_NOT_SPECIFIED,
            )
        };
    }
}

/// What the destructor of a data skb does with the files of `SCM_RIGHTS` it carries.
pub(crate) trait SkbDestructor {
    /// Takes the files `fds` (sent by `uid`) out of flight and puts them
    /// (`unix_destruct_scm()`); from the skb's destructor, in any context the last
    /// `kfree_skb` of an skb runs in.
    fn release_fds(fds: FdList, uid: Kuid);
}

/// The destructor of the module's data skbs (AF_UNIX's `unix_wfree()`): puts the pid
/// reference of the credentials and hands the files of `SCM_RIGHTS` to `D`, then gives
/// the memory back to the sending socket (`sock_wfree()`, which calls its
/// `sk_write_space`).
///
/// # Safety
///
/// Called by the core only, as the destructor of an skb of [`Skb::alloc_from_msg`],
/// [`Skb::alloc_from_bytes`] or [`Skb::alloc_spliced`] whose last reference is gone.
unsafe extern "C" fn skb_wfree<D: SkbDestructor>(skb: *mut bindings::sk_buff) {
    // SAFETY: `skb` is being freed, so no one else uses its `cb`, the module's; a
    // non-NULL pid is a reference the skb held. The skb is charged to its sender
    // (`sock_alloc_send_pskb`), which `sock_wfree` releases.
    let fds = unsafe {
        let cb = SkbView::from_raw(skb).cb();
        let pid = core::mem::replace(&mut (*cb).pid, ptr::null_mut());
        if !pid.is_null() {
            bindings::put_pid(pid);
        }
        let fp = core::mem::replace(&mut (*cb).fp, ptr::null_mut());
        // SAFETY: A non-NULL `fp` is a list in flight that the skb owned.
        NonNull::new(fp).map(|fp| (FdList::from_raw(fp), Kuid((*cb).fp_uid.val)))
    };
    // Out of flight before its files are put (`unix_destruct_scm()`).
    if let Some((fds, uid)) = fds {
        D::release_fds(fds, uid);
    }
    // SAFETY: The skb is charged to its sender (see above).
    unsafe { bindings::sock_wfree(skb) };
}

/// The last skb of a receive queue that a reader saw: only compared, never followed.
pub(crate) struct QueueMark(*mut bindings::sk_buff);

/// A borrowed skb.
#[repr(transparent)]
pub(crate) struct SkbView(Opaque<bindings::sk_buff>);

impl SkbView {
    /// # Safety
    ///
    /// `ptr` must be a valid skb for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::sk_buff) -> &'a SkbView {
        // CAST: `SkbView` is `repr(transparent)` over `struct sk_buff`.
        // SAFETY: Validity for `'a` is guaranteed by the caller.
        unsafe { &*ptr.cast() }
    }

    pub(crate) fn as_ptr(&self) -> *mut bindings::sk_buff {
        self.0.get()
    }

    /// The skb's length in bytes. Once the skb is queued, only a coalesced stream write
    /// changes it, growing it after writing the bytes ([`StateGuard::append_to_tail`]):
    /// read with acquire, the bytes below it are written.
    pub(crate) fn len(&self) -> u32 {
        // SAFETY: The skb is valid; `len` is only written atomically (release) once it
        // is queued.
        unsafe {
            AtomicU32::from_ptr(ptr::addr_of_mut!((*self.as_ptr()).len)).load(Ordering::Acquire)
        }
    }

    pub(super) fn cb(&self) -> *mut SkbCb {
        // SAFETY: The skb is valid.
        let cb = unsafe { ptr::addr_of_mut!((*self.as_ptr()).cb) };
        // CAST: `cb` (48 bytes, 8-aligned) holds the module's `SkbCb`.
        cb.cast()
    }

    /// The address of the socket that sent this skb (`unix_copy_addr(msg, skb->sk)`).
    ///
    /// The sender's memory and address live at least as long as the skb: the skb is
    /// charged to it, and its destructor (which frees the address) waits for its
    /// charged skbs.
    pub(crate) fn sender_addr(&self) -> Option<&Address> {
        // SAFETY: The skb is valid; a data skb of this family is charged to its
        // sender, a socket of this family (see above). Only the `addr` field is read,
        // atomically, as `Sock::addr_ref` does.
        unsafe {
            let sk = bindings::afunix_skb_sock(self.as_ptr());
            if sk.is_null() {
                return None;
            }
            let u = sk.cast::<UnixSock>();
            let slot = AtomicPtr::<UnixAddress>::from_ptr(ptr::addr_of_mut!((*u).unix.addr).cast());
            slot.load(Ordering::Acquire).as_ref().map(|a| &**a)
        }
    }

    /// The credentials the skb carries (AF_UNIX's `UNIXCB(skb).pid/uid/gid`), with a
    /// pid reference of their own.
    pub(crate) fn creds(&self) -> Creds {
        let cb = self.cb();
        // SAFETY: `cb` is the module's; its credentials are written only while one
        // owner holds the skb unqueued (`Skb::set_creds`), before it is queued under
        // the receiver's locks that the reader took to find it (`IoGuard::peek`, the
        // queue lock of a datagram receive), and by the destructor, which cannot run
        // while this view exists. A non-NULL pid is held by the skb.
        unsafe {
            Creds {
                pid: Pid::get((*cb).pid),
                uid: Kuid((*cb).uid.val),
                gid: Kgid((*cb).gid.val),
            }
        }
    }

    /// Whether the skb carries credentials (a pid).
    pub(crate) fn creds_present(&self) -> bool {
        // SAFETY: As in `creds`; the pid is only compared to NULL.
        unsafe { !(*self.cb()).pid.is_null() }
    }

    /// Whether the skb carries the same credentials as `creds` (`unix_skb_scm_eq()`:
    /// the same `struct pid`, uid and gid).
    pub(crate) fn same_creds(&self, creds: &Creds) -> bool {
        let cb = self.cb();
        // SAFETY: As in `creds`; the pid is only compared.
        unsafe {
            same_pid(creds.pid.as_ref(), (*cb).pid)
                && (*cb).uid.val == creds.uid.0
                && (*cb).gid.val == creds.gid.0
        }
    }

    /// Puts the skb's timestamp into `m`, a receive by `sk`, as `SO_TIMESTAMP*` asks
    /// (`__sock_recv_timestamp()`: `SCM_TIMESTAMP`, `SCM_TIMESTAMPNS` or
    /// `SCM_TIMESTAMPING`).
    pub(crate) fn recv_timestamp(&self, sk: &Sock, m: &mut Msg) {
        // SAFETY: `m` is a valid message (type invariant of `Msg`); `sk` is the live
        // socket the skb was received on, and the skb is valid while `self` is.
        unsafe { bindings::__sock_recv_timestamp(m.as_ptr(), sk.as_ptr(), self.as_ptr()) };
    }

    /// The sender's security id (`unix_set_secdata()`); set before the skb is queued.
    pub(crate) fn secid(&self) -> u32 {
        // SAFETY: `cb` is the module's; `secid` is written only before queueing.
        unsafe { (*self.cb()).secid }
    }

    /// Bytes of a stream skb already read.
    pub(crate) fn consumed(&self) -> u32 {
        // SAFETY: `cb` is the module's, zeroed at allocation; written by the reader
        // holding the reader lock only.
        unsafe { (*self.cb()).consumed }
    }

    /// Marks `n` more bytes of a stream skb as read (under the reader lock).
    pub(crate) fn consume(&self, _io: &IoGuard<'_>, n: u32) {
        // SAFETY: As in `consumed`; the caller holds the reader lock.
        unsafe { (*self.cb()).consumed += n };
    }

    /// Unread bytes of a stream skb.
    pub(crate) fn unread(&self) -> u32 {
        self.len().saturating_sub(self.consumed())
    }

    /// Moves up to `len` bytes from `offset` into `pipe` (`skb_splice_bits()`): the
    /// bytes moved. That routine reads the skb's length: a stream reader closes the skb
    /// to appends first ([`IoGuard::close_to_appends`]).
    pub(crate) fn splice_to(
        &self,
        sk: &Sock,
        offset: u32,
        pipe: &Pipe,
        len: usize,
    ) -> Result<usize> {
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        // SAFETY: The skb is valid and holds `offset + len` bytes (callers clamp
        // `len`); `sk` is the socket it is queued on; `pipe` is the pipe of the current
        // `splice_read` call.
        let r = unsafe {
            bindings::skb_splice_bits(
                self.as_ptr(),
                sk.as_ptr(),
                offset,
                pipe.ptr,
                len,
                pipe.flags,
            )
        };
        to_result(r.min(0))?;
        Ok(r as usize)
    }

    /// Copies `len` bytes from `offset` into `msg` (`skb_copy_datagram_msg()`).
    pub(crate) fn copy_to_msg(&self, offset: u32, msg: &mut Msg, len: usize) -> Result {
        let iter = msg.iter();
        let p = self.as_ptr();
        // SAFETY: The skb is valid and holds `offset + len` bytes (callers clamp `len`
        // to its length as [`SkbView::len`] read it). `open` is written after the skb
        // is queued only by the holder of its reader lock, the one caller that copies
        // from a queued stream skb (`IoGuard::close_to_appends`).
        to_result(unsafe {
            // An append may write `len` meanwhile, which `skb_copy_datagram_iter()`
            // reads: an open skb, linear, is copied without reading it (and without
            // that routine's tracepoint, which modules cannot fire).
            if (*self.cb()).open != 0 {
                bindings::afunix_skb_copy_linear(p, offset as c_int, iter, len as c_int)
            } else {
                bindings::skb_copy_datagram_iter(p, offset as c_int, iter, len as c_int)
            }
        })
    }
}

/// The pipe of a `splice_read` call, and its splice flags.
pub(crate) struct Pipe {
    ptr: *mut bindings::pipe_inode_info,
    flags: u32,
}

impl Pipe {
    /// # Safety
    ///
    /// `ptr` is the pipe of the current `proto_ops::splice_read` call, valid for the
    /// lifetime of the returned value.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::pipe_inode_info, flags: u32) -> Pipe {
        Pipe { ptr, flags }
    }
}

/// `get_max_files()`.
pub(crate) fn max_files() -> u64 {
    // SAFETY: Reads a global; no requirements.
    unsafe { bindings::get_max_files() as u64 }
}

/// `test_bit(nr, addr)`: one bit of a bitmap, read once (as the inline does, without a
/// call into C), racing with writers as the C reader does.
///
/// # Safety
///
/// `addr` is an aligned, live array of `unsigned long` that holds bit `nr`.
unsafe fn test_bit(nr: u32, addr: *const c_ulong) -> bool {
    let bits = c_ulong::BITS;
    // SAFETY: The word of bit `nr` (safety requirements); `unsigned long` is the size
    // and alignment of `usize` in the kernel's ABIs.
    let word = unsafe { AtomicUsize::from_ptr(addr.add((nr / bits) as usize).cast_mut().cast()) };
    (word.load(Ordering::Relaxed) >> (nr % bits)) & 1 != 0
}

/// Whether the current task has a signal pending.
pub(crate) fn signal_pending() -> bool {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_signal_pending() }
}

/// Sends `SIGPIPE` to the current task.
pub(crate) fn send_sigpipe() {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_sigpipe() };
}

/// `sock_intr_errno(timeo)`: the errno of a wait cut short by a signal.
pub(crate) fn intr_errno(timeo: isize) -> Error {
    // SAFETY: No requirements.
    Error::from_errno(unsafe { bindings::afunix_intr_errno(timeo) })
}

/// AF_UNIX's `UNIX_SKB_FRAGS_SZ` (`PAGE_SIZE << get_order(32768)`): the paged part of
/// one stream skb at most, 32 KiB rounded up to whole pages in a power of two.
const STREAM_FRAGS_SIZE: usize = {
    let page = bindings::AFUNIX_PAGE_SIZE as usize;
    page << 32768usize
        .div_ceil(page)
        .next_power_of_two()
        .trailing_zeros()
};

/// `SKB_MAX_ALLOC`, `SKB_MAX_HEAD(0)` and AF_UNIX's `UNIX_SKB_FRAGS_SZ`.
pub(crate) fn skb_limits() -> (usize, usize, usize) {
    // SAFETY: No requirements.
    unsafe {
        (
            bindings::afunix_skb_max_alloc() as usize,
            bindings::afunix_skb_max_head0() as usize,
            STREAM_FRAGS_SIZE,
        )
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
}

impl Drop for BindGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::mutex_unlock(self.sk.bindlock_ptr()) };
    }
}

/// `flush_work()`: waits for the last queueing of `work` to finish running.
pub(crate) fn flush_work<T>(work: &kernel::workqueue::Work<T>) {
    // SAFETY: `work` is an initialised work item, alive while borrowed; process
    // context without locks (a sender before it queues).
    unsafe { kernel::bindings::flush_work(kernel::workqueue::Work::raw_get(work)) };
}

/// `cond_resched()`.
pub(crate) fn cond_resched() {
    // SAFETY: Process context, no spinlock held (callers).
    unsafe { bindings::afunix_cond_resched() };
}

/// The debug parameter `wakeup_unkeyed`: write-space wakeups without a key.
pub(crate) fn wakeup_unkeyed() -> bool {
    // SAFETY: A bool module parameter, writable through sysfs: a racy read gives the
    // old or the new value.
    unsafe { ptr::addr_of!(bindings::afunix_wakeup_unkeyed).read_volatile() }
}

/// Writes an int to a user pointer of an ioctl (`put_user`).
pub(crate) fn put_user_int(arg: usize, val: i32) -> Result {
    // SAFETY: `put_user` checks the user address; `arg` is the ioctl's argument.
    to_result(unsafe { bindings::afunix_put_int(arg as _, val) })
}

/// The debug parameter `autobind_bits` (unchecked).
pub(crate) fn autobind_bits() -> i32 {
    // SAFETY: A plain int module parameter, writable through sysfs: a racy read gives
    // the old or the new value.
    unsafe { ptr::addr_of!(bindings::afunix_autobind_bits).read_volatile() }
}

/// `get_random_u32()`.
pub(crate) fn random_u32() -> u32 {
    // SAFETY: No requirements.
    unsafe { bindings::get_random_u32() }
}

/// `SCM_RIGHTS` on skbs (the collector's list of sockets in flight, and its walk of
/// their queues, are in [`crate::api::inflight`]).
impl Skb {
    /// Attaches an fd list sent by `uid` to a data skb of [`Skb::alloc_from_msg`], not
    /// queued yet (AF_UNIX's `unix_attach_fds()`); the list must be accounted as in
    /// flight (by the collector) before, and is put by the skb's destructor unless
    /// taken back.
    pub(crate) fn set_fds(&mut self, fds: FdList, uid: Kuid) {
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`.
        // A data skb of `alloc_from_msg` starts with a NULL `fp`.
        unsafe {
            (*cb).fp = fds.into_raw();
            (*cb).fp_uid = bindings::kuid_t { val: uid.0 };
        }
    }

    /// Takes the fd list out of an skb this value owns (unlinked: the collector cannot
    /// see it), with its sender, and counts the fds out of `sk`'s `scm_fds:` (`sk` is
    /// the socket it was queued on).
    pub(crate) fn take_fds(&mut self, sk: &Sock) -> Option<(FdList, Kuid)> {
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is off every queue; a non-NULL `fp` is a list
        // of `FdList::into_raw` that the skb owned.
        let (fp, uid) = unsafe {
            let fp = NonNull::new(core::mem::replace(&mut (*cb).fp, ptr::null_mut()))?;
            (FdList::from_raw(fp), Kuid((*cb).fp_uid.val))
        };
        sk.nr_fds().fetch_sub(fp.len() as u32, Ordering::Relaxed);
        Some((fp, uid))
    }
}

impl SkbView {
    /// The fd list the skb carries, if any.
    ///
    /// Its holder must keep the list from being taken meanwhile: it owns the skb
    /// unqueued, holds a peeked datagram with the reader lock, is the reader of a
    /// queued stream skb, or is the collector (under its lock and the queue's lock).
    pub(crate) fn fds(&self) -> Option<&Fds> {
        // SAFETY: `cb` is the module's; a non-NULL `fp` is a list the skb owns, which
        // stays while the skb is borrowed (see above).
        unsafe { NonNull::new((*self.cb()).fp).map(|p| Fds::from_raw(p.as_ptr())) }
    }

    /// The embryo a carrier skb (of a listener's queue) brings, borrowed with it.
    pub(super) fn embryo(&self) -> Option<&Sock> {
        // SAFETY: `cb` is the module's. A carrier holds a reference to its embryo,
        // which is `skb->sk` (see `Skb::take_embryo`), for as long as it is queued.
        unsafe {
            if (*self.cb()).embryo == 0 {
                return None;
            }
            let sk = bindings::afunix_skb_sock(self.as_ptr());
            (!sk.is_null()).then(|| Sock::from_raw(sk))
        }
    }
}

/// The receive queue's head, and an embryo's queue lock (the collector's walk of a
/// listener's embryos, [`crate::api::inflight`], takes it).
impl Sock {
    pub(super) fn rcvq_ptr(&self) -> *mut bindings::sk_buff_head {
        // SAFETY: A field of a live socket.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue) }
    }

    /// Takes the lock of an embryo's receive queue under its listener's
    /// (listener before embryo: the inverse order never happens).
    pub(super) fn rcvq_lock_embryo(&self) -> RcvqGuard<'_> {
        // SAFETY: A field of a live socket.
        let lock = unsafe { ptr::addr_of_mut!((*self.as_ptr()).sk_receive_queue.lock) };
        // SAFETY: The lock of the receive queue of a live socket, initialised by
        // `sock_init_data`, taken nested in its listener's queue lock.
        let _lock = unsafe { SpinGuard::lock_nested(lock) };
        RcvqGuard { sk: self, _lock }
    }
}
