// SPDX-License-Identifier: GPL-2.0
// Twin of queued_skb_after_unlink.rs: read, then unlink.

use crate::api::sock::{QueuedSkb, SkbView};

pub(crate) fn stale(s: QueuedSkb<'_>) -> u32 {
    let view: &SkbView = &s;
    let len = view.len();
    s.unlink_consume();
    len
}
