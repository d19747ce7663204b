// SPDX-License-Identifier: GPL-2.0
// hole: the peer credentials written with plain stores, without `sk_peer_lock`, and the
// old ones not put, on a live socket (review of issue 35)
// rule: the credentials are written only under `sk_peer_lock` (`StateGuard::update_peercred`)
// expect: E0599

use crate::api::sock::Sock;

pub(crate) fn again(sk: &Sock) {
    let g = sk.lock();
    if let Some(peer) = g.peer() {
        peer.init_peercred();
    }
}
