// SPDX-License-Identifier: GPL-2.0
// Twin of peer_outlives_lock.rs: a reference taken under the lock keeps the peer.

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn peer_of(sk: &Sock) -> Option<ARef<Sock>> {
    let g = sk.lock();
    g.peer().map(ARef::from)
}
