// SPDX-License-Identifier: GPL-2.0
// hole: a view of a queued skb read after the skb was unlinked and freed (1)
// rule: unlinking consumes the handle; views borrow it
// expect: E0505

use crate::api::sock::{QueuedSkb, SkbView};

pub(crate) fn stale(s: QueuedSkb<'_>) -> u32 {
    let view: &SkbView = &s;
    s.unlink_consume();
    view.len()
}
