// SPDX-License-Identifier: GPL-2.0

//! The module's parameters: `family`, read-only after load, and the debug parameters,
//! writable through sysfs.

use crate::api::bindings;
use core::ffi::c_int;
use core::ptr;

/// The family number the module registers (the `family` parameter).
#[inline]
pub(crate) fn family() -> c_int {
    // SAFETY: The parameter is read-only (0444) after load.
    unsafe { ptr::addr_of!(bindings::afunix_family).read() }
}

/// The debug parameter `wakeup_unkeyed`: write-space wakeups without a key.
pub(crate) fn wakeup_unkeyed() -> bool {
    // SAFETY: A bool module parameter, writable through sysfs: a racy read gives the
    // old or the new value.
    unsafe { ptr::addr_of!(bindings::afunix_wakeup_unkeyed).read_volatile() }
}

/// The debug parameter `autobind_bits` (unchecked).
pub(crate) fn autobind_bits() -> i32 {
    // SAFETY: A plain int module parameter, writable through sysfs: a racy read gives
    // the old or the new value.
    unsafe { ptr::addr_of!(bindings::afunix_autobind_bits).read_volatile() }
}
