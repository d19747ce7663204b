// SPDX-License-Identifier: GPL-2.0
// hole: an RCU read guard (or a reference to one, the proof the read functions take)
// moved to another thread, which then reads under a section it does not hold
// rule: `RcuReadGuard` is neither `Send` nor `Sync`, on 6.12 (the module's) as on 7.3
// (the kernel crate's `rcu::Guard`)
// expect: E0277

use crate::api::sync::RcuReadGuard;

fn assert_send<T: Send>() {}

pub(crate) fn sendable() {
    assert_send::<RcuReadGuard>();
    assert_send::<&'static RcuReadGuard>();
}
