// SPDX-License-Identifier: GPL-2.0
// Twin of rcu_sync_under_read.rs: the wakeup under the read lock, no grace period.

use crate::api::sock::Sock;
use crate::api::sync::RcuReadGuard;

pub(crate) fn wake(sk: &Sock) {
    let rcu = RcuReadGuard::new();
    if let Some(wq) = sk.wq_rcu(&rcu) {
        wq.wake_all();
    }
    drop(rcu);
}
