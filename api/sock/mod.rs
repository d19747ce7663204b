// SPDX-License-Identifier: GPL-2.0

//! Sockets and skbs, one file per object: the module's socket and its connection state
//! ([`unix`]: [`UnixSock`], [`Conn`], [`Sock`]), its locks as guards ([`guard`]:
//! [`StateGuard`], [`BindGuard`], [`Embryo`]), the receive queue and its reader
//! ([`queue`]: [`IoGuard`], [`QueuedSkb`], [`QueueCursor`], [`Datagram`]), `struct
//! socket` and the accept tokens ([`socket`]: [`Socket`], [`NewSocket`],
//! [`AcceptedSock`]), skbs and their control block ([`skb`]: [`Skb`], [`SkbView`],
//! [`SkbCb`]); and here, the constants and flag types the protocol branches on.
//!
//! Other parts of the C API the protocol uses have files of their own in `api/` (the
//! message header in [`crate::api::msg`], wait queues in [`crate::api::wait`], the
//! collector's walks in [`crate::api::inflight`], ...).

mod guard;
mod queue;
mod skb;
mod socket;
mod unix;

pub(crate) use guard::*;
pub(crate) use queue::*;
pub(crate) use skb::*;
pub(crate) use socket::*;
pub(crate) use unix::*;

use crate::api::addr::{Address, UnixAddress};
use crate::api::bindings;
use crate::api::cred::{same_pid, Creds, Kgid, Kuid, Pid};
use crate::api::error::{to_result, Errno, EMSGSIZE};
use crate::api::file::{FdList, Fds};
use crate::api::kline::{ARef, AlwaysRefCounted};
pub(crate) use crate::api::msg::{Msg, MsgFlags};
use crate::api::sync::{RcuReadGuard, SpinGuard};
use crate::api::vfs::HeldPath;
use core::ffi::c_int;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::{self, NonNull};
// 7.3's kernel::sync::atomic: not used: 6.12 lacks it, and its Atomic<T> has no u8
// (`UnixSock::opts`); core's `Atomic*::from_ptr` covers the C fields on both lines.
use core::sync::atomic::{
    AtomicBool, AtomicI64, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering,
};
use kernel::error::{Error, Result};
use kernel::ffi::{c_long, c_ulong};
use kernel::types::Opaque;

/// The type of a wait queue entry's wake function (`wait_queue_func_t`), as a socket's
/// `peer_wake` has one ([`crate::api::wait::RelayAdapter`]).
pub(crate) type WaitFunc = unsafe extern "C" fn(
    *mut bindings::wait_queue_entry,
    core::ffi::c_uint,
    c_int,
    *mut core::ffi::c_void,
) -> c_int;

/// The values of `sk_state` AF_UNIX uses (`include/net/tcp_states.h`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SkState {
    /// `TCP_ESTABLISHED`: a socketpair, an accepted or connected socket.
    Established,
    /// `TCP_CLOSE`: not connected (the initial state) or closed.
    Close,
    /// `TCP_LISTEN`: listening.
    Listen,
}

impl SkState {
    const ESTABLISHED: u8 = 1;
    const CLOSE: u8 = 7;
    const LISTEN: u8 = 10;

    /// The state of a raw `sk_state`: only the module writes it, with these three.
    fn from_raw(v: u8) -> SkState {
        match v {
            Self::ESTABLISHED => SkState::Established,
            Self::LISTEN => SkState::Listen,
            _ => SkState::Close,
        }
    }

    /// The raw `sk_state` (for `/proc/net` and sock_diag).
    pub(crate) fn raw(self) -> u8 {
        match self {
            SkState::Established => Self::ESTABLISHED,
            SkState::Close => Self::CLOSE,
            SkState::Listen => Self::LISTEN,
        }
    }
}

/// `sk_shutdown` bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Shutdown(u8);

impl Shutdown {
    /// Neither side.
    pub(crate) const NONE: Shutdown = Shutdown(0);
    /// No more receptions (`RCV_SHUTDOWN`).
    pub(crate) const RCV: Shutdown = Shutdown(1);
    /// No more sends (`SEND_SHUTDOWN`).
    pub(crate) const SEND: Shutdown = Shutdown(2);
    /// Both (`SHUTDOWN_MASK`).
    pub(crate) const BOTH: Shutdown = Shutdown(3);

    /// The sides of `shutdown(2)`'s `how` (`SHUT_RD`, `SHUT_WR`, `SHUT_RDWR`).
    pub(crate) fn from_how(how: i32) -> Option<Shutdown> {
        match how {
            0..=2 => Some(Shutdown(how as u8 + 1)),
            _ => None,
        }
    }

    /// Whether any side of `other` is shut down in `self`.
    pub(crate) fn has(self, other: Shutdown) -> bool {
        self.0 & other.0 != 0
    }

    /// The raw bits (sock_diag's `UNIX_DIAG_SHUTDOWN`).
    pub(crate) fn raw(self) -> u8 {
        self.0
    }
}

impl core::ops::BitOr for Shutdown {
    type Output = Shutdown;
    fn bitor(self, o: Shutdown) -> Shutdown {
        Shutdown(self.0 | o.0)
    }
}

impl core::ops::BitOrAssign for Shutdown {
    fn bitor_assign(&mut self, o: Shutdown) {
        self.0 |= o.0;
    }
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

/// The socket types, and which `proto_ops` table each one uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `SOCK_STREAM`.
    Stream,
    /// `SOCK_DGRAM` (and `SOCK_RAW`, which becomes `SOCK_DGRAM`).
    Dgram,
    /// `SOCK_SEQPACKET`.
    Seqpacket,
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

/// `sock->flags` bits that an accepted socket inherits (`include/linux/net.h`). Since
/// 6.16 the `SO_PASS*` flags are bits of `sk->sk_scm_recv_flags` instead, which an
/// embryo copies from its listener at connect: there they are the bit numbers of
/// `afunix_sk_pass_flags()`.
mod sock_flag {
    use crate::api::bindings;

    /// `SOCK_PASSCRED`.
    #[cfg(kline_6_12)]
    pub(super) const PASSCRED: u32 = bindings::SOCK_PASSCRED;
    /// `SOCK_PASSSEC`.
    #[cfg(kline_6_12)]
    pub(super) const PASSSEC: u32 = bindings::SOCK_PASSSEC;
    /// `SOCK_PASSPIDFD`.
    #[cfg(kline_6_12)]
    pub(super) const PASSPIDFD: u32 = bindings::SOCK_PASSPIDFD;
    /// `sk_scm_credentials`.
    #[cfg(kline_7_3)]
    pub(super) const PASSCRED: u32 = bindings::AFUNIX_PASS_CRED;
    /// `sk_scm_security`.
    #[cfg(kline_7_3)]
    pub(super) const PASSSEC: u32 = bindings::AFUNIX_PASS_SEC;
    /// `sk_scm_pidfd`.
    #[cfg(kline_7_3)]
    pub(super) const PASSPIDFD: u32 = bindings::AFUNIX_PASS_PIDFD;
    /// `SOCK_CUSTOM_SOCKOPT`: `SOL_SOCKET` options go to the family's `setsockopt`.
    pub(super) const CUSTOM_SOCKOPT: u32 = bindings::AFUNIX_SOCK_CUSTOM_SOCKOPT;
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

/// `flush_work()`: waits for the last queueing of `work` to finish running.
pub(crate) fn flush_work<T>(work: &kernel::workqueue::Work<T>) {
    // SAFETY: `work` is an initialised work item, alive while borrowed; process
    // context without locks (a sender before it queues).
    unsafe { kernel::bindings::flush_work(kernel::workqueue::Work::raw_get(work)) };
}
