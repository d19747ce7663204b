// SPDX-License-Identifier: GPL-2.0

//! The kernel-API layer: every `unsafe`, `bindings::` and `extern "C"` of the module.
//!
//! Typed wrappers of the C objects the protocol uses, and one `#[vtable]` trait with an
//! `Adapter<T>` per C vtable, in the shape of `rust/kernel/net/phy.rs`. Nothing here
//! names the protocol layer: the protocol implements these traits and the crate root
//! hands its types to the adapters.

pub(crate) mod addr;
pub(crate) mod bindings;
pub(crate) mod bitmap;
pub(crate) mod cmsg;
pub(crate) mod cred;
pub(crate) mod error;
pub(crate) mod family;
pub(crate) mod file;
pub(crate) mod hsiphash;
pub(crate) mod inflight;
pub(crate) mod list;
pub(crate) mod lsm;
pub(crate) mod msg;
pub(crate) mod net;
pub(crate) mod netlink;
pub(crate) mod param;
pub(crate) mod pernet;
pub(crate) mod publish;
pub(crate) mod seq;
pub(crate) mod sock;
pub(crate) mod sock_diag;
pub(crate) mod socket;
pub(crate) mod sync;
pub(crate) mod sysctl;
pub(crate) mod task;
pub(crate) mod vfs;
pub(crate) mod wait;
pub(crate) mod workqueue;
