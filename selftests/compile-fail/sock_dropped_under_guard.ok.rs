// SPDX-License-Identifier: GPL-2.0
// Twin of sock_dropped_under_guard.rs: unlock, then put the reference.

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn put_locked(sk: ARef<Sock>) -> bool {
    let g = sk.lock();
    let connected = g.peer().is_some();
    drop(g);
    drop(sk);
    connected
}
