// SPDX-License-Identifier: GPL-2.0

//! Netlink: requests read, replies written, dumps run.
//!
//! [`NlMsg`] is a received message (header and typed [`Payload`]). [`NlSkb`] is the right
//! to write messages into a netlink skb: [`NlSkb::put_msg`] starts one (`nlmsg_put`), and
//! the [`NlMsgBuilder`] it returns appends attributes (`nla_put`, `nla_reserve`) and ends
//! or cancels it; every "does not fit" is `EMSGSIZE`. [`ReplySkb`] owns a new skb
//! (`nlmsg_new`, freed unless sent). [`NetlinkDump`] is the callback of a netlink dump,
//! run by [`DumpAdapter`] with the dump's [`DumpSkb`] and [`DumpCb`]. [`UserNs`] is the
//! user namespace of a requester, for the uids a reply shows.

use crate::api::bindings;
use crate::api::error::EMSGSIZE;
use crate::api::net::Net;
use crate::api::sock::Sock;
use core::ffi::{c_int, c_long, c_void};
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use kernel::error::{code::ENOMEM, Error, Result};
use kernel::types::Opaque;

/// `NLM_F_MULTI`: a message of a multipart reply (a dump's).
pub(crate) const NLM_F_MULTI: u16 = bindings::NLM_F_MULTI as u16;

/// `NLM_F_DUMP`: the request asks for a dump.
const NLM_F_DUMP: u16 = bindings::NLM_F_DUMP as u16;

/// A C struct that is the payload of a netlink message, read or written as it is.
///
/// # Safety
///
/// The type is a `repr(C)` struct (or `repr(transparent)` over one) without padding
/// bytes, and every bit pattern is a valid value of it.
pub(crate) unsafe trait Payload: Copy {}

/// A netlink message (`struct nlmsghdr` and its payload).
///
/// # Invariants
///
/// The header of a message of `nlmsg_len` readable bytes, which nothing writes while it
/// is borrowed.
#[repr(transparent)]
pub(crate) struct NlMsg(Opaque<bindings::nlmsghdr>);

impl NlMsg {
    /// Borrows a netlink message.
    ///
    /// # Safety
    ///
    /// `nlh` is the header of a message of `nlmsg_len` readable bytes, not written for
    /// `'a`.
    pub(super) unsafe fn from_raw<'a>(nlh: *const bindings::nlmsghdr) -> &'a NlMsg {
        // CAST: `NlMsg` is `repr(transparent)` over `struct nlmsghdr`.
        // SAFETY: Valid and unwritten for `'a` (safety requirements).
        unsafe { &*nlh.cast::<NlMsg>() }
    }

    /// The raw header.
    pub(super) fn as_ptr(&self) -> *mut bindings::nlmsghdr {
        self.0.get()
    }

    /// `nlmsg_seq`.
    #[inline]
    pub(crate) fn seq(&self) -> u32 {
        // SAFETY: A readable header (type invariant).
        unsafe { (*self.as_ptr()).nlmsg_seq }
    }

    /// Whether `nlmsg_flags` has a bit of `NLM_F_DUMP` (`NLM_F_ROOT`, `NLM_F_MATCH`).
    #[inline]
    pub(crate) fn is_dump(&self) -> bool {
        // SAFETY: A readable header (type invariant).
        let flags = unsafe { (*self.as_ptr()).nlmsg_flags };
        flags & NLM_F_DUMP != 0
    }

    /// The payload as a `P`, or `None` if `nlmsg_len()` is shorter than a `P`.
    pub(crate) fn payload<P: Payload>(&self) -> Option<P> {
        // SAFETY: A readable header (type invariant).
        let len = unsafe { bindings::afunix_nlmsg_len(self.as_ptr()) };
        if len < core::mem::size_of::<P>() as c_int {
            return None;
        }
        // SAFETY: The message holds a whole `P` (checked), maybe unaligned; any bytes
        // are a valid `P` (`Payload`).
        Some(unsafe {
            bindings::afunix_nlmsg_data(self.as_ptr())
                .cast::<P>()
                .read_unaligned()
        })
    }
}

/// The right to write messages into a netlink skb.
///
/// # Invariants
///
/// `skb` is a netlink skb that the holder may write for `'a`, and no other `NlSkb` for
/// it is in use meanwhile.
pub(crate) struct NlSkb<'a> {
    skb: *mut bindings::sk_buff,
    _skb: PhantomData<&'a mut bindings::sk_buff>,
}

impl<'a> NlSkb<'a> {
    /// Writes into `skb`.
    ///
    /// # Safety
    ///
    /// `skb` is a netlink skb that the caller may write for `'a`, through this value
    /// only.
    pub(super) unsafe fn from_raw(skb: *mut bindings::sk_buff) -> NlSkb<'a> {
        // INVARIANT: The safety requirements.
        NlSkb {
            skb,
            _skb: PhantomData,
        }
    }

    /// `skb->len`: the bytes written.
    #[inline]
    pub(crate) fn len(&self) -> c_int {
        // SAFETY: A live skb (type invariant).
        unsafe { bindings::afunix_skb_len(self.skb) }
    }

    /// Puts a message header with a payload of `size_of::<P>()` bytes (`nlmsg_put`),
    /// then calls `payload` and writes what it returns; `EMSGSIZE` (without calling
    /// `payload`) if the skb is full.
    pub(crate) fn put_msg<P: Payload>(
        &mut self,
        portid: u32,
        seq: u32,
        ty: u16,
        flags: u16,
        payload: impl FnOnce() -> P,
    ) -> Result<NlMsgBuilder<'_>> {
        let size = core::mem::size_of::<P>();
        // SAFETY: A writable netlink skb (type invariant).
        let nlh = unsafe {
            bindings::afunix_nlmsg_put(
                self.skb,
                portid,
                seq,
                c_int::from(ty),
                size as c_int,
                c_int::from(flags),
            )
        };
        let nlh = NonNull::new(nlh).ok_or_else(|| Error::from(EMSGSIZE))?;
        let p = payload();
        // SAFETY: `nlmsg_put` reserved `size` bytes of payload, maybe unaligned; `P` has
        // no padding (`Payload`), so every byte written is initialised.
        unsafe {
            bindings::afunix_nlmsg_data(nlh.as_ptr())
                .cast::<P>()
                .write_unaligned(p)
        };
        // INVARIANT: The message just put, in the skb this borrow may write.
        Ok(NlMsgBuilder {
            skb: self.skb,
            nlh,
            _skb: PhantomData,
        })
    }
}

/// A netlink message being written: attributes go after its payload until it is ended
/// ([`NlMsgBuilder::end`]) or removed ([`NlMsgBuilder::cancel`]).
///
/// # Invariants
///
/// `skb` is a netlink skb writable for `'s` (through this value only), and `nlh` the
/// header of the message last put into it, neither ended nor cancelled.
#[must_use = "a message is ended or cancelled"]
pub(crate) struct NlMsgBuilder<'s> {
    skb: *mut bindings::sk_buff,
    nlh: NonNull<bindings::nlmsghdr>,
    _skb: PhantomData<&'s mut bindings::sk_buff>,
}

impl NlMsgBuilder<'_> {
    /// The raw skb, for the attribute writers of other `api` files.
    pub(super) fn skb_ptr(&mut self) -> *mut bindings::sk_buff {
        self.skb
    }

    /// Appends attribute `ty` with `data` (`nla_put`); `EMSGSIZE` if it does not fit.
    pub(crate) fn put(&mut self, ty: u16, data: &[u8]) -> Result {
        // SAFETY: The skb is writable (type invariant); `data` is readable.
        let r = unsafe {
            bindings::nla_put(
                self.skb,
                c_int::from(ty),
                data.len() as c_int,
                data.as_ptr().cast::<c_void>(),
            )
        };
        if r < 0 {
            return Err(EMSGSIZE.into());
        }
        Ok(())
    }

    /// Appends attribute `ty` with `v` in host order.
    #[inline]
    pub(crate) fn put_u32(&mut self, ty: u16, v: u32) -> Result {
        self.put(ty, &v.to_ne_bytes())
    }

    /// Appends attribute `ty` with `n` 32-bit words from `words` (0 for those it lacks),
    /// reserved first (`nla_reserve`); `EMSGSIZE` if they do not fit.
    pub(crate) fn put_words(
        &mut self,
        ty: u16,
        n: u32,
        words: &mut dyn Iterator<Item = u32>,
    ) -> Result {
        // `nla_len` is 16 bits, header included.
        let len = n
            .checked_mul(4)
            .filter(|&l| l <= u32::from(u16::MAX) - 4)
            .ok_or_else(|| Error::from(EMSGSIZE))?;
        // SAFETY: The skb is writable (type invariant).
        let attr = unsafe { bindings::nla_reserve(self.skb, c_int::from(ty), len as c_int) };
        if attr.is_null() {
            return Err(EMSGSIZE.into());
        }
        // SAFETY: `nla_reserve` reserved `len` bytes of payload after the header.
        let data = unsafe { bindings::afunix_nla_data(attr).cast::<u8>() };
        for i in 0..n as usize {
            let w = words.next().unwrap_or(0).to_ne_bytes();
            // SAFETY: Word `i` of the `n` reserved ones, maybe unaligned.
            unsafe { ptr::copy_nonoverlapping(w.as_ptr(), data.add(4 * i), 4) };
        }
        Ok(())
    }

    /// Ends the message (`nlmsg_end`).
    pub(crate) fn end(self) {
        // SAFETY: The message last put (type invariant), ended once (`self` goes).
        unsafe { bindings::afunix_nlmsg_end(self.skb, self.nlh.as_ptr()) };
    }

    /// Removes the message from the skb (`nlmsg_cancel`).
    pub(crate) fn cancel(self) {
        // SAFETY: As in `end`.
        unsafe { bindings::afunix_nlmsg_cancel(self.skb, self.nlh.as_ptr()) };
    }
}

/// A new netlink skb for a unicast reply (`nlmsg_new`), freed when dropped unless it is
/// sent.
///
/// # Invariants
///
/// `skb` is a netlink skb that this value owns.
pub(crate) struct ReplySkb {
    skb: NonNull<bindings::sk_buff>,
}

impl ReplySkb {
    /// `nlmsg_new(payload, GFP_KERNEL)` (may sleep); `ENOMEM` if it fails.
    pub(crate) fn new(payload: usize) -> Result<ReplySkb> {
        // SAFETY: Allocates; the caller may sleep (a `GFP_KERNEL` caller).
        let skb = unsafe { bindings::afunix_nlmsg_new(payload) };
        // INVARIANT: A new skb, owned from here.
        Ok(ReplySkb {
            skb: NonNull::new(skb).ok_or(ENOMEM)?,
        })
    }

    /// The right to write the skb, while `self` is borrowed.
    #[inline]
    pub(crate) fn writer(&mut self) -> NlSkb<'_> {
        // SAFETY: An owned skb (type invariant), written only through this borrow.
        unsafe { NlSkb::from_raw(self.skb.as_ptr()) }
    }

    /// Gives the skb up to a sender (which consumes it).
    pub(super) fn into_raw(self) -> *mut bindings::sk_buff {
        let skb = self.skb.as_ptr();
        core::mem::forget(self);
        skb
    }
}

impl Drop for ReplySkb {
    fn drop(&mut self) {
        // SAFETY: Owned and unsent (type invariant).
        unsafe { bindings::afunix_nlmsg_free(self.skb.as_ptr()) };
    }
}

/// The user namespace of a requester's socket, in which a reply shows uids.
///
/// # Invariants
///
/// A live user namespace, for `'a`.
#[derive(Clone, Copy)]
pub(crate) struct UserNs<'a> {
    ns: *mut bindings::user_namespace,
    _ns: PhantomData<&'a bindings::user_namespace>,
}

impl<'a> UserNs<'a> {
    /// Borrows a user namespace.
    ///
    /// # Safety
    ///
    /// `ns` is a live user namespace for `'a`.
    pub(super) unsafe fn from_raw(ns: *mut bindings::user_namespace) -> UserNs<'a> {
        // INVARIANT: The safety requirements.
        UserNs {
            ns,
            _ns: PhantomData,
        }
    }

    /// The owner of `sk` as this namespace shows it: `from_kuid_munged(ns,
    /// sock_i_uid(sk))`.
    pub(crate) fn uid_of(self, sk: &Sock) -> u32 {
        // SAFETY: `sk` is live; the namespace is live (type invariant).
        unsafe { bindings::from_kuid_munged(self.ns, bindings::afunix_sock_uid(sk.as_ptr())) }
    }
}

/// What a dump callback leaves: more to come, or the end (the core then sends
/// `NLMSG_DONE`).
pub(crate) enum DumpStatus {
    /// The skb's messages go out and the callback runs again (`skb->len` returned; 0,
    /// an empty skb, also ends the dump).
    More,
    /// The dump is over (0 returned).
    Done,
}

/// The callback of a netlink dump (`netlink_dump_control::dump`), started by a request
/// handler of an `api` file with [`DumpAdapter`].
pub(crate) trait NetlinkDump {
    /// Fills `skb` with the next messages of the dump; an error ends it.
    fn dump(skb: &mut DumpSkb<'_>, cb: &mut DumpCb<'_>) -> Result<DumpStatus>;
}

/// The skb of one dump call, with the requester's netlink socket set (`skb->sk`).
///
/// # Invariants
///
/// `skb` is the skb of a running dump call, writable for `'a` through this value only,
/// and `skb->sk` the dumping netlink socket, live for `'a`.
pub(crate) struct DumpSkb<'a> {
    skb: *mut bindings::sk_buff,
    _skb: PhantomData<&'a mut bindings::sk_buff>,
}

impl<'a> DumpSkb<'a> {
    /// The right to write the skb, while `self` is borrowed.
    #[inline]
    pub(crate) fn writer(&mut self) -> NlSkb<'_> {
        // SAFETY: Writable, through this borrow only (type invariant).
        unsafe { NlSkb::from_raw(self.skb) }
    }

    /// The user namespace of the dumping socket (`sk_user_ns(skb->sk)`).
    pub(crate) fn user_ns(&self) -> UserNs<'a> {
        // SAFETY: The dump's skb, with its socket (type invariant), which holds its user
        // namespace (the `sk_user_ns` of the socket's file credentials) for `'a`.
        unsafe { UserNs::from_raw(bindings::afunix_skb_user_ns(self.skb)) }
    }

    /// The netns of the dumping socket (`sock_net(skb->sk)`), live for `'a` (the socket
    /// holds it), and with the module's data (the dump holds a module reference).
    pub(crate) fn net(&self) -> &'a Net {
        // SAFETY: The dump's skb, with its socket (type invariant), which holds its netns
        // for the dump.
        unsafe { Net::from_raw(bindings::afunix_skb_net(self.skb)) }
    }
}

/// The `struct netlink_callback` of a running dump.
///
/// # Invariants
///
/// `cb` is the callback of a running dump call, which the holder may write for `'a`;
/// its `nlh` is the request, `skb` the request's skb.
pub(crate) struct DumpCb<'a> {
    cb: *mut bindings::netlink_callback,
    _cb: PhantomData<&'a mut bindings::netlink_callback>,
}

// `cb->args` (`long args[6]`) is handed out as `i64` words.
const _: () = assert!(core::mem::size_of::<c_long>() == core::mem::size_of::<i64>());

impl<'a> DumpCb<'a> {
    /// The request that started the dump (`cb->nlh`).
    pub(crate) fn request(&self) -> &'a NlMsg {
        // SAFETY: The dump's callback (type invariant); the core keeps the request (in
        // `cb->skb`) for the whole dump and does not write it.
        unsafe { NlMsg::from_raw(bindings::afunix_cb_nlh(self.cb)) }
    }

    /// The netlink port of the requester (`NETLINK_CB(cb->skb).portid`).
    pub(crate) fn request_portid(&self) -> u32 {
        // SAFETY: The dump's callback and its request skb (type invariant).
        unsafe { bindings::afunix_netlink_portid(bindings::afunix_cb_skb(self.cb)) }
    }

    /// The callback's scratch words (`cb->args`), kept between the dump's calls (zero at
    /// the first).
    pub(crate) fn args(&mut self) -> &mut [i64; 6] {
        // SAFETY: The callback is writable for `'a` (type invariant); its `args` are six
        // `long`s (of `i64`'s size, asserted above), aligned as `long`.
        unsafe { &mut *bindings::afunix_cb_args(self.cb).cast::<[i64; 6]>() }
    }
}

/// The trampoline of a [`NetlinkDump`].
pub(super) struct DumpAdapter<T: NetlinkDump>(PhantomData<T>);

impl<T: NetlinkDump> DumpAdapter<T> {
    /// `netlink_dump_control::dump`.
    ///
    /// # Safety
    ///
    /// Only called by the netlink core, with the skb of a dump call and its callback.
    pub(super) unsafe extern "C" fn dump(
        skb: *mut bindings::sk_buff,
        cb: *mut bindings::netlink_callback,
    ) -> c_int {
        // INVARIANT: The dump's skb, with the dumping socket, and its callback, both the
        // call's to write (safety requirements).
        let mut skb = DumpSkb {
            skb,
            _skb: PhantomData,
        };
        let mut cb = DumpCb {
            cb,
            _cb: PhantomData,
        };
        match T::dump(&mut skb, &mut cb) {
            Ok(DumpStatus::More) => skb.writer().len(),
            Ok(DumpStatus::Done) => 0,
            Err(e) => e.to_errno(),
        }
    }
}
