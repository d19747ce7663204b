// SPDX-License-Identifier: GPL-2.0
// hole: synchronize_rcu() inside the RCU read section that keeps a socket's wait queue:
// a deadlock with preemptible RCU; without it the sleep is the reader's quiescent
// state, the grace period ends and the queue of a socket released meanwhile is freed
// rule: `api::sync::synchronize_rcu` is `api/`'s alone (protocol code has no caller)
// expect: E0603

use crate::api::sock::Sock;
use crate::api::sync::{synchronize_rcu, RcuReadGuard};

pub(crate) fn wake(sk: &Sock) {
    let rcu = RcuReadGuard::new();
    if let Some(wq) = sk.wq_rcu(&rcu) {
        synchronize_rcu();
        wq.wake_all();
    }
    drop(rcu);
}
