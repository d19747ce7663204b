// SPDX-License-Identifier: GPL-2.0
// Twin of fds_then_take.rs: count, then take.

use crate::api::inflight::InflightList;
use crate::api::sock::QueuedSkb;

pub(crate) fn take(s: &mut QueuedSkb<'_>, gc: &mut InflightList) -> usize {
    let n = s.fds().map_or(0, |f| f.len());
    let taken = s.take_fds(gc);
    drop(taken);
    n
}
