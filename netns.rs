// SPDX-License-Identifier: GPL-2.0

//! Per network namespace state, and the module's workqueue.
//!
//! Each netns has a [`NetTable`] (its name table, sysctls and autobind maps), made by
//! [`rust_afunix_net_init`] and handed to C as an opaque handle (`Arc::into_raw`), which
//! the C `pernet_operations` keep in the netns's generic storage (6.12 has no Rust
//! pernet API: afunix_helpers.c registers them). The sysctls `net.rust_afunix.*` and
//! `/proc/net/rust_afunix` are registered here. At netns exit the resize work item is
//! flushed, then the table is dropped.

use crate::bindings;
use crate::hash::NetTable;
use crate::proc;
use core::ffi::{c_int, c_void};
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{
    code::{EINVAL, ENOMEM},
    from_result, Result,
};
use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::types::Opaque;
use kernel::workqueue::Queue;

/// The sysctls of a netns: a copy of the C template (`net.rust_afunix.*`), their data
/// in the netns's [`NetTable`]; the sysctl core may write its entries.
pub(crate) struct Sysctls(Opaque<[bindings::ctl_table; bindings::AFUNIX_SYSCTLS as usize]>);

// SAFETY: The copy is only handed to the sysctl core, which uses it from any thread.
unsafe impl Send for Sysctls {}
// SAFETY: As above; Rust never reads it after registration.
unsafe impl Sync for Sysctls {}

impl Sysctls {
    /// A copy of the template with the data pointers `max_dgram_qlen`,
    /// `abstract_buckets` and `pathname_buckets` (the global table's, read-only).
    fn new(
        max_dgram_qlen: *mut i32,
        abstract_buckets: *mut i32,
        pathname_buckets: *mut i32,
    ) -> Result<KBox<Sysctls>> {
        if pathname_buckets.is_null() {
            return Err(EINVAL);
        }
        // SAFETY: The template is a C array of `AFUNIX_SYSCTLS` entries that nobody
        // writes; the copy is plain data.
        let mut t = unsafe { ptr::addr_of!(bindings::afunix_sysctl_template).read() };
        t[0].data = max_dgram_qlen.cast();
        t[1].data = abstract_buckets.cast();
        t[2].data = pathname_buckets.cast();
        Ok(KBox::new(Sysctls(Opaque::new(t)), GFP_KERNEL)?)
    }
}

/// The module's workqueue, while the module is loaded.
static QUEUE: AtomicPtr<bindings::workqueue_struct> = AtomicPtr::new(ptr::null_mut());

/// The module's workqueue for the table resizes (unbound: a rehash can be long),
/// destroyed (after the last work item) when dropped.
///
/// # Invariants
///
/// `self.0` is a workqueue from `alloc_workqueue`, published in `QUEUE`.
pub(crate) struct OwnedQueue(NonNull<bindings::workqueue_struct>);

// SAFETY: A workqueue is used and destroyed from any thread.
unsafe impl Send for OwnedQueue {}
// SAFETY: `OwnedQueue` has no `&self` methods; the queue itself is thread-safe.
unsafe impl Sync for OwnedQueue {}

impl OwnedQueue {
    /// Allocates the queue and publishes it for [`queue`].
    pub(crate) fn new() -> Result<OwnedQueue> {
        // SAFETY: A static NUL-terminated name without `%` (no variadic arguments); the
        // flags are valid.
        let q = unsafe {
            bindings::alloc_workqueue(
                c"rust_afunix".as_ptr().cast(),
                bindings::AFUNIX_WQ_UNBOUND,
                0,
            )
        };
        let q = NonNull::new(q).ok_or(ENOMEM)?;
        QUEUE.store(q.as_ptr(), Ordering::Release);
        // INVARIANT: Allocated and published.
        Ok(OwnedQueue(q))
    }
}

impl Drop for OwnedQueue {
    fn drop(&mut self) {
        QUEUE.store(ptr::null_mut(), Ordering::Release);
        // SAFETY: Allocated by `new` (type invariant); every netns table is gone (the
        // module unregistered its pernet operations first), so nothing queues on it.
        unsafe { bindings::destroy_workqueue(self.0.as_ptr()) };
    }
}

/// The module's workqueue, or `None` once its destruction began at unload (then no
/// socket is left, and a work item is not queued: nothing may run after the module's
/// code is gone).
pub(crate) fn queue() -> Option<&'static Queue> {
    let q = QUEUE.load(Ordering::Acquire);
    if q.is_null() {
        return None;
    }
    // SAFETY: A published queue lives until `OwnedQueue::drop`, which withdraws it
    // first and then drains it: a work item that finds it published while it drains
    // queues on it, which the drain allows (a chained work item) and runs. CAST: the
    // same C type in the kernel crate's bindings.
    Some(unsafe { Queue::from_raw(q.cast()) })
}

/// The table of a netns.
///
/// # Safety
///
/// `net` is a live netns (its pernet init ran: the module is loaded) and stays alive
/// for `'a`.
pub(crate) unsafe fn table_of<'a>(net: *mut bindings::net) -> &'a NetTable {
    // SAFETY: The handle of a live netns is the `Arc::into_raw` of its table, dropped
    // only at the netns's exit (safety requirements).
    unsafe { &*bindings::afunix_net_state(net).cast::<NetTable>() }
}

/// `pernet_operations::init`: makes the table of `net`, registers its sysctls and
/// `/proc` file, and stores the handle in `*slot`.
///
/// # Safety
///
/// Called by afunix_helpers.c's pernet init, with the netns and its generic storage.
#[no_mangle]
unsafe extern "C" fn rust_afunix_net_init(
    net: *mut bindings::net,
    slot: *mut *const c_void,
) -> c_int {
    from_result(|| {
        let t = NetTable::new()?;
        let (qlen, buckets) = t.sysctl_data();
        // The global table is published before the pernet operations are registered,
        // and withdrawn after they are gone: it outlives every netns's sysctls.
        let sysctls = t
            .sysctls
            .get_or_try_init(|| Sysctls::new(qlen, buckets, crate::hash::bsd_size_ptr()))?;
        // SAFETY: `net` is being initialised; the entries and their data live in `t`,
        // which outlives the registration (undone in `rust_afunix_net_exit` before the
        // drop, or below).
        let hdr = unsafe {
            bindings::register_net_sysctl_sz(
                net,
                c"net/rust_afunix".as_ptr().cast(),
                sysctls.0.get().cast(),
                bindings::AFUNIX_SYSCTLS as usize,
            )
        };
        if hdr.is_null() {
            return Err(ENOMEM);
        }
        t.sysctl.store(hdr, Ordering::Relaxed);
        // SAFETY: `net` is being initialised; the operations are static.
        if unsafe { bindings::afunix_proc_create(net, &proc::SEQ_OPS) }.is_null() {
            // SAFETY: Registered above.
            unsafe { bindings::unregister_net_sysctl_table(hdr) };
            return Err(ENOMEM);
        }
        // SAFETY: `slot` is this netns's storage, read by `table_of`.
        unsafe { *slot = Arc::into_raw(t).cast() };
        Ok(0)
    })
}

/// `pernet_operations::exit`: undoes [`rust_afunix_net_init`]. No socket of the netns
/// is left.
///
/// # Safety
///
/// Called by afunix_helpers.c's pernet exit, after a successful init of `net`.
#[no_mangle]
unsafe extern "C" fn rust_afunix_net_exit(net: *mut bindings::net, slot: *mut *const c_void) {
    // SAFETY: Set by the init, from `Arc::into_raw`; this takes its reference back.
    let t = unsafe { Arc::from_raw((*slot).cast::<NetTable>()) };
    // SAFETY: Registered by the init.
    unsafe {
        bindings::afunix_proc_remove(net);
        bindings::unregister_net_sysctl_table(t.sysctl.load(Ordering::Relaxed));
    }
    // SAFETY: `slot` is this netns's storage; no socket, /proc reader or sysctl is left
    // to read it.
    unsafe { *slot = ptr::null() };
    t.exiting.store(true, Ordering::SeqCst);
    // Twice: a resize running during the first flush may have queued one more before
    // it saw `exiting`; that one runs within the second and queues nothing.
    let q = QUEUE.load(Ordering::Acquire);
    for _ in 0..2 {
        if !q.is_null() {
            // SAFETY: The module's queue is alive while a netns table exists.
            unsafe { bindings::__flush_workqueue(q) };
        }
    }
    drop(t);
}
