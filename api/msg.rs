// SPDX-License-Identifier: GPL-2.0

//! The message header of a `sendmsg`/`recvmsg` call: its flags, name, control buffer
//! (`put_cmsg`) and data iterator.

use crate::api::addr::{sun_addr_from_raw, Address, SunAddr, AF_UNIX, PATH_OFFSET};
use crate::api::bindings;
use core::ffi::c_int;
use core::ptr::{self, NonNull};
use kernel::error::Result;

/// A message header passed to `sendmsg`/`recvmsg`.
///
/// # Invariants
///
/// `self.0` is the live `struct msghdr` of the current call; `self.1`: a name returned
/// on receive says `AF_UNIX` ([`Msg::names_as_unix`]).
pub(crate) struct Msg(NonNull<bindings::msghdr>, bool);

impl Msg {
    /// Wraps the `msghdr` of a `sendmsg`/`recvmsg` call.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for the lifetime of the returned value.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::msghdr) -> Result<Msg> {
        // INVARIANT: Valid by the safety requirements.
        NonNull::new(ptr)
            .map(|p| Msg(p, false))
            .ok_or(kernel::error::code::EINVAL)
    }

    /// `msg_flags`: on send, the flags of the call.
    pub(crate) fn flags(&self) -> MsgFlags {
        // SAFETY: `self.0` is valid (type invariant).
        MsgFlags::from_raw(unsafe { (*self.0.as_ptr()).msg_flags })
    }

    /// Adds bits to `msg_flags` (on receive: `MSG_TRUNC`).
    pub(crate) fn add_flags(&mut self, bits: MsgFlags) {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { (*self.0.as_ptr()).msg_flags |= bits.raw() };
    }

    /// `msg_namelen`: on send, the length of the destination address, if any.
    pub(crate) fn namelen(&self) -> i32 {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { (*self.0.as_ptr()).msg_namelen }
    }

    /// Says that no source address is returned (unnamed sender).
    pub(crate) fn clear_name(&mut self) {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { (*self.0.as_ptr()).msg_namelen = 0 };
    }

    /// On send: the destination address, if the caller gave one.
    pub(crate) fn name(&self) -> Option<SunAddr> {
        // SAFETY: `self.0` is valid (type invariant); `msg_name` holds `msg_namelen`
        // bytes when non-NULL (the socket core copied the address in).
        unsafe {
            let m = self.0.as_ptr();
            let len = usize::try_from((*m).msg_namelen).ok().filter(|&l| l != 0)?;
            if (*m).msg_name.is_null() {
                return None;
            }
            Some(sun_addr_from_raw((*m).msg_name.cast(), len))
        }
    }

    /// On receive: whether the caller gave a buffer for the sender's name
    /// (`msg_name`).
    pub(crate) fn wants_name(&self) -> bool {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { !(*self.0.as_ptr()).msg_name.is_null() }
    }

    /// On receive: returns the sender's address, if the caller asked for one
    /// (`unix_copy_addr()`); an unnamed sender leaves the length at 0. Its
    /// `sun_family` says `AF_UNIX` for a socket that names itself so. Nothing on a send,
    /// whose `msg_name` is the destination.
    pub(crate) fn set_name(&mut self, addr: Option<&Address>) {
        // SAFETY: `self.0` is valid (type invariant). A non-NULL `msg_name` of a
        // receive is a `struct sockaddr_storage` (128 bytes) of the socket core; an
        // address has at most 111.
        unsafe {
            let m = self.0.as_ptr();
            if (*m).msg_name.is_null() || (*m).msg_iter.data_source {
                return;
            }
            (*m).msg_namelen = 0;
            if let Some(a) = addr {
                let b = a.as_bytes();
                ptr::copy_nonoverlapping(b.as_ptr(), (*m).msg_name.cast::<u8>(), b.len());
                if self.1 {
                    (*m).msg_name
                        .cast::<[u8; PATH_OFFSET]>()
                        .write(AF_UNIX.to_ne_bytes());
                }
                (*m).msg_namelen = b.len() as c_int;
            }
        }
    }

    /// Names returned by this receive say `AF_UNIX` (the recvmsg trampoline, for a
    /// socket of `afunix-run`).
    pub(in crate::api) fn names_as_unix(&mut self) {
        self.1 = true;
    }

    pub(super) fn iter(&mut self) -> *mut bindings::iov_iter {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { ptr::addr_of_mut!((*self.0.as_ptr()).msg_iter) }
    }

    /// On send: fills `buf` with the next `buf.len()` bytes of the data
    /// (`copy_from_iter_full()`); `EFAULT` if they cannot all be read (the iterator is
    /// then where it was).
    // 7.3's kernel::iov::IovIterSource: not used: 6.12 lacks it, it has no
    // copy_from_iter_full(), and the iterator otherwise goes to C (skb copies, splice).
    pub(crate) fn copy_data(&mut self, buf: &mut [u8]) -> Result {
        let iter = self.iter();
        // SAFETY: `buf` is `buf.len()` writable bytes; `iter` is the message's iterator.
        let ok = unsafe {
            bindings::afunix_copy_from_iter_full(buf.as_mut_ptr().cast(), buf.len(), iter)
        };
        if ok {
            Ok(())
        } else {
            Err(kernel::error::code::EFAULT)
        }
    }

    /// On send: fills `buf` with the next `buf.len()` bytes of the data, as
    /// [`Msg::copy_data`], then calls `f` with them. If `f` fails, the iterator is put
    /// back where it was (`iov_iter_revert()`), as if nothing had been read: a caller
    /// that sends the same message again (io_uring after `EAGAIN`) sends these bytes.
    pub(crate) fn copy_data_then<T>(
        &mut self,
        buf: &mut [u8],
        f: impl FnOnce(&[u8]) -> Result<T>,
    ) -> Result<T> {
        self.copy_data(buf)?;
        let r = f(buf);
        if r.is_err() {
            let iter = self.iter();
            // SAFETY: `iter` is the message's iterator, advanced by exactly `buf.len()`
            // bytes above (`copy_from_iter_full()` succeeded) and by nothing since: `f`
            // cannot reach `self`, borrowed here. Walking them back stays within its
            // segments.
            unsafe { bindings::iov_iter_revert(iter, buf.len()) };
        }
        r
    }

    /// On send: the control data, `msg_controllen` bytes at `msg_control`, or `None`
    /// when there is none (`msg_controllen` 0). During `sendmsg` this is the socket
    /// core's kernel copy (`msg_control_is_user` false); a user pointer, or a NULL one
    /// with a length, gives `EFAULT` (no caller in 6.12 passes either).
    pub(crate) fn control(&self) -> Result<Option<&[u8]>> {
        // SAFETY: `self.0` is valid (type invariant). A kernel `msg_control` of a send
        // holds `msg_controllen` bytes (copied in by `____sys_sendmsg`, at most
        // INT_MAX), unchanged while the call runs; the slice borrows `self`.
        unsafe {
            let m = self.0.as_ptr();
            let len = (*m).msg_controllen;
            if len == 0 {
                return Ok(None);
            }
            let p = (*m).__bindgen_anon_1.msg_control;
            if (*m).msg_control_is_user() || p.is_null() || len > isize::MAX as usize {
                return Err(kernel::error::code::EFAULT);
            }
            Ok(Some(core::slice::from_raw_parts(p.cast::<u8>(), len)))
        }
    }

    /// The raw `struct msghdr`.
    pub(crate) fn as_ptr(&self) -> *mut bindings::msghdr {
        self.0.as_ptr()
    }

    /// Whether the control buffer is the caller's user memory (a `recvmsg` syscall).
    pub(crate) fn control_is_user(&self) -> bool {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { (*self.0.as_ptr()).msg_control_is_user() }
    }

    /// On receive: whether the caller gave a control buffer (`msg_control` not NULL).
    pub(crate) fn has_control(&self) -> bool {
        // SAFETY: `self.0` is valid (type invariant); both members of the union are
        // pointers, only compared to NULL.
        unsafe { !(*self.0.as_ptr()).__bindgen_anon_1.msg_control.is_null() }
    }

    /// On receive: the room left in the control buffer (`msg_controllen`).
    pub(crate) fn controllen(&self) -> usize {
        // SAFETY: `self.0` is valid (type invariant).
        unsafe { (*self.0.as_ptr()).msg_controllen }
    }

    /// On receive: appends a control message (`put_cmsg()`: `MSG_CTRUNC` when it does
    /// not fit; a fault is ignored, as AF_UNIX ignores it).
    pub(crate) fn put_cmsg(&mut self, level: i32, ty: i32, data: &[u8]) {
        let len = c_int::try_from(data.len()).unwrap_or(c_int::MAX);
        // SAFETY: `self.0` is valid (type invariant); `put_cmsg` reads `len` bytes of
        // `data` (it takes a non-const pointer but does not write through it) and
        // checks the caller's buffer.
        unsafe {
            bindings::put_cmsg(
                self.0.as_ptr(),
                level,
                ty,
                len,
                data.as_ptr().cast_mut().cast(),
            )
        };
    }
}

/// `msg_flags` of a send or receive (`MSG_*`), the bits the protocol reads or sets.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct MsgFlags(u32);

impl MsgFlags {
    /// None.
    pub(crate) const NONE: MsgFlags = MsgFlags(0);
    /// `MSG_OOB`.
    pub(crate) const OOB: MsgFlags = MsgFlags(bindings::MSG_OOB);
    /// `MSG_PEEK`.
    pub(crate) const PEEK: MsgFlags = MsgFlags(bindings::MSG_PEEK);
    /// `MSG_CTRUNC`.
    pub(crate) const CTRUNC: MsgFlags = MsgFlags(bindings::AFUNIX_MSG_CTRUNC);
    /// `MSG_TRUNC`.
    pub(crate) const TRUNC: MsgFlags = MsgFlags(0x20);
    /// `MSG_DONTWAIT`.
    pub(crate) const DONTWAIT: MsgFlags = MsgFlags(0x40);
    /// `MSG_WAITALL`.
    pub(crate) const WAITALL: MsgFlags = MsgFlags(0x100);
    /// `MSG_NOSIGNAL`.
    pub(crate) const NOSIGNAL: MsgFlags = MsgFlags(0x4000);
    /// `MSG_CMSG_COMPAT`: a 32-bit caller (control messages in the compat layout).
    pub(crate) const CMSG_COMPAT: MsgFlags = MsgFlags(bindings::AFUNIX_MSG_CMSG_COMPAT);
    /// `MSG_SPLICE_PAGES`: the message's iterator holds pages to take, not copy (set
    /// only by the kernel: `splice()` and `sendfile()` into the socket).
    pub(crate) const SPLICE_PAGES: MsgFlags = MsgFlags(bindings::AFUNIX_MSG_SPLICE_PAGES);

    /// The flags of a system call.
    pub(crate) fn from_raw(v: u32) -> MsgFlags {
        MsgFlags(v)
    }

    /// The raw bits, for the C calls that take them.
    pub(crate) fn raw(self) -> u32 {
        self.0
    }

    /// Whether any bit of `other` is set.
    pub(crate) fn has(self, other: MsgFlags) -> bool {
        self.0 & other.0 != 0
    }
}

impl core::ops::BitOr for MsgFlags {
    type Output = MsgFlags;
    fn bitor(self, o: MsgFlags) -> MsgFlags {
        MsgFlags(self.0 | o.0)
    }
}
