// SPDX-License-Identifier: GPL-2.0

//! The kernel crate's names that differ between the kernel lines (issue 36): Kbuild
//! passes `--cfg kline_6_12` or `--cfg kline_7_3`. The module imports these from here, so
//! that no file but those of `api/` has a switch per line.

// 6.18 moved `ARef` and `AlwaysRefCounted` to `sync::aref`.
#[cfg(kline_7_3)]
pub(crate) use kernel::sync::aref::{ARef, AlwaysRefCounted};
#[cfg(kline_6_12)]
pub(crate) use kernel::types::{ARef, AlwaysRefCounted};

// 6.15 made pin-init a crate of its own; the kernel keeps only `InPlaceInit`.
#[cfg(kline_7_3)]
pub(crate) use kernel::init::InPlaceInit;
#[cfg(kline_6_12)]
pub(crate) use kernel::init::{init_array_from_fn, pin_init_array_from_fn, InPlaceInit, PinInit};
#[cfg(kline_7_3)]
pub(crate) use pin_init::{init_array_from_fn, pin_init_array_from_fn, PinInit};

/// The bytes of a C string, without its NUL: 6.12's `kernel::str::CStr::as_bytes`, which
/// 7.3 replaced by `core::ffi::CStr` (`to_bytes`).
#[cfg(kline_6_12)]
pub(crate) fn cstr_bytes(s: &kernel::str::CStr) -> &[u8] {
    s.as_bytes()
}

/// As above.
#[cfg(kline_7_3)]
pub(crate) fn cstr_bytes(s: &kernel::str::CStr) -> &[u8] {
    s.to_bytes()
}

/// Whether the line's `scm_detach_fds()` can keep the slot of an fd the LSM refuses
/// (7.3's `notrunc`): the family offers `SO_RIGHTS_NOTRUNC` where it can, as AF_UNIX.
pub(crate) const RIGHTS_NOTRUNC: bool = cfg!(kline_7_3);
