// SPDX-License-Identifier: GPL-2.0

//! `struct sock_diag_handler` from a safe trait, and what AF_UNIX's diag format needs.
//!
//! [`SockDiag`] is the handler of a family (`#[vtable]`: `dump` is required, as the core
//! calls it without a check; `get_info` and `destroy` are optional), [`handler`] builds
//! its C table for the crate root to register. A request reaches it as a
//! [`DiagRequest`], which answers with a dump ([`DiagRequest::start_dump`]) or one
//! reply ([`DiagRequest::unicast`]). The rest is `include/uapi/linux/unix_diag.h`: the
//! request ([`UnixDiagReq`]), the reply's header ([`UnixDiagMsg`]), the [`show`] bits
//! and [`attr`] types, and the sock_diag helpers on [`Sock`] (cookie) and on
//! [`NlMsgBuilder`] (`sock_diag_put_meminfo`).

use crate::api::bindings;
use crate::api::error::EMSGSIZE;
use crate::api::net::Net;
use crate::api::netlink::{DumpAdapter, NetlinkDump, NlMsg, NlMsgBuilder, NlSkb};
use crate::api::netlink::{Payload, ReplySkb, UserNs};
use crate::api::sock::Sock;
use core::ffi::c_int;
use core::marker::PhantomData;
use kernel::error::{code::EINVAL, from_result, to_result, Result, VTABLE_DEFAULT_ERROR};
use kernel::prelude::vtable;

/// `SOCK_DIAG_BY_FAMILY`: the message type of requests and replies.
pub(crate) const SOCK_DIAG_BY_FAMILY: u16 = bindings::SOCK_DIAG_BY_FAMILY as u16;

/// The `udiag_show` bits of a request (`UDIAG_SHOW_*`).
pub(crate) mod show {
    use crate::api::bindings;

    /// `UNIX_DIAG_NAME`.
    pub(crate) const NAME: u32 = bindings::UDIAG_SHOW_NAME;
    /// `UNIX_DIAG_VFS`.
    pub(crate) const VFS: u32 = bindings::UDIAG_SHOW_VFS;
    /// `UNIX_DIAG_PEER`.
    pub(crate) const PEER: u32 = bindings::UDIAG_SHOW_PEER;
    /// `UNIX_DIAG_ICONS`.
    pub(crate) const ICONS: u32 = bindings::UDIAG_SHOW_ICONS;
    /// `UNIX_DIAG_RQLEN`.
    pub(crate) const RQLEN: u32 = bindings::UDIAG_SHOW_RQLEN;
    /// `UNIX_DIAG_MEMINFO`.
    pub(crate) const MEMINFO: u32 = bindings::UDIAG_SHOW_MEMINFO;
    /// `UNIX_DIAG_UID`.
    pub(crate) const UID: u32 = bindings::UDIAG_SHOW_UID;
}

/// The attribute types of a reply (`UNIX_DIAG_*`).
pub(crate) mod attr {
    use crate::api::bindings;

    /// The address (`sun_path`, as many bytes as it has).
    pub(crate) const NAME: u16 = bindings::UNIX_DIAG_NAME as u16;
    /// `struct unix_diag_vfs`: the bound file's inode number and device.
    pub(crate) const VFS: u16 = bindings::UNIX_DIAG_VFS as u16;
    /// The peer's socket inode number.
    pub(crate) const PEER: u16 = bindings::UNIX_DIAG_PEER as u16;
    /// The socket inode numbers of a listener's queued connections.
    pub(crate) const ICONS: u16 = bindings::UNIX_DIAG_ICONS as u16;
    /// `struct unix_diag_rqlen`.
    pub(crate) const RQLEN: u16 = bindings::UNIX_DIAG_RQLEN as u16;
    /// `sock_diag_put_meminfo()`'s counters.
    pub(crate) const MEMINFO: u16 = bindings::UNIX_DIAG_MEMINFO as u16;
    /// `sk_shutdown` (one byte).
    pub(crate) const SHUTDOWN: u16 = bindings::UNIX_DIAG_SHUTDOWN as u16;
    /// The owner's uid.
    pub(crate) const UID: u16 = bindings::UNIX_DIAG_UID as u16;
}

// SAFETY: `struct unix_diag_req` is `repr(C)`, of integers without padding (1 + 1 + 2 +
// 4 + 4 + 4 + 8 bytes), valid for every bit pattern.
unsafe impl Payload for bindings::unix_diag_req {}

/// `struct unix_diag_req`, read from a request.
#[derive(Clone, Copy)]
pub(crate) struct UnixDiagReq {
    /// `udiag_states`: a bit per socket state to dump.
    pub(crate) states: u32,
    /// `udiag_ino`: the socket inode number of an exact lookup.
    pub(crate) ino: u32,
    /// `udiag_show`: the [`show`] bits.
    pub(crate) show: u32,
    /// `udiag_cookie`: the socket's cookie of an exact lookup.
    pub(crate) cookie: [u32; 2],
}

impl UnixDiagReq {
    /// The request of a `SOCK_DIAG_BY_FAMILY` message, or `EINVAL` if it is too short.
    pub(crate) fn of(msg: &NlMsg) -> Result<UnixDiagReq> {
        let r = msg.payload::<bindings::unix_diag_req>().ok_or(EINVAL)?;
        Ok(UnixDiagReq {
            states: r.udiag_states,
            ino: r.udiag_ino,
            show: r.udiag_show,
            cookie: r.udiag_cookie,
        })
    }

    /// Whether `udiag_show` has the bit `what` (of [`show`]).
    #[inline]
    pub(crate) fn shows(&self, what: u32) -> bool {
        self.show & what != 0
    }
}

/// `struct unix_diag_msg`: the payload of a reply.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct UnixDiagMsg(bindings::unix_diag_msg);

// SAFETY: `repr(transparent)` over `struct unix_diag_msg`, which is `repr(C)`, of
// integers without padding (1 + 1 + 1 + 1 + 4 + 8 bytes), valid for every bit pattern.
unsafe impl Payload for UnixDiagMsg {}

impl UnixDiagMsg {
    /// The header of a reply for a socket of `family`, `ty` and `state`, with socket
    /// inode `ino` and `cookie`.
    #[inline]
    pub(crate) fn new(family: u8, ty: u8, state: u8, ino: u32, cookie: [u32; 2]) -> Self {
        UnixDiagMsg(bindings::unix_diag_msg {
            udiag_family: family,
            udiag_type: ty,
            udiag_state: state,
            pad: 0,
            udiag_ino: ino,
            udiag_cookie: cookie,
        })
    }
}

impl Sock {
    /// `sock_diag_save_cookie()`: the socket's cookie (made at its first use) as two
    /// words, low first.
    pub(crate) fn diag_cookie(&self) -> [u32; 2] {
        let mut cookie = [0u32; 2];
        // SAFETY: `self` is a live socket; the cookie is two words.
        unsafe { bindings::sock_diag_save_cookie(self.as_ptr(), cookie.as_mut_ptr()) };
        cookie
    }

    /// `sock_diag_check_cookie()`: `ESTALE` unless `cookie` is the socket's or
    /// `INET_DIAG_NOCOOKIE`.
    pub(crate) fn check_diag_cookie(&self, cookie: &[u32; 2]) -> Result {
        // SAFETY: `self` is a live socket; the cookie is two words.
        to_result(unsafe { bindings::sock_diag_check_cookie(self.as_ptr(), cookie.as_ptr()) })
    }
}

impl NlMsgBuilder<'_> {
    /// `sock_diag_put_meminfo()`: the memory counters of `sk` as attribute `ty`;
    /// `EMSGSIZE` if they do not fit.
    pub(crate) fn put_meminfo(&mut self, sk: &Sock, ty: u16) -> Result {
        let skb = self.skb_ptr();
        // SAFETY: The message's skb is writable (`NlMsgBuilder`'s invariant); `sk` is
        // live.
        if unsafe { bindings::sock_diag_put_meminfo(sk.as_ptr(), skb, c_int::from(ty)) } != 0 {
            return Err(EMSGSIZE.into());
        }
        Ok(())
    }
}

/// A sock_diag request of the family (`SOCK_DIAG_BY_FAMILY` or `SOCK_DESTROY`).
///
/// # Invariants
///
/// `skb` is the request's skb, with the requester's netlink socket (`skb->sk`, and
/// `NETLINK_CB(skb).sk`) live for `'a`; `msg` its message.
pub(crate) struct DiagRequest<'a> {
    skb: *mut bindings::sk_buff,
    msg: &'a NlMsg,
}

impl<'a> DiagRequest<'a> {
    /// The request's message.
    #[inline]
    pub(crate) fn msg(&self) -> &'a NlMsg {
        self.msg
    }

    /// The requester's netlink port (`NETLINK_CB(skb).portid`).
    pub(crate) fn portid(&self) -> u32 {
        // SAFETY: The request's skb (type invariant).
        unsafe { bindings::afunix_netlink_portid(self.skb) }
    }

    /// The requester's user namespace (`sk_user_ns(NETLINK_CB(skb).sk)`).
    pub(crate) fn user_ns(&self) -> UserNs<'a> {
        // SAFETY: The requester's socket is live for `'a` (type invariant) and holds its
        // user namespace (that of its file's credentials).
        unsafe { UserNs::from_raw(bindings::afunix_netlink_user_ns(self.skb)) }
    }

    /// The requester's netns (`sock_net(skb->sk)`), live for `'a` (the socket holds it),
    /// and with the module's data (the request holds a module reference).
    pub(crate) fn net(&self) -> &'a Net {
        // SAFETY: The request's skb, with its socket (type invariant), which holds its
        // netns for the request.
        unsafe { Net::from_raw(bindings::afunix_skb_net(self.skb)) }
    }

    /// Answers with a dump run by `D` (`netlink_dump_start` on the netns's sock_diag
    /// socket; the dump holds a module reference). Returns what that returns: `-EINTR`
    /// once the dump's first call ran (the core then sends no ack), or an error.
    pub(crate) fn start_dump<D: NetlinkDump>(&self) -> c_int {
        // SAFETY: The request's skb and message (type invariant); the callback is a
        // netlink dump callback for `D`.
        unsafe {
            bindings::afunix_diag_dump_start(
                self.skb,
                self.msg.as_ptr(),
                Some(DumpAdapter::<D>::dump),
            )
        }
    }

    /// Sends `rep` to the requester (`nlmsg_unicast` on the netns's sock_diag socket),
    /// which consumes it even on failure.
    pub(crate) fn unicast(&self, rep: ReplySkb) -> Result {
        // SAFETY: The request's skb (type invariant); `rep` is an owned netlink skb,
        // given up here.
        to_result(unsafe { bindings::afunix_diag_unicast(self.skb, rep.into_raw()) })
    }
}

/// The sock_diag handler of a socket family (`struct sock_diag_handler`).
#[vtable]
pub(crate) trait SockDiag {
    /// `dump`: a `SOCK_DIAG_BY_FAMILY` request; returns what the request returns (0, or
    /// [`DiagRequest::start_dump`]'s value).
    fn dump(req: &DiagRequest<'_>) -> Result<c_int>;

    /// `get_info`: the reply about `sk`, a socket of the family being destroyed, into
    /// `skb` (a new one), for the destroy broadcast.
    fn get_info(_skb: &mut NlSkb<'_>, _sk: &Sock) -> Result {
        kernel::build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// `destroy`: a `SOCK_DESTROY` request.
    fn destroy(_req: &DiagRequest<'_>) -> Result {
        kernel::build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// The trampolines of `T`'s handler.
struct Adapter<T: SockDiag>(PhantomData<T>);

impl<T: SockDiag> Adapter<T> {
    /// The request of a `dump`/`destroy` call.
    ///
    /// # Safety
    ///
    /// `skb` and `nlh` are the arguments of a `dump` or `destroy` call, which runs for
    /// `'a`.
    unsafe fn request<'a>(
        skb: *mut bindings::sk_buff,
        nlh: *mut bindings::nlmsghdr,
    ) -> DiagRequest<'a> {
        // INVARIANT: The core passes the request's skb, with the requester's socket,
        // and its message, both kept for the call.
        DiagRequest {
            skb,
            // SAFETY: The request's message: `nlmsg_len` bytes, checked by the netlink
            // core, not written during the call (safety requirements).
            msg: unsafe { NlMsg::from_raw(nlh) },
        }
    }

    /// # Safety
    ///
    /// Only called by the sock_diag core, with a request's skb and message.
    unsafe extern "C" fn dump(skb: *mut bindings::sk_buff, nlh: *mut bindings::nlmsghdr) -> c_int {
        // SAFETY: The arguments of a `dump` call (safety requirements).
        let req = unsafe { Self::request(skb, nlh) };
        from_result(|| T::dump(&req))
    }

    /// # Safety
    ///
    /// Only called by the sock_diag core, with a new netlink skb and a socket of the
    /// family being destroyed.
    unsafe extern "C" fn get_info(skb: *mut bindings::sk_buff, sk: *mut bindings::sock) -> c_int {
        // SAFETY: The skb is the caller's new one, written only here; the socket is of
        // this family and live during the call (safety requirements).
        let (mut skb, sk) = unsafe { (NlSkb::from_raw(skb), Sock::from_raw(sk)) };
        from_result(|| {
            T::get_info(&mut skb, sk)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the sock_diag core, with a request's skb and message.
    unsafe extern "C" fn destroy(
        skb: *mut bindings::sk_buff,
        nlh: *mut bindings::nlmsghdr,
    ) -> c_int {
        // SAFETY: The arguments of a `destroy` call (safety requirements).
        let req = unsafe { Self::request(skb, nlh) };
        from_result(|| {
            T::destroy(&req)?;
            Ok(0)
        })
    }
}

/// The `struct sock_diag_handler` of `T` for `family`, which `owner` (the module) keeps
/// alive while a request runs; for `sock_diag_register`.
pub(crate) fn handler<T: SockDiag>(
    family: u8,
    owner: *mut bindings::module,
) -> bindings::sock_diag_handler {
    bindings::sock_diag_handler {
        owner,
        family,
        dump: Some(Adapter::<T>::dump),
        get_info: if T::HAS_GET_INFO {
            Some(Adapter::<T>::get_info)
        } else {
            None
        },
        destroy: if T::HAS_DESTROY {
            Some(Adapter::<T>::destroy)
        } else {
            None
        },
    }
}
