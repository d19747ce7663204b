// SPDX-License-Identifier: GPL-2.0
// hole: a socket's wait queue (its `struct socket`'s, freed a grace period after the
// close) used after the RCU read lock that kept it
// rule: `Sock::wq_rcu` borrows the `RcuReadGuard`
// expect: E0505

use crate::api::sock::Sock;
use crate::api::sync::RcuReadGuard;

pub(crate) fn wake(sk: &Sock) {
    let rcu = RcuReadGuard::new();
    let wq = sk.wq_rcu(&rcu);
    drop(rcu);
    if let Some(wq) = wq {
        wq.wake_all();
    }
}
