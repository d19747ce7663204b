// SPDX-License-Identifier: GPL-2.0
// hole: an skb shown by the locked queue read after the queue unlinked it (1)
// rule: `QueueCursor::current` borrows the cursor; `remove_current` takes it mutably
// expect: E0502

use crate::api::sock::QueueCursor;

pub(crate) fn stale(q: &mut QueueCursor<'_>) -> u32 {
    let Some(cur) = q.current() else {
        return 0;
    };
    let freed = q.remove_current();
    drop(freed);
    cur.len()
}
