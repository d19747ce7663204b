// SPDX-License-Identifier: GPL-2.0

//! The module's own spinlock, whose guard derefs to the data it protects, a guard of a
//! spinlock inside a kernel object, a box published once, and an RCU read-side section.
//!
//! `kernel::sync::SpinLock` has no `lock_nested` (6.12 nor 7.3): the name tables take two
//! buckets of one lock class in a fixed order, and lockdep must be told that the second
//! is nested. [`SpinLock`] is the same shape as `kernel::sync::Lock` (the C lock in an
//! `Opaque`, the data in an `UnsafeCell`, reachable only through a [`Guard`]) over the
//! C `spinlock_t`, with [`SpinLock::lock_nested`] added.
//!
//! RCU: 7.3's `kernel::sync::rcu` is used there ([`RcuReadGuard`], [`synchronize_rcu`]);
//! 6.12 has none, and gets the same two names here.

use crate::api::bindings;
use crate::api::kline::PinInit;
use core::cell::UnsafeCell;
use core::marker::{PhantomData, PhantomPinned};
use core::ops::{Deref, DerefMut};
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::Result;
use kernel::prelude::*;
use kernel::types::Opaque;

/// A `spinlock_t` and the data it protects.
///
/// Each lock class is one C initialiser (`afunix_*_lock_init` in afunix_helpers.c, a
/// static lockdep key per call site): every lock made with the same initialiser is of
/// the same class.
#[pin_data]
pub(crate) struct SpinLock<T> {
    #[pin]
    lock: Opaque<bindings::spinlock_t>,
    #[pin]
    _pin: PhantomPinned,
    data: UnsafeCell<T>,
}

// SAFETY: The lock serialises access to `data`, so the lock may be shared between
// threads as long as the data may be sent between them.
unsafe impl<T: Send> Sync for SpinLock<T> {}
// SAFETY: Moving the lock moves the data; nothing else is tied to a thread.
unsafe impl<T: Send> Send for SpinLock<T> {}

impl<T> SpinLock<T> {
    /// A lock over `data`, initialised by `init` (which sets the lock class).
    pub(crate) fn new(
        data: T,
        init: unsafe extern "C" fn(*mut bindings::spinlock_t),
    ) -> impl PinInit<Self> {
        pin_init!(Self {
            lock <- Opaque::ffi_init(|slot| {
                // SAFETY: `slot` is the lock's storage, initialised here and only used
                // once initialised.
                unsafe { init(slot) }
            }),
            _pin: PhantomPinned,
            data: UnsafeCell::new(data),
        })
    }

    /// Takes the lock.
    pub(crate) fn lock(&self) -> Guard<'_, T> {
        // SAFETY: The lock was initialised by `new`.
        unsafe { bindings::afunix_spin_lock(self.lock.get()) };
        // INVARIANT: Just locked.
        Guard {
            lock: self,
            _not_send: PhantomData,
        }
    }

    /// Takes the lock while the caller holds another of the same class, taken first in
    /// a fixed order (lockdep's `SINGLE_DEPTH_NESTING`).
    pub(crate) fn lock_nested(&self) -> Guard<'_, T> {
        // SAFETY: The lock was initialised by `new`.
        unsafe { bindings::afunix_spin_lock_nested(self.lock.get()) };
        // INVARIANT: Just locked.
        Guard {
            lock: self,
            _not_send: PhantomData,
        }
    }
}

/// A held [`SpinLock`]: gives access to the data it protects, and unlocks on drop.
///
/// # Invariants
///
/// `lock` is held by this guard.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct Guard<'a, T> {
    lock: &'a SpinLock<T>,
    /// Not `Send`: a spinlock is released on the CPU that took it.
    _not_send: PhantomData<*mut ()>,
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: The lock is held (type invariant).
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: The lock is held (type invariant), and this guard is borrowed mutably.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: The lock is held (type invariant).
        unsafe { bindings::afunix_spin_unlock(self.lock.lock.get()) };
    }
}

/// A box set at most once, then read without a lock (`smp_load_acquire`).
// 7.3's kernel::sync::SetOnce: not used: a populate() that loses to one mid-write gets
// None from as_ref(), where get_or_try_init must return the winner's value.
pub(crate) struct OnceBox<T> {
    ptr: AtomicPtr<T>,
}

impl<T> OnceBox<T> {
    /// An empty box.
    pub(crate) const fn new() -> Self {
        OnceBox {
            ptr: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The content, if set.
    pub(crate) fn get(&self) -> Option<&T> {
        // Pairs with the release of `get_or_try_init`: the content is initialised.
        let p = self.ptr.load(Ordering::Acquire);
        // SAFETY: A non-NULL pointer came from `KBox::into_raw` and is freed only by
        // `drop`, which has `&mut self`.
        unsafe { p.as_ref() }
    }

    /// The content, made by `make` if not set yet (two racing callers may both make one:
    /// the loser's is dropped).
    pub(crate) fn get_or_try_init(&self, make: impl FnOnce() -> Result<KBox<T>>) -> Result<&T> {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        let new = KBox::into_raw(make()?);
        if let Err(_won) =
            self.ptr
                .compare_exchange(ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: `new` came from `KBox::into_raw` above and was not published.
            drop(unsafe { KBox::from_raw(new) });
        }
        // The box holds a value now (ours or the winner's).
        self.get().ok_or(ENOMEM)
    }
}

impl<T> Drop for OnceBox<T> {
    fn drop(&mut self) {
        let p = *self.ptr.get_mut();
        if !p.is_null() {
            // SAFETY: Published by `get_or_try_init` from `KBox::into_raw`; no reader is
            // left (`&mut self`).
            drop(unsafe { KBox::from_raw(p) });
        }
    }
}

// SAFETY: `OnceBox` hands out shared references to `T` across threads and drops it on
// any thread, as `Arc<T>` would.
unsafe impl<T: Send + Sync> Sync for OnceBox<T> {}
// SAFETY: As above.
unsafe impl<T: Send + Sync> Send for OnceBox<T> {}

/// A kernel spinlock, held (`spin_lock()` .. `spin_unlock()`).
///
/// # Invariants
///
/// `self.0` is a live spinlock, held while this guard exists.
#[must_use = "the lock unlocks immediately when the guard is unused"]
pub(crate) struct SpinGuard(*mut bindings::spinlock_t);

impl SpinGuard {
    /// Takes `lock`.
    ///
    /// # Safety
    ///
    /// `lock` is an initialised spinlock that outlives the guard, and taking it here
    /// keeps the lock order ([`crate::api`], "Lock order").
    pub(crate) unsafe fn lock(lock: *mut bindings::spinlock_t) -> SpinGuard {
        // SAFETY: Valid by the safety requirements.
        unsafe { bindings::afunix_spin_lock(lock) };
        // INVARIANT: Locked just above.
        SpinGuard(lock)
    }
}

impl Drop for SpinGuard {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::afunix_spin_unlock(self.0) };
    }
}

/// An RCU read-side critical section (`rcu_read_lock()` .. `rcu_read_unlock()`): on 7.3,
/// the kernel crate's (the same shape: `new()`, not `Send`, unlocks on drop).
#[cfg(kline_7_3)]
pub(crate) use kernel::sync::rcu::Guard as RcuReadGuard;

/// An RCU read-side critical section (`rcu_read_lock()` .. `rcu_read_unlock()`).
///
/// Not `Send`: the section ends on the task that began it.
#[cfg(kline_6_12)]
pub(crate) struct RcuReadGuard(PhantomData<*mut ()>);

#[cfg(kline_6_12)]
impl RcuReadGuard {
    pub(crate) fn new() -> Self {
        // SAFETY: No requirements; paired with the unlock in `drop`.
        unsafe { bindings::afunix_rcu_read_lock() };
        RcuReadGuard(PhantomData)
    }
}

#[cfg(kline_6_12)]
impl Drop for RcuReadGuard {
    fn drop(&mut self) {
        // SAFETY: Locked in `new`.
        unsafe { bindings::afunix_rcu_read_unlock() };
    }
}

/// `synchronize_rcu()`: waits for a grace period. May sleep: process context, no
/// spinlock held (7.3: the kernel crate's, safe for the same reason). `api/`'s alone: in
/// a read section it deadlocks, or (RCU not preemptible) its sleep ends the section.
#[cfg(kline_7_3)]
pub(in crate::api) use kernel::sync::rcu::synchronize_rcu;

/// `synchronize_rcu()`: waits for a grace period. May sleep: process context, no
/// spinlock held, no RCU read section. `api/`'s alone, as on 7.3.
#[cfg(kline_6_12)]
pub(in crate::api) fn synchronize_rcu() {
    // SAFETY: No requirements but process context without a spinlock held or an RCU
    // read section, which `api/`'s callers have (this function's contract).
    unsafe { bindings::synchronize_rcu() };
}
