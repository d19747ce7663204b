// SPDX-License-Identifier: GPL-2.0
// hole: a lock guard moved to another thread, which releases a spinlock or mutex it did
// not take (review of issue 35)
// rule: `StateGuard`, `IoGuard` and `BindGuard` are not `Send` (as `kernel::sync::Guard`)
// expect: E0277

use crate::api::sock::{IoGuard, StateGuard};

fn assert_send<T: Send>() {}

pub(crate) fn sendable() {
    assert_send::<StateGuard<'static>>();
    assert_send::<IoGuard<'static>>();
}
