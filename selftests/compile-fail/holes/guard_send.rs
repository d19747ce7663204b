// SPDX-License-Identifier: GPL-2.0
// hole: `StateGuard`, `IoGuard` and `BindGuard` are `Send` (a `&Sock` is all they
// hold): a spinlock or mutex released by another thread than the one that took it
// (a guard of a leaked `&'static Sock` moved into a work item)
// rule: (none yet)
// expect: none

use crate::api::sock::{IoGuard, StateGuard};

fn assert_send<T: Send>() {}

pub(crate) fn sendable() {
    assert_send::<StateGuard<'static>>();
    assert_send::<IoGuard<'static>>();
}
