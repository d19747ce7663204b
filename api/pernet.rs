// SPDX-License-Identifier: GPL-2.0

//! Per network namespace data: a typed `struct net`, the module's `pernet_operations`
//! as a trait with its adapter, and the typed data of each netns.
//!
//! 6.12 has no Rust pernet API: afunix_helpers.c registers the `pernet_operations`,
//! whose init and exit call [`rust_afunix_net_init`] and [`rust_afunix_net_exit`] with the
//! netns's generic storage (one pointer). Those are [`Adapter`]'s trampolines for the
//! module's data type, which the protocol names once ([`crate::api::net::PerNet`] for [`crate::api::net::Module`]). The
//! storage holds an `Arc` of the data (`Arc::into_raw`), from the netns's init to its
//! exit; [`data`] reads it. The adapter also registers the netns's sysctls
//! ([`crate::api::sysctl`]) and its `/proc/net/rust_afunix` ([`crate::api::seq`]), whose
//! data live in the netns's data.

use crate::api::bindings;
use crate::api::net::Data;
use crate::api::seq;
use crate::api::sysctl::{NetSysctls, SYSCTLS};
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;
use core::ptr;
use core::sync::atomic::AtomicI32;
use kernel::error::{from_result, to_result, Result};
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow};

/// The module's `pernet_operations`, and what the netns's sysctls and `/proc` file show.
#[vtable]
pub(crate) trait Operations: Send + Sync + Sized + 'static {
    /// The walk of `/proc/net/rust_afunix` over this data.
    type Seq: seq::Operations;

    /// The data of a new netns (`pernet_operations::init`).
    fn new() -> Result<Arc<Self>>;

    /// The netns's sysctls, kept in the data.
    fn sysctls(&self) -> &NetSysctls;

    /// The ints of the sysctls, in their order: the read-only `abstract_buckets` and
    /// `pathname_buckets`, and `stream_coalesce`.
    fn sysctl_ints(&self) -> Result<[&AtomicI32; SYSCTLS]>;

    /// The netns goes (`pernet_operations::exit`): called after its sysctls and `/proc`
    /// file are gone (no socket is left), before the storage's reference is dropped.
    fn exit(this: ArcBorrow<'_, Self>);
}

/// The trampolines of `T`'s `pernet_operations`.
struct Adapter<T: Operations>(PhantomData<T>);

impl<T: Operations> Adapter<T> {
    /// `pernet_operations::init`: makes the data of `net`, registers its sysctls and
    /// `/proc` file, and stores the data in `*slot`.
    ///
    /// # Safety
    ///
    /// Called by afunix_helpers.c's pernet init, with the netns and its storage.
    unsafe fn init(net: *mut bindings::net, slot: *mut *const c_void) -> c_int {
        from_result(|| {
            let t = T::new()?;
            // SAFETY: `net` is being initialised; the ints are `t`'s (or outlive every
            // netns), and `t` is kept in `slot` until the exit unregisters, or dropped
            // below after that.
            unsafe { t.sysctls().register(net, t.sysctl_ints()?)? };
            let raw = Arc::into_raw(t);
            // SAFETY: `slot` is this netns's storage, read by `data`; set before the
            // `/proc` file (whose readers read it) is made.
            unsafe { *slot = raw.cast() };
            // SAFETY: `net` is being initialised and its data is set; the file is
            // removed at the exit, before the data goes, or below.
            if let Err(e) = unsafe { seq::proc_create::<T::Seq>(net) } {
                // SAFETY: As above; nothing read it (no file, no socket yet).
                unsafe { *slot = ptr::null() };
                // SAFETY: From `Arc::into_raw` above; the storage's reference comes back.
                let t = unsafe { Arc::from_raw(raw) };
                t.sysctls().unregister();
                return Err(e);
            }
            Ok(0)
        })
    }

    /// `pernet_operations::exit`: undoes [`Adapter::init`]. No socket of the netns is
    /// left.
    ///
    /// # Safety
    ///
    /// Called by afunix_helpers.c's pernet exit, after a successful init of `net`.
    unsafe fn exit(net: *mut bindings::net, slot: *mut *const c_void) {
        // SAFETY: Set by the init, from `Arc::into_raw`; the reference is dropped below.
        let raw = unsafe { *slot }.cast::<T>();
        // SAFETY: As above: alive until the drop below.
        let t = unsafe { &*raw };
        // SAFETY: Made by the init; removing it waits for its readers.
        unsafe { seq::proc_remove(net) };
        t.sysctls().unregister();
        // SAFETY: From `Arc::into_raw` in the init; that reference is dropped only below,
        // after the borrow, and no `UniqueArc` of it exists.
        T::exit(unsafe { ArcBorrow::from_raw(raw) });
        // SAFETY: `slot` is this netns's storage; no socket, /proc reader or sysctl is
        // left to read it.
        unsafe { *slot = ptr::null() };
        // SAFETY: From `Arc::into_raw` in the init; this takes its reference back.
        drop(unsafe { Arc::from_raw(raw) });
    }
}

/// `pernet_operations::init` of the module's data (called by afunix_helpers.c).
///
/// # Safety
///
/// Called by afunix_helpers.c's pernet init, with the netns and its generic storage.
#[no_mangle]
unsafe extern "C" fn rust_afunix_net_init(
    net: *mut bindings::net,
    slot: *mut *const c_void,
) -> c_int {
    // SAFETY: The arguments of the pernet init (safety requirements).
    unsafe { Adapter::<Data>::init(net, slot) }
}

/// `pernet_operations::exit` of the module's data (called by afunix_helpers.c).
///
/// # Safety
///
/// Called by afunix_helpers.c's pernet exit, after a successful init of `net`.
#[no_mangle]
unsafe extern "C" fn rust_afunix_net_exit(net: *mut bindings::net, slot: *mut *const c_void) {
    // SAFETY: The arguments of the pernet exit (safety requirements).
    unsafe { Adapter::<Data>::exit(net, slot) }
}

/// The module's `pernet_operations` (afunix_helpers.c's, over [`rust_afunix_net_init`]
/// and [`rust_afunix_net_exit`]), registered: unregistered on drop, which runs the exit
/// of every netns. Made once, at load; dropped at unload after the family is
/// unregistered (no socket is left).
pub(crate) struct Registration(());

impl Registration {
    /// Registers the pernet operations: runs the init of every netns.
    pub(crate) fn new() -> Result<Registration> {
        // SAFETY: Called once, at load (the module's value holds the result); undone by
        // `drop`.
        to_result(unsafe { bindings::afunix_pernet_register() })?;
        Ok(Registration(()))
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: Registered in `new`; no socket of this family is left.
        unsafe { bindings::afunix_pernet_unregister() };
    }
}
