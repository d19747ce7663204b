// SPDX-License-Identifier: GPL-2.0

//! The module's workqueue: the table resizes and the collector's runs.

use crate::api::bindings;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{code::ENOMEM, Result};
use kernel::workqueue::Queue;

/// The module's workqueue, while the module is loaded.
static QUEUE: AtomicPtr<bindings::workqueue_struct> = AtomicPtr::new(ptr::null_mut());

/// The module's workqueue (unbound: a rehash can be long), destroyed (after the last
/// work item) when dropped.
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
        // SAFETY: Allocated by `new` (type invariant). The module destroys its queue
        // after its pernet operations and the global table are gone, so nothing queues
        // on it but chained work items, which the destruction drains.
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

/// Waits for the work items queued on the module's workqueue so far
/// (`flush_workqueue`); none if the queue is gone. May sleep: not from a work item of
/// the queue.
pub(crate) fn flush() {
    let q = QUEUE.load(Ordering::Acquire);
    if !q.is_null() {
        // SAFETY: A published queue is alive: it is withdrawn and destroyed only at
        // unload, after the pernet operations (the callers) are unregistered. Flushing
        // from process context is allowed.
        unsafe { bindings::__flush_workqueue(q) };
    }
}
