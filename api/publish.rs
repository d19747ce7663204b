// SPDX-License-Identifier: GPL-2.0

//! An object published in a static for lock-free readers while the module is loaded
//! (the global pathname table), withdrawn at unload.

use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::sync::{Arc, ArcBorrow};

/// An `Arc<T>` published once, read without a lock (`smp_load_acquire`).
///
/// # Invariants
///
/// `ptr` is NULL or from `Arc::into_raw`, whose reference it owns; it is set at most
/// once ([`Published::publish`]) and cleared by [`Published::withdraw`].
pub(crate) struct Published<T>(AtomicPtr<T>);

// SAFETY: Readers on any thread get `&T`, and the reference may be dropped on any
// thread, as with `Arc<T>`.
unsafe impl<T: Send + Sync> Sync for Published<T> {}
// SAFETY: As above.
unsafe impl<T: Send + Sync> Send for Published<T> {}

impl<T> Published<T> {
    /// Nothing published.
    pub(crate) const fn new() -> Published<T> {
        // INVARIANT: NULL.
        Published(AtomicPtr::new(ptr::null_mut()))
    }

    /// Publishes `t`, unless something is published already (then `t` is dropped:
    /// readers may still use what they found).
    pub(crate) fn publish(&self, t: Arc<T>) {
        let new = Arc::into_raw(t).cast_mut();
        if self
            .0
            .compare_exchange(ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: From `Arc::into_raw` just above, never published.
            drop(unsafe { Arc::from_raw(new) });
        }
        // INVARIANT: Set once, with the reference of `t`.
    }

    /// Withdraws the published object and drops its reference.
    ///
    /// # Safety
    ///
    /// No borrow that [`Published::get`] gave is in use and no [`Published::get_arc`] is
    /// running, nor will be.
    pub(crate) unsafe fn withdraw(&self) {
        let old = self.0.swap(ptr::null_mut(), Ordering::AcqRel);
        if !old.is_null() {
            // SAFETY: From `Arc::into_raw` in `publish` (type invariant); no borrow of it
            // is left (safety requirements). Other references (`get_arc`) keep it alive.
            drop(unsafe { Arc::from_raw(old) });
        }
    }

    /// The published object, if any.
    #[inline]
    pub(crate) fn get(&self) -> Option<&T> {
        // SAFETY: A published pointer is an `Arc::into_raw` whose reference is dropped
        // only at withdrawal, when no borrow is in use (type invariant, `withdraw`).
        unsafe { self.0.load(Ordering::Acquire).as_ref() }
    }

    /// The published object, with a reference of its own.
    pub(crate) fn get_arc(&self) -> Option<Arc<T>> {
        let p = self.0.load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: As in `get`: the published reference keeps `p` alive while it is
        // borrowed here.
        Some(unsafe { ArcBorrow::from_raw(p) }.into())
    }

    /// Whether `t` is the published object.
    pub(crate) fn is(&self, t: &T) -> bool {
        ptr::eq(self.0.load(Ordering::Acquire), t)
    }
}

/// The module's publication of an object in a static [`Published`]: withdraws it on
/// drop.
///
/// The crate root holds it in the module's value, dropped at unload after the family
/// and the pernet operations are unregistered (its fields drop in that order): then no
/// socket, netns or lookup is left to read the object; a queued work item that holds
/// its own reference (`get_arc`) may still run, and finds it withdrawn.
pub(crate) struct Publication<T: 'static>(&'static Published<T>);

impl<T> Published<T> {
    /// Publishes `t` (as [`Published::publish`]) until the returned value drops.
    pub(crate) fn publish_for_module(&'static self, t: Arc<T>) -> Publication<T> {
        self.publish(t);
        Publication(self)
    }
}

impl<T> Drop for Publication<T> {
    fn drop(&mut self) {
        // SAFETY: Dropped at unload, after every user that borrows the object is gone
        // (the type's comment).
        unsafe { self.0.withdraw() };
    }
}
