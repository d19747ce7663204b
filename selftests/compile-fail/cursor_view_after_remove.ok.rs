// SPDX-License-Identifier: GPL-2.0
// Twin of cursor_view_after_remove.rs: read, then unlink.

use crate::api::sock::QueueCursor;

pub(crate) fn stale(q: &mut QueueCursor<'_>) -> u32 {
    let Some(cur) = q.current() else {
        return 0;
    };
    let len = cur.len();
    let freed = q.remove_current();
    drop(freed);
    len
}
