// SPDX-License-Identifier: GPL-2.0

//! The module's parameters, read-only after load.

use crate::api::bindings;
use core::ffi::c_int;
use core::ptr;

/// The family number the module registers (the `family` parameter).
#[inline]
pub(crate) fn family() -> c_int {
    // SAFETY: The parameter is read-only (0444) after load.
    unsafe { ptr::addr_of!(bindings::afunix_family).read() }
}
