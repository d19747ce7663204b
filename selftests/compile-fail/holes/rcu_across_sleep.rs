// SPDX-License-Identifier: GPL-2.0
// hole: a sleep inside an RCU read section, with a reference it protects kept across:
// without preemptible RCU the sleep is the reader's quiescent state, the grace period
// ends, and the wait queue of a socket released meanwhile is freed under `wq`.
// Every safe call that may sleep does it (the io mutex, `cond_resched`, a user copy,
// a GFP_KERNEL allocation; on 7.3 `kernel::sync::rcu::synchronize_rcu` too): the
// kernel crate's own gap ("atomic context", klint's). Lockdep and
// CONFIG_DEBUG_ATOMIC_SLEEP report it at run time on the debug kernel.

use crate::api::sock::Sock;
use crate::api::sync::RcuReadGuard;
use crate::api::task::cond_resched;

pub(crate) fn wake(sk: &Sock, other: &Sock) {
    let rcu = RcuReadGuard::new();
    if let Some(wq) = sk.wq_rcu(&rcu) {
        let mut io = other.io_lock();
        io.unlocked(|| ());
        drop(io);
        cond_resched();
        wq.wake_all();
    }
    drop(rcu);
}
