// SPDX-License-Identifier: GPL-2.0
// hole: the connection state is read through a state lock guard already dropped
// rule: `StateGuard` is the lock; dropping it moves it, and a moved value is gone
// expect: E0382

use crate::api::sock::Sock;

pub(crate) fn is_connected(sk: &Sock) -> bool {
    let g = sk.lock();
    drop(g);
    g.peer().is_some()
}
