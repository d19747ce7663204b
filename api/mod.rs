// SPDX-License-Identifier: GPL-2.0

//! The kernel-API layer: every `unsafe`, `bindings::` and `extern "C"` of the module.
//!
//! Typed wrappers of the C objects the protocol uses, and one `#[vtable]` trait with an
//! `Adapter<T>` per C vtable, in the shape of `rust/kernel/net/phy.rs`. Nothing here
//! names the protocol layer: the protocol implements these traits and the crate root
//! hands its types to the adapters.
//!
//! # Lock order
//!
//! Outer to inner: a lock is taken only under locks of the entries above its own.
//!
//! 1. Held by the caller of the module: the parent directory's `i_rwsem` of a pathname
//!    bind ([`vfs::NewSocketInode`], held to the end of the bind); a pipe's mutex, held
//!    around `splice_read`.
//! 2. The mutexes, one at a time: a socket's `bindlock` ([`sock::Sock::bind_lock`]:
//!    bind, autobind), its `iolock` ([`sock::Sock::io_lock`]: the reader, accept, the
//!    purge of a released socket), the collector's `scratch` (its work item, gc.rs).
//!    The collector try-locks `iolock`s under its own lock ([`sock::Sock::try_io_lock`]
//!    in `splice_queues`): a trylock waits for nothing, so it orders nothing.
//! 3. The bucket locks of a netns table, one class: two at a time in ascending bucket
//!    order, the second as lockdep's `SINGLE_DEPTH_NESTING` (hash.rs, `TableRef::lock2`);
//!    under one, a state lock (a bind's path, `/proc`, sock_diag), a receive-queue lock
//!    (sock_diag) and the workqueue's (a resize queued). The stripe locks of the global
//!    pathname table: one at a time, nothing under them.
//! 4. The state lock (`unix_sock::lock`, [`sock::Sock::lock`]). Two at a time:
//!    - connect: the listener's, then the client's ([`sock::Sock::lock_second`]); a
//!      socket that listens is refused as a client, so two connects cannot cross;
//!    - else by address, lower first ([`sock::Sock::lock_pair`]: datagram connect, a
//!      datagram send that waits for room).
//!
//!    Both without a subclass: lockdep orders them by `afunix_state_lock_cmp_fn`
//!    (afunix_helpers.c). A connect takes the new embryo's third, under both, at
//!    lockdep subclass 2 (`sock::Embryo::lock_third`); nothing is taken under it.
//! 5. Under any of the above, none under another: `sk_peer_lock` (listen, connect,
//!    socketpair; nothing under it); a `peer_wait` lock (the relay hooked, a wait for
//!    room, wakeups; under it the relay wakes its socket's wait queue); the collector's
//!    lock (an skb with fds freed; the collector takes no state lock).
//! 6. The receive-queue lock (`sk_receive_queue.lock`), under any of the above. Two at a
//!    time only in the collector: a listener's, then one of its embryos'
//!    ([`sock::Sock::rcvq_lock_embryo`]), both without a subclass: lockdep orders them by
//!    `afunix_rcvq_lock_cmp_fn`, which knows an embryo by `unix_sock::listener`. Nothing
//!    under it: no skb is freed under it (its destructor may take the collector's lock).
//!
//! The core's locks these calls take (a wait queue's, `sk_callback_lock`) are inner to
//! all. Lockdep calls an order function only when it first sees a chain of lock
//! classes, where a wrong pair in a chain seen before would pass: the two pairs are
//! checked on every acquisition too (`afunix_assert_*_lock_order`, with lockdep).

pub(crate) mod addr;
pub(crate) mod bindings;
pub(crate) mod bitmap;
pub(crate) mod cmsg;
pub(crate) mod cred;
pub(crate) mod error;
pub(crate) mod family;
pub(crate) mod file;
pub(crate) mod inflight;
pub(crate) mod keys;
pub(crate) mod kline;
pub(crate) mod list;
pub(crate) mod lsm;
pub(crate) mod msg;
pub(crate) mod net;
pub(crate) mod netlink;
pub(crate) mod param;
pub(crate) mod pernet;
pub(crate) mod publish;
pub(crate) mod seq;
pub(crate) mod sock;
pub(crate) mod sock_diag;
pub(crate) mod socket;
pub(crate) mod sync;
pub(crate) mod sysctl;
pub(crate) mod task;
pub(crate) mod vfs;
pub(crate) mod wait;
pub(crate) mod workqueue;
