// SPDX-License-Identifier: GPL-2.0

//! The LSM hooks of AF_UNIX's connect and send paths (`security_unix_stream_connect()`,
//! `security_unix_may_send()`), its datagram security ids (`SCM_SECURITY`), and the
//! receiver's socket filter (`sk_filter()`, which also calls `security_sock_rcv_skb()`).
//!
//! An LSM sees the family's sockets as AF_UNIX's: each begins with a `struct unix_sock`
//! whose `lock`, `addr` and `peer` are the ones the module uses (Landlock reads the
//! three). Without `CONFIG_SECURITY_NETWORK` the hooks are the kernel's stubs: they
//! allow everything and give no security ids.
//!
//! 7.3's `kernel::security`: not used: it has the binder hooks and `SecurityCtx` only, none
//! of these; `SecurityCtx` would do 7.3's half of `afunix_scm_passec()` alone.

use crate::api::bindings;
use crate::api::error::to_result;
use crate::api::msg::Msg;
use crate::api::sock::{Embryo, Skb, Sock, Socket, StateGuard};
use crate::api::vfs::SocketFile;
use kernel::error::{code::EPERM, Result};

/// `security_unix_stream_connect(sk, other, newsk)`: may `client` connect to `listener`,
/// through `embryo`, the listener's new socket? An LSM labels the embryo here. Both
/// state locks are held (the guards), as in `unix_stream_connect()`.
// Inlined: once per connect.
#[inline(always)]
pub(crate) fn unix_stream_connect(
    client: &StateGuard<'_>,
    listener: &StateGuard<'_>,
    embryo: &Embryo,
) -> Result {
    // SAFETY: The three are live sockets of this family, each a `struct unix_sock`; the
    // client's and the listener's state locks are held for the call, as the hook
    // expects (Landlock asserts the listener's), and the listener is not dead (checked
    // under its lock by the caller), so it has its `struct socket` and file.
    to_result(unsafe {
        bindings::afunix_security_unix_stream_connect(
            client.sock().as_ptr(),
            listener.sock().as_ptr(),
            embryo.as_ptr(),
        )
    })
}

/// `security_unix_may_send(sock, other->sk_socket)`: may the socket `sock` of the
/// calling system call send to (or connect a datagram socket to) `other`, whose state
/// lock `other` holds? `EPERM` if `other` has lost its `struct socket` (a dead socket;
/// callers check that first).
pub(crate) fn unix_may_send(sock: &Socket, other: &StateGuard<'_>) -> Result {
    let b = other.sock().raw_socket();
    if b.is_null() {
        return Err(EPERM);
    }
    // SAFETY: `sock` is lent by the system call, so it and its `sk` (which hooks read)
    // stay; `b` is `other`'s `struct socket`, held while its state lock is
    // (`sock_orphan` clears it under that lock, before the release trampoline clears
    // its `sk`). The hook reads `unix_peer(sk)` (it may race with a connect of `sk`,
    // as in AF_UNIX) and `unix_sk(other)` under the held lock; it does not sleep.
    to_result(unsafe { bindings::afunix_security_unix_may_send(sock.as_ptr(), b) })
}

/// `security_unix_find(path, other, flags)` (upstream 7.1): may the caller reach
/// `other`, the socket bound at `file`, by its pathname? Landlock's
/// `LANDLOCK_ACCESS_FS_RESOLVE_UNIX` refuses here. Allowed always on 6.12, which lacks it.
/// Not under `other`'s state lock, which Landlock takes (lockdep reports it, on both lines).
pub(crate) fn unix_find(file: &SocketFile, other: &Sock) -> Result {
    // SAFETY: `file`'s path is held and `other` is a live socket of this family (a
    // `struct unix_sock`, the caller's reference); a caller holding its state lock
    // deadlocks, no more. Flags 0: AF_UNIX passes connect's file flags, of
    // which a hook reads only `SOCK_COREDUMP`, the kernel's own coredump connects.
    to_result(unsafe { bindings::afunix_security_unix_find(file.path_ptr(), other.as_ptr(), 0) })
}

/// The security id of a datagram sent by `sk` (`unix_get_peersec_dgram()`, in
/// `scm_send()`): 0 without an LSM that labels datagrams.
pub(crate) fn peersec_dgram(sock: &Socket) -> u32 {
    // SAFETY: `sock` is a live `struct socket` (type invariant), the sender's, lent by
    // its system call.
    unsafe { bindings::afunix_security_peersec_dgram(sock.as_ptr()) }
}

/// `sk_filter(sk, skb)`: runs the receiver's LSM check (`security_sock_rcv_skb()`) and
/// socket filter on `skb`, which the filter may trim (to no less than one byte).
/// An error: the skb is to be dropped.
pub(crate) fn sk_filter(sk: &Sock, skb: &mut Skb) -> Result {
    // SAFETY: `sk` is a live socket (the caller holds a reference) and `skb` an skb the
    // caller owns, not queued; the filter runs under RCU inside and restores the parts
    // of `skb->cb` it may write.
    to_result(unsafe { bindings::afunix_sk_filter(sk.as_ptr(), skb.view().as_ptr()) })
}

/// `scm_passec()`: on a receive by `sk` with `SO_PASSSEC`, the `SCM_SECURITY` message
/// of the sender's security id, when an LSM gave the datagram one and has a context for
/// it. Without an id (0: no LSM labelled the send; SELinux and Smack label only
/// `PF_UNIX` sockets' datagrams) there is no message, where `scm_passec()` would ask
/// the LSM for the context of id 0 (SELinux's `unlabeled`, Smack's `?`).
pub(crate) fn put_secctx(sock: &Socket, m: &mut Msg, secid: u32) {
    if secid == 0 {
        return;
    }
    // SAFETY: `sock` is the receiver's `struct socket`, lent by its system call (live,
    // type invariant); `m` is the message of that receive (valid, type invariant of
    // `Msg`).
    unsafe { bindings::afunix_scm_passec(sock.as_ptr(), m.as_ptr(), secid) };
}
