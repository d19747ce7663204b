// SPDX-License-Identifier: GPL-2.0
// Twin of guard_use_after_drop.rs: read under the lock, then unlock.

use crate::api::sock::Sock;

pub(crate) fn is_connected(sk: &Sock) -> bool {
    let g = sk.lock();
    let connected = g.peer().is_some();
    drop(g);
    connected
}
