// SPDX-License-Identifier: GPL-2.0

//! rust_afunix: AF_UNIX, reimplemented in Rust as a socket family of its own.
//!
//! The module registers a socket family (number: the `family` module parameter) with
//! `SOCK_STREAM`, `SOCK_DGRAM` and `SOCK_SEQPACKET` sockets that behave as AF_UNIX of
//! Linux 6.12 does. See README.md.
//!
//! Two layers, as the PHY drivers sit on `rust/kernel/net/phy.rs`: [`api`], the
//! kernel-API layer, holds every `unsafe`, `bindings::` and `extern "C"` (typed wrappers
//! of the C objects, a trait and an `Adapter<T>` per C vtable); the protocol, every other
//! module, is safe Rust (`#![deny(unsafe_code)]` in each) over it. `api` names nothing
//! of the protocol, and no two modules import each other (`scripts/check-layers`, run by
//! `make lint`). This file only wires them together: the family ([`ops`]), its
//! sock_diag handler ([`diag`]), the per-netns data ([`netns`]), the global pathname
//! table ([`hash`]), the workqueue and the collector ([`gc`]).

mod api;
mod autobind;
mod cmsg;
mod connect;
mod dgram;
mod diag;
mod files;
mod gc;
mod hash;
mod names;
mod netns;
mod oob;
mod ops;
mod opts;
mod proc;
mod proto;
mod resize;
mod scm;
mod stream;
mod vfs;
mod wakeup;

use kernel::prelude::*;

// The one switch per kernel line outside `api/`: 7.3's `module!` takes `authors`, a list,
// where 6.12's takes `author`.
#[cfg(kline_6_12)]
module! {
    type: RustAfUnix,
    name: "rust_afunix",
    author: "rust_afunix developers",
    description: "AF_UNIX sockets reimplemented in Rust, as a socket family of their own",
    license: "GPL",
}
#[cfg(kline_7_3)]
module! {
    type: RustAfUnix,
    name: "rust_afunix",
    authors: ["rust_afunix developers"],
    description: "AF_UNIX sockets reimplemented in Rust, as a socket family of their own",
    license: "GPL",
}

struct RustAfUnix {
    /// The family, its socket types and sock_diag handler; unregistered first.
    _family: api::family::Registration,
    /// The per-netns state (tables, sysctls, /proc); unregistered after the family.
    _pernet: api::pernet::Registration,
    /// The global pathname table; withdrawn after the pernet exits.
    _bsd: api::publish::Publication<hash::BsdTable>,
    /// The workqueue of the table resizes and the collector's runs; destroyed after
    /// the pernet exits and the pathname table's withdrawal.
    _queue: api::workqueue::OwnedQueue,
    /// The collector of fds in flight; freed after the workqueue (its runs) is gone.
    _gc: gc::GcHandle,
}

// The fields drop in declaration order: the reverse of `init`'s.

impl kernel::Module for RustAfUnix {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // A bad `family=` fails the load before anything is made.
        let fam = api::family::check_number()?;
        // Made first, destroyed after the pernet exits and the pathname table's
        // withdrawal: the tables queue their resizes on it.
        let queue = api::workqueue::OwnedQueue::new()?;
        let gc = gc::GcHandle::new()?;
        // Published until after the pernet exits, before any netns init reads it.
        let bsd = hash::BsdTable::publish(hash::BsdTable::new()?);
        let pernet = api::pernet::Registration::new()?;
        let family = api::family::Registration::new::<
            ops::Family,
            ops::Stream,
            ops::Dgram,
            ops::Seqpacket,
            diag::UnixDiag,
        >(module, fam)?;
        Ok(RustAfUnix {
            _family: family,
            _pernet: pernet,
            _bsd: bsd,
            _queue: queue,
            _gc: gc,
        })
    }
}
