// SPDX-License-Identifier: GPL-2.0
// hole: a socket that lookups may reach without a lock made free at its last reference,
// with no grace period, by the protocol (review of issue 36)
// rule: only the release trampoline clears `SOCK_RCU_FREE`, and only for a socket never
// linked where RCU walkers go (`Sock::release_rcu` is the API's own)
// expect: E0624

use crate::api::sock::Sock;

pub(crate) fn free_at_once(sk: &Sock) {
    sk.release_rcu();
}
