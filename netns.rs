// SPDX-License-Identifier: GPL-2.0

//! Per network namespace state: the module's pernet operations over [`NetTable`].
//!
//! Each netns has a [`NetTable`] (its name table, sysctls and autobind maps), made at
//! the netns's init by [`crate::api::pernet`]'s adapter, which also registers the
//! sysctls `net.rust_afunix.*` and `/proc/net/rust_afunix` ([`ProcNet`]). At netns exit
//! the table's resize work item is cancelled and disabled, then the table is dropped.

#![deny(unsafe_code)]

use crate::api::pernet;
use crate::api::sysctl::{NetSysctls, SYSCTLS};
use crate::api::workqueue;
use crate::hash::{self, NetTable};
use crate::proc::ProcNet;
use core::sync::atomic::AtomicI32;
use kernel::error::{code::EINVAL, Result};
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow};

#[vtable]
impl pernet::Operations for NetTable {
    type Seq = ProcNet;

    fn new() -> Result<Arc<NetTable>> {
        NetTable::new()
    }

    fn sysctls(&self) -> &NetSysctls {
        NetTable::sysctls(self)
    }

    fn sysctl_ints(&self) -> Result<[&AtomicI32; SYSCTLS]> {
        // The global table is published before the pernet operations are registered,
        // and withdrawn after they are gone: it outlives every netns's sysctls.
        Ok([
            self.abstract_buckets(),
            hash::bsd_buckets().ok_or(EINVAL)?,
            &self.stream_coalesce,
        ])
    }

    fn exit(this: ArcBorrow<'_, Self>) {
        // Only this netns's resize: cancelled if queued, waited for if running, and
        // disabled, so that the run cannot requeue itself. The global pathname table's
        // resize is not waited for: it holds its own reference and moves only linked
        // sockets, and none of this netns is left.
        workqueue::disable_sync(this);
    }
}
