// SPDX-License-Identifier: GPL-2.0

//! Socket addresses: validation of the names user space passes (`unix_validate_addr()`,
//! `unix_mkname_bsd()` of 6.12) and the bound address a socket keeps, in AF_UNIX's
//! `struct unix_address` form ([`UnixAddress`]), which kernel readers of `unix_sk()`
//! (LSM hooks) read.
//!
//! The raw `sockaddr` is copied into a [`SunAddr`] (by the `proto_ops` trampolines of
//! [`crate::api::socket`] and by [`crate::api::msg::Msg::name`]) before anything here
//! looks at it.

use crate::api::bindings;
use crate::api::kline::{cstr_bytes, ARef, AlwaysRefCounted};
use core::mem::{offset_of, MaybeUninit};
use core::ops::{Deref, DerefMut};
use core::ptr::{self, NonNull};
use kernel::error::{
    code::{EINVAL, ENOMEM},
    Result,
};
use kernel::str::CStr;
use kernel::types::Opaque;

/// `offsetof(struct sockaddr_un, sun_path)`: the family field's size.
pub(crate) const PATH_OFFSET: usize = 2;

/// `sizeof(struct sockaddr_un)`.
pub(crate) const SUN_LEN: usize = 110;

/// `AF_UNIX`, accepted in `sun_family` besides the module's own number.
pub(crate) const AF_UNIX: u16 = 1;

/// `AF_UNSPEC`: disconnects a datagram socket.
pub(crate) const AF_UNSPEC: u16 = 0;

/// Length of an autobound name: the family, a NUL and five hex digits.
pub(crate) const AUTOBIND_LEN: usize = PATH_OFFSET + 6;

/// A `struct sockaddr_un` as passed in (at most [`SUN_LEN`] bytes of it), with the
/// length the caller gave.
///
/// Only what the caller passed is copied, and one zero byte after it (no zeroing of
/// the whole structure: this is built on every bind, connect and `sendto`).
///
/// # Invariants
///
/// With `n = min(len, SUN_LEN)`, the first `max(n + 1, 2)` bytes of `bytes` are
/// initialised: the caller's `n` bytes, then a zero byte at `n` (and the bytes of
/// `sun_family` the caller did not pass are zero), so a pathname ends in a NUL
/// within them even when the caller filled all of `sun_path` (the place where
/// `unix_mkname_bsd()` writes its NUL, in the core's `struct sockaddr_storage`).
pub(crate) struct SunAddr {
    bytes: [MaybeUninit<u8>; SUN_LEN + 1],
    len: usize,
}

/// What a name designates, after validation.
pub(crate) enum Name<'a> {
    /// A file system name: its bytes up to the first NUL, with that NUL.
    Path(&'a CStr),
    /// An abstract name: `sun_path[0] == 0`, all `len - 2` bytes count.
    Abstract(&'a [u8]),
}

impl SunAddr {
    /// The length the caller passed.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The initialised bytes: the caller's, then a zero byte (at least two bytes).
    fn init_bytes(&self) -> &[u8] {
        let init = (self.len.min(SUN_LEN) + 1).max(PATH_OFFSET);
        // SAFETY: The first `init` bytes are initialised (type invariant), and
        // `init <= SUN_LEN + 1`, the array's length.
        unsafe { core::slice::from_raw_parts(self.bytes.as_ptr().cast::<u8>(), init) }
    }

    /// `sun_family` (the bytes of it the caller did not pass are zero).
    pub(crate) fn family(&self) -> u16 {
        let b = self.init_bytes();
        u16::from_ne_bytes([b[0], b[1]])
    }

    /// Whether `sun_family` names this family: `AF_UNIX` or the module's number.
    pub(crate) fn family_ok(&self) -> bool {
        let f = self.family();
        f == AF_UNIX || i32::from(f) == crate::api::param::family()
    }

    /// `unix_validate_addr()`: a length in (2, 110] and this family.
    pub(crate) fn validate(&self) -> Result<Name<'_>> {
        if self.len <= PATH_OFFSET || self.len > SUN_LEN || !self.family_ok() {
            return Err(EINVAL);
        }
        let bytes = self.init_bytes();
        let path = &bytes[PATH_OFFSET..self.len];
        if path[0] == 0 {
            return Ok(Name::Abstract(path));
        }
        // `unix_mkname_bsd()`: the name ends at the first NUL, or at `len`, where a
        // zero byte follows the caller's (type invariant).
        let with_nul = &bytes[PATH_OFFSET..];
        let Some(end) = with_nul.iter().position(|&b| b == 0) else {
            return Err(EINVAL);
        };
        let c = &with_nul[..=end];
        // SAFETY: `c` ends at its first NUL byte, and has no other.
        Ok(Name::Path(unsafe {
            CStr::from_bytes_with_nul_unchecked(c)
        }))
    }
}

/// The address a socket is bound to: a `struct sockaddr_un` of `len` bytes whose
/// `sun_family` is the module's family number (as getsockname reports it).
///
/// One byte longer than `struct sockaddr_un`: a 108-byte path bound with the whole
/// structure gets its NUL past the end, and a length of 111, as in AF_UNIX (the
/// kernel's address buffers are `struct sockaddr_storage`).
///
/// Laid out as the part of `struct unix_address` after its refcount (`len`, then
/// `name`), so that a [`UnixAddress`] is one.
#[repr(C)]
pub(crate) struct Address {
    len: i32,
    bytes: [u8; SUN_LEN + 1],
}

impl Address {
    fn with_family() -> Address {
        let mut bytes = [0u8; SUN_LEN + 1];
        bytes[..PATH_OFFSET].copy_from_slice(&(crate::api::param::family() as u16).to_ne_bytes());
        Address {
            len: PATH_OFFSET as i32,
            bytes,
        }
    }

    /// Sets the name to a validated one: all bytes of an abstract name; a pathname
    /// with its terminating NUL (`strlen + 3` bytes in all, as `unix_mkname_bsd()`).
    /// The bytes past it must be zero (as [`Address::with_family`] leaves them).
    fn set_name(&mut self, name: &Name<'_>) {
        let (src, extra) = match name {
            Name::Abstract(n) => (*n, 0),
            Name::Path(p) => (cstr_bytes(p), 1),
        };
        // `src` is at most `SUN_LEN - PATH_OFFSET` bytes (`validate`), so the name and
        // a NUL fit.
        let n = src.len().min(SUN_LEN - PATH_OFFSET);
        self.bytes[PATH_OFFSET..PATH_OFFSET + n].copy_from_slice(&src[..n]);
        self.len = (PATH_OFFSET + n + extra) as i32;
    }

    /// An autobind address, `"\0%05x"` of `num` (its low 20 bits).
    pub(crate) fn autobind(num: u32) -> Address {
        let mut a = Address::with_family();
        a.len = AUTOBIND_LEN as i32;
        a.set_autobind_num(num);
        a
    }

    /// The number of an autobind name (`"\0%05x"`, lower-case digits), if this is one.
    pub(crate) fn autobind_num(&self) -> Option<u32> {
        match self.name() {
            [0, digits @ ..] if digits.len() == AUTOBIND_LEN - PATH_OFFSET - 1 => {
                digits.iter().try_fold(0u32, |num, &c| {
                    let d = match c {
                        b'0'..=b'9' => c - b'0',
                        b'a'..=b'f' => c - b'a' + 10,
                        _ => return None,
                    };
                    Some(num << 4 | u32::from(d))
                })
            }
            _ => None,
        }
    }

    /// Rewrites the five hex digits of an autobind address.
    pub(crate) fn set_autobind_num(&mut self, num: u32) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (i, d) in self.bytes[PATH_OFFSET + 1..AUTOBIND_LEN]
            .iter_mut()
            .enumerate()
        {
            *d = HEX[((num >> (4 * (4 - i))) & 0xf) as usize];
        }
    }

    /// The whole `sockaddr_un`, `len` bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// `sun_path` and on: the name as the tables compare it.
    pub(crate) fn name(&self) -> &[u8] {
        &self.bytes[PATH_OFFSET..self.len as usize]
    }
}

/// A bound address as AF_UNIX keeps it: a `struct unix_address` (refcount, length,
/// `struct sockaddr_un`), shared by the sockets bound to it (a listener and the sockets
/// accepted from it) through [`ARef`].
///
/// # Invariants
///
/// Allocated by [`UnixAddress::alloc`] (`kmalloc`) and freed (`kfree`) when `refcnt`
/// drops to zero.
#[repr(C)]
pub(crate) struct UnixAddress {
    // 7.3's kernel::sync::Refcount (same layout): not used: 6.12 lacks it, and it would
    // replace three calls (REFCOUNT_INIT, refcount_inc, refcount_dec_and_test) on 7.3 only.
    refcnt: Opaque<kernel::bindings::refcount_t>,
    addr: Address,
}

// The layout of `struct unix_address`.
const _: () = {
    assert!(offset_of!(UnixAddress, refcnt) == offset_of!(bindings::unix_address, refcnt));
    assert!(
        offset_of!(UnixAddress, addr) + offset_of!(Address, len)
            == offset_of!(bindings::unix_address, len)
    );
    assert!(
        offset_of!(UnixAddress, addr) + offset_of!(Address, bytes)
            == offset_of!(bindings::unix_address, name)
    );
};

// SAFETY: The address is immutable once shared, and its refcount atomic.
unsafe impl Send for UnixAddress {}
// SAFETY: As above.
unsafe impl Sync for UnixAddress {}

impl UnixAddress {
    /// Allocates an address (`GFP_KERNEL`: before any lock), with one reference, the
    /// family and zeroes, then `init` sets it.
    fn alloc(init: impl FnOnce(&mut Address)) -> Result<NonNull<UnixAddress>> {
        // SAFETY: No requirements.
        let p = unsafe { bindings::afunix_addr_alloc(core::mem::size_of::<UnixAddress>()) };
        let p = NonNull::new(p.cast::<UnixAddress>()).ok_or(ENOMEM)?;
        // SAFETY: `p` is a new allocation of the size of `UnixAddress`, aligned for it
        // (kmalloc aligns to at least 8 bytes); each field is written before the `&mut`
        // that `init` gets is made.
        unsafe {
            let u = p.as_ptr();
            // `REFCOUNT_INIT` has no requirements.
            ptr::addr_of_mut!((*u).refcnt).write(Opaque::new(kernel::bindings::REFCOUNT_INIT(1)));
            ptr::addr_of_mut!((*u).addr).write(Address::with_family());
            init(&mut (*u).addr);
        }
        Ok(p)
    }

    /// A new address of the validated name `name`, with one reference.
    pub(crate) fn of(name: &Name<'_>) -> Result<ARef<UnixAddress>> {
        let p = Self::alloc(|a| a.set_name(name))?;
        // SAFETY: `alloc` gave the one reference, which moves into the `ARef`.
        Ok(unsafe { ARef::from_raw(p) })
    }
}

impl Deref for UnixAddress {
    type Target = Address;

    fn deref(&self) -> &Address {
        &self.addr
    }
}

// SAFETY: `refcount_inc`/`refcount_dec_and_test` are the refcount of the address; it
// stays allocated while the count is non-zero.
unsafe impl AlwaysRefCounted for UnixAddress {
    fn inc_ref(&self) {
        // SAFETY: The existence of `&self` means the refcount is non-zero.
        unsafe { kernel::bindings::refcount_inc(self.refcnt.get()) };
    }

    unsafe fn dec_ref(obj: NonNull<Self>) {
        // SAFETY: The caller owns a reference, which it gives up here.
        if unsafe { kernel::bindings::refcount_dec_and_test((*obj.as_ptr()).refcnt.get()) } {
            // SAFETY: The last reference is gone: the allocation of `alloc` is freed.
            unsafe { bindings::kfree(obj.as_ptr().cast()) };
        }
    }
}

/// A new [`UnixAddress`] not shared yet: its address may still change (autobind tries
/// names in it).
///
/// # Invariants
///
/// `self.0` is an allocation of [`UnixAddress::alloc`] with one reference, owned here.
pub(crate) struct UniqueAddress(NonNull<UnixAddress>);

impl UniqueAddress {
    /// Allocates an address holding `addr` (`GFP_KERNEL`: before any lock).
    pub(crate) fn new(addr: Address) -> Result<UniqueAddress> {
        // INVARIANT: A new allocation, with one reference.
        Ok(UniqueAddress(UnixAddress::alloc(|a| *a = addr)?))
    }

    /// Shares the address, with the one reference it has.
    pub(crate) fn into_shared(self) -> ARef<UnixAddress> {
        let p = self.0;
        core::mem::forget(self);
        // SAFETY: The allocation has a refcount of 1 (type invariant), which moves into
        // the `ARef`; `dec_ref` frees it.
        unsafe { ARef::from_raw(p) }
    }
}

impl Drop for UniqueAddress {
    fn drop(&mut self) {
        // SAFETY: Never shared (type invariant): the allocation is freed here.
        unsafe { bindings::kfree(self.0.as_ptr().cast()) };
    }
}

impl Deref for UniqueAddress {
    type Target = Address;

    fn deref(&self) -> &Address {
        // SAFETY: Valid and owned here (type invariant).
        unsafe { &(*self.0.as_ptr()).addr }
    }
}

impl DerefMut for UniqueAddress {
    fn deref_mut(&mut self) -> &mut Address {
        // SAFETY: Valid and owned here, not shared (type invariant).
        unsafe { &mut (*self.0.as_ptr()).addr }
    }
}

/// Copies a caller's `struct sockaddr` of `len` bytes (at most [`SUN_LEN`] are kept).
///
/// # Safety
///
/// `ptr` points to at least `min(len, SUN_LEN)` readable bytes.
pub(crate) unsafe fn sun_addr_from_raw(ptr: *const u8, len: usize) -> SunAddr {
    let mut slot = MaybeUninit::uninit();
    // SAFETY: As required of the caller.
    unsafe { sun_addr_in(&mut slot, ptr, len) };
    // SAFETY: `sun_addr_in` initialised it.
    unsafe { slot.assume_init() }
}

/// As [`sun_addr_from_raw`], into `slot`, where it stays: the trampolines of bind and
/// connect would otherwise move its 120 bytes once more.
///
/// # Safety
///
/// `ptr` points to at least `min(len, SUN_LEN)` readable bytes, not within `slot`.
#[inline]
pub(in crate::api) unsafe fn sun_addr_in(
    slot: &mut MaybeUninit<SunAddr>,
    ptr: *const u8,
    len: usize,
) -> &SunAddr {
    let s = slot.as_mut_ptr();
    let n = len.min(SUN_LEN);
    // SAFETY: `s` is valid for writes of a `SunAddr`; `ptr` has `n` readable bytes
    // (safety requirements) and `bytes` has `SUN_LEN + 1` writable ones, `n <= SUN_LEN`.
    // INVARIANT: `sun_family` is zeroed first (for `n < 2`), then the caller's `n`
    // bytes and a zero byte at `n` are written: `max(n + 1, 2)` bytes in all.
    unsafe {
        ptr::addr_of_mut!((*s).len).write(len);
        let dst = ptr::addr_of_mut!((*s).bytes).cast::<u8>();
        dst.cast::<[u8; PATH_OFFSET]>().write([0; PATH_OFFSET]);
        ptr::copy_nonoverlapping(ptr, dst, n);
        dst.add(n).write(0);
    }
    // SAFETY: `len` is written, and `bytes` may be uninitialised (`MaybeUninit`).
    unsafe { slot.assume_init_ref() }
}

/// Writes the address `addr`, or an unnamed one (the family alone), to `dst` for
/// `getsockname`/`getpeername`/`accept`; returns the length. With `as_unix`, its
/// `sun_family` says `AF_UNIX` rather than the family's number.
///
/// # Safety
///
/// `dst` is a `struct sockaddr_storage` (128 bytes) of the socket core.
pub(crate) unsafe fn write_sockaddr(
    dst: *mut bindings::sockaddr,
    addr: Option<&Address>,
    as_unix: bool,
) -> usize {
    let dst = dst.cast::<u8>();
    let len = match addr {
        Some(a) => {
            let b = a.as_bytes();
            // SAFETY: At most 111 bytes into a 128-byte buffer.
            unsafe { ptr::copy_nonoverlapping(b.as_ptr(), dst, b.len()) };
            b.len()
        }
        None => {
            let fam = (crate::api::param::family() as u16).to_ne_bytes();
            // SAFETY: Three bytes into a 128-byte buffer.
            unsafe {
                ptr::copy_nonoverlapping(fam.as_ptr(), dst, 2);
                dst.add(2).write(0);
            }
            PATH_OFFSET
        }
    };
    if as_unix {
        // SAFETY: The first two bytes, written above.
        unsafe { dst.cast::<[u8; PATH_OFFSET]>().write(AF_UNIX.to_ne_bytes()) };
    }
    len
}
