// SPDX-License-Identifier: GPL-2.0

//! The module's workqueue: the table resizes and the collector's runs; and the
//! disabling of one work item (a netns's resize, at its exit).
//!
//! Work items are `kernel::workqueue`'s on both lines; by hand here: 6.12's and 7.3's
//! crate can neither allocate a workqueue nor `disable_work_sync()` (or `flush_work()`) one.

use crate::api::bindings;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{code::ENOMEM, Result};
use kernel::sync::{Arc, ArcBorrow};
use kernel::workqueue::{HasWork, Queue, Work, WorkItem};

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
        // SAFETY: A static NUL-terminated name; the flags are valid.
        let q = unsafe {
            bindings::afunix_alloc_workqueue(
                c"rust_afunix".to_bytes_with_nul().as_ptr().cast(),
                bindings::AFUNIX_WQ_UNBOUND,
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

/// Cancels `item`'s pending run, waits for a running one, and disables its work item
/// for good: every later queueing fails (`disable_work_sync`), so a run cannot requeue
/// it meanwhile. For an item that is going. May sleep: not from that work item's run.
pub(crate) fn disable_sync<T, const ID: u64>(item: ArcBorrow<'_, T>)
where
    T: WorkItem<ID, Pointer = Arc<T>> + HasWork<T, ID>,
{
    // A reference of our own, as a raw pointer as `Arc`'s enqueue makes it: the queue's
    // (if pending) is then never the last one.
    let raw = Arc::into_raw(Arc::<T>::from(item));
    // SAFETY: `raw` points at a live `T` (the reference above); `raw_get_work` gives its
    // `Work<T, ID>` field (`HasWork`'s contract), initialised with it.
    let work = unsafe { Work::raw_get(T::raw_get_work(raw.cast_mut())) };
    // SAFETY: `work` is an initialised `work_struct`, alive while `raw`'s reference is
    // held; a work item may be disabled from process context whether queued or not.
    let pending = unsafe { kernel::bindings::disable_work_sync(work) };
    // SAFETY: From `Arc::into_raw` above; this takes that reference back.
    drop(unsafe { Arc::from_raw(raw) });
    if pending {
        // SAFETY: The work item of `T` is queued only by `Arc<T>`'s enqueue (its only
        // `WorkItem` pointer type), which gives the queue a reference from
        // `Arc::into_raw` of this `T`, taken back by the run. The run was cancelled:
        // that reference is ours.
        drop(unsafe { Arc::from_raw(raw) });
    }
}
