// SPDX-License-Identifier: GPL-2.0

//! A network namespace with the module's data ([`Net`]), and that data: the netns's
//! generic storage holds an `Arc` of it (`Arc::into_raw`) from the netns's init to its
//! exit ([`crate::api::pernet`]); [`data`] reads it.

use crate::api::bindings;
use crate::api::sock::Sock;
use kernel::sync::{Arc, ArcBorrow};
use kernel::types::Opaque;

/// A network namespace with the module's data.
///
/// # Invariants
///
/// A live `struct net` whose data the module's pernet init set and its exit has not
/// cleared, for as long as the reference: a netns of a socket of this family, of an open
/// `/proc/net/rust_afunix`, or of a request to the family's sock_diag handler.
#[repr(transparent)]
pub(crate) struct Net(Opaque<bindings::net>);

impl Net {
    /// Borrows a `struct net`.
    ///
    /// # Safety
    ///
    /// `ptr` is a live netns whose data the module's pernet init set, and which its exit
    /// does not clear, for `'a`.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::net) -> &'a Net {
        // CAST: `Net` is `repr(transparent)` over `struct net`.
        // SAFETY: Valid for `'a` (safety requirements).
        unsafe { &*ptr.cast() }
    }

    /// `net.unix.max_dgram_qlen`: AF_UNIX's datagram queue limit in this netns, which
    /// the family follows (`READ_ONCE`; its sysctl keeps it in 0..=INT_MAX).
    #[inline]
    pub(crate) fn unix_max_dgram_qlen(&self) -> u32 {
        // SAFETY: `self` is a live netns (type invariant).
        let n = unsafe { bindings::afunix_unix_max_dgram_qlen(self.as_ptr()) };
        // As AF_UNIX's `sk_max_ack_backlog = net->unx.sysctl_max_dgram_qlen`; never
        // negative (above), so the cast is exact.
        n as u32
    }

    /// The raw `struct net`.
    pub(crate) fn as_ptr(&self) -> *mut bindings::net {
        self.0.get()
    }
}

impl Sock {
    /// The socket's network namespace (`sock_net`).
    #[inline]
    pub(crate) fn net(&self) -> &Net {
        // SAFETY: A live socket's netns is alive while the socket is (a user socket
        // holds a reference; a kernel one is released before its netns goes), and has
        // the module's data: the pernet operations are registered before the family and
        // unregistered after it.
        unsafe { Net::from_raw(bindings::afunix_sock_net(self.as_ptr())) }
    }
}

/// Names the module's per-netns data type: the protocol implements it once, for
/// [`Module`].
pub(crate) trait PerNet {
    /// The data of each netns.
    type Data: Send + Sync + 'static;
}

/// The module, for [`PerNet`].
pub(crate) enum Module {}

/// The module's per-netns data type.
pub(crate) type Data = <Module as PerNet>::Data;

/// The stored data of a netns.
fn stored(net: &Net) -> *const Data {
    // SAFETY: `net` is live (type invariant).
    unsafe { bindings::afunix_net_state(net.as_ptr()) }.cast()
}

/// The data of a netns, borrowed with the reference its storage holds.
///
/// # Invariants
///
/// `self.0` is the data of a netns's storage, an `Arc::into_raw` whose reference is held
/// for `'a`.
#[derive(Clone, Copy)]
pub(crate) struct DataRef<'a>(&'a Data);

impl<'a> DataRef<'a> {
    /// The data.
    #[inline]
    pub(crate) fn get(self) -> &'a Data {
        self.0
    }

    /// The data, with a reference of its own.
    pub(crate) fn to_arc(self) -> Arc<Data> {
        // SAFETY: From `Arc::into_raw`, its reference held for `'a` (type invariant).
        unsafe { ArcBorrow::from_raw(self.0) }.into()
    }
}

/// The data of `net`.
#[inline]
pub(crate) fn data(net: &Net) -> DataRef<'_> {
    // SAFETY: The storage holds an `Arc::into_raw` of the data (`Adapter::init`), whose
    // reference goes only at the netns's exit, after every borrow of `net` (type
    // invariant).
    // INVARIANT: As just said.
    DataRef(unsafe { &*stored(net) })
}
