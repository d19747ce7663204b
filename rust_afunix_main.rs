// SPDX-License-Identifier: GPL-2.0

//! rust_afunix: AF_UNIX, reimplemented in Rust as a socket family of its own.
//!
//! The module registers a socket family (number: the `family` module parameter) with
//! `SOCK_STREAM`, `SOCK_DGRAM` and `SOCK_SEQPACKET` sockets that behave as AF_UNIX of
//! Linux 6.12 does. See README.md.
//!
//! Layout: `unsafe` lives in the thin layer over the C API: [`sock`] (sockets, skbs,
//! messages), [`socket`]'s trampolines, [`wakeup`] (wait queues), [`vfs`], [`proc`],
//! [`sync`] (the module's spinlock), the list operations of [`hash`], the pernet glue of
//! [`netns`] and this file's registration. The protocol and its policy are safe Rust:
//! [`proto`], [`names`], [`autobind`] (with its map), [`addr`] and [`resize`].

mod api;
mod autobind;
mod cmsg;
mod diag;
mod files;
mod gc;
mod hash;
mod names;
mod netns;
mod oob;
mod ops;
mod proc;
mod proto;
mod resize;
mod scm;
mod vfs;
mod wakeup;

// Transitional: the old paths of the files that moved into `api/`.
use api::{addr, bindings, error, sock, sync};

use kernel::error::to_result;
use kernel::prelude::*;

module! {
    type: RustAfUnix,
    name: "rust_afunix",
    author: "rust_afunix developers",
    description: "AF_UNIX sockets reimplemented in Rust, as a socket family of their own",
    license: "GPL",
}

struct RustAfUnix {
    /// The family, its socket types and sock_diag handler; unregistered first.
    _family: api::family::Registration,
    /// The per-netns state (tables, sysctls, /proc); unregistered after the family.
    _pernet: Pernet,
    /// The global pathname table; withdrawn after the pernet exits.
    _bsd: BsdTable,
    /// The workqueue of the table resizes and the collector's runs; destroyed after
    /// the pernet exits and the pathname table's withdrawal.
    _queue: netns::OwnedQueue,
    /// The collector of fds in flight; freed after the workqueue (its runs) is gone.
    _gc: gc::GcHandle,
}

// The fields drop in declaration order: the reverse of `init`'s.

/// The global pathname table, published while the module is loaded.
struct BsdTable;

impl Drop for BsdTable {
    fn drop(&mut self) {
        // SAFETY: No socket is left; the table goes now, or with a queued resize (which
        // the queue's drop runs and which sees it withdrawn).
        unsafe { hash::BsdTable::withdraw() };
    }
}

/// The pernet operations, registered.
struct Pernet;

impl Drop for Pernet {
    fn drop(&mut self) {
        // SAFETY: Registered in `init`; no socket (so no table user) is left.
        unsafe { bindings::afunix_pernet_unregister() };
    }
}

impl kernel::Module for RustAfUnix {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Made first, destroyed after the pernet exits and the pathname table's
        // withdrawal: the tables queue their resizes on it.
        let queue = netns::OwnedQueue::new()?;
        let gc = gc::GcHandle::new()?;
        // Published until after `sock_unregister`, before any netns init reads it.
        hash::BsdTable::publish(hash::BsdTable::new()?);
        let bsd = BsdTable;
        // SAFETY: Called once, at load; undone by `Pernet`'s drop.
        to_result(unsafe { bindings::afunix_pernet_register() })?;
        let pernet = Pernet;
        let family = api::family::Registration::new::<
            ops::Family,
            ops::Stream,
            ops::Dgram,
            ops::Seqpacket,
            diag::UnixDiag,
        >(module)?;
        Ok(RustAfUnix {
            _family: family,
            _pernet: pernet,
            _bsd: bsd,
            _queue: queue,
            _gc: gc,
        })
    }
}
