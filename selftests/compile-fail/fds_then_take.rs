// SPDX-License-Identifier: GPL-2.0
// hole: the fd list lent by `fds()` moved out of the skb while still borrowed (4)
// rule: `QueuedSkb::take_fds` takes the handle mutably; `fds()` borrows it
// expect: E0502

use crate::api::inflight::InflightList;
use crate::api::sock::QueuedSkb;

pub(crate) fn take(s: &mut QueuedSkb<'_>, gc: &mut InflightList) -> usize {
    let lent = s.fds();
    let taken = s.take_fds(gc);
    drop(taken);
    lent.map_or(0, |f| f.len())
}
