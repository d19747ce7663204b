// SPDX-License-Identifier: GPL-2.0

//! The current task: signals, rescheduling, and the kernel's random numbers.

use crate::api::bindings;
use kernel::error::Error;

/// Whether the current task has a signal pending.
pub(crate) fn signal_pending() -> bool {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_signal_pending() }
}

/// Sends `SIGPIPE` to the current task.
pub(crate) fn send_sigpipe() {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_sigpipe() };
}

/// `sock_intr_errno(timeo)`: the errno of a wait cut short by a signal.
pub(crate) fn intr_errno(timeo: isize) -> Error {
    // SAFETY: No requirements.
    Error::from_errno(unsafe { bindings::afunix_intr_errno(timeo) })
}

/// `cond_resched()`.
pub(crate) fn cond_resched() {
    // SAFETY: Process context, no spinlock held (callers).
    unsafe { bindings::afunix_cond_resched() };
}

/// `get_random_u32()`.
pub(crate) fn random_u32() -> u32 {
    // SAFETY: No requirements.
    unsafe { bindings::get_random_u32() }
}
