// SPDX-License-Identifier: GPL-2.0
// hole: the peer read under the state lock is kept after the lock is released
// rule: `StateGuard::peer` borrows the guard: the peer may be gone once unlocked
// expect: E0515

use crate::api::sock::Sock;

pub(crate) fn peer_of(sk: &Sock) -> Option<&Sock> {
    let g = sk.lock();
    g.peer()
}
