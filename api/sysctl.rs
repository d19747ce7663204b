// SPDX-License-Identifier: GPL-2.0

//! The per-netns sysctls `net.rust_afunix.*`: a copy of the C template per netns, whose
//! entries show ints of the netns's data, and its registration.
//!
//! The entries are, in the template's order, the read-only `abstract_buckets` and
//! `pathname_buckets`, and the switch `stream_coalesce` (0 or 1, written by the netns's
//! root), which the module's per-netns data points to
//! ([`crate::api::pernet::Operations::sysctl_ints`]). The pernet adapter registers them
//! at the netns's init and unregisters them at its exit.

use crate::api::bindings;
use crate::api::sync::OnceBox;
use core::ptr;
use core::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use kernel::error::{code::ENOMEM, Result};
use kernel::prelude::*;
use kernel::types::Opaque;

/// The entries of the template.
pub(crate) const SYSCTLS: usize = bindings::AFUNIX_SYSCTLS as usize;

/// A copy of the template, with its data pointers set; the sysctl core may write the
/// entries.
struct Table(Opaque<[bindings::ctl_table; SYSCTLS]>);

/// The sysctls of one netns: the table, and its registration.
///
/// # Invariants
///
/// `header` is NULL or the registration of `table`'s entries, whose data (ints of the
/// netns's data) outlive it: only the pernet adapter registers and unregisters, from the
/// netns's init to its exit.
pub(crate) struct NetSysctls {
    table: OnceBox<Table>,
    header: AtomicPtr<bindings::ctl_table_header>,
}

// SAFETY: The table is only handed to the sysctl core, which uses it from any thread;
// Rust never reads it after registration. The rest is atomics.
unsafe impl Send for NetSysctls {}
// SAFETY: As above.
unsafe impl Sync for NetSysctls {}
// SAFETY: As above.
unsafe impl Send for Table {}
// SAFETY: As above.
unsafe impl Sync for Table {}

impl NetSysctls {
    /// Unregistered sysctls.
    pub(crate) fn new() -> NetSysctls {
        NetSysctls {
            table: OnceBox::new(),
            header: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Registers the entries under `net/rust_afunix` of `net`, with the ints of
    /// `abstract_buckets`, `pathname_buckets` and `stream_coalesce`.
    ///
    /// # Safety
    ///
    /// `net` is being initialised; `ints` and `self` outlive the registration, which
    /// [`NetSysctls::unregister`] ends; not registered already.
    pub(super) unsafe fn register(
        &self,
        net: *mut bindings::net,
        ints: [&AtomicI32; SYSCTLS],
    ) -> Result {
        let table = self.table.get_or_try_init(|| {
            // SAFETY: The template is a C array of `AFUNIX_SYSCTLS` entries that nobody
            // writes; the copy is plain data.
            let mut t = unsafe { ptr::addr_of!(bindings::afunix_sysctl_template).read() };
            for (entry, int) in t.iter_mut().zip(ints) {
                entry.data = int.as_ptr().cast();
            }
            Ok(KBox::new(Table(Opaque::new(t)), GFP_KERNEL)?)
        })?;
        // SAFETY: `net` is being initialised; the entries and their data outlive the
        // registration (safety requirements).
        let hdr = unsafe {
            bindings::register_net_sysctl_sz(
                net,
                c"net/rust_afunix".to_bytes_with_nul().as_ptr().cast(),
                table.0.get().cast(),
                SYSCTLS,
            )
        };
        if hdr.is_null() {
            return Err(ENOMEM);
        }
        // INVARIANT: The registration of `table`.
        self.header.store(hdr, Ordering::Relaxed);
        Ok(())
    }

    /// Unregisters the entries, if registered.
    pub(super) fn unregister(&self) {
        let hdr = self.header.swap(ptr::null_mut(), Ordering::Relaxed);
        if !hdr.is_null() {
            // SAFETY: The registration of `register` (type invariant), taken out once.
            unsafe { bindings::unregister_net_sysctl_table(hdr) };
        }
    }
}
