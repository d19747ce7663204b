// SPDX-License-Identifier: GPL-2.0
// hole: `init_peercred` (plain writes, no `sk_peer_lock`, old values not put) on a
// live socket: races `SO_PEERCRED`'s locked read
// rule: (none yet)
// expect: none

use crate::api::sock::Sock;

pub(crate) fn again(sk: &Sock) {
    let g = sk.lock();
    if let Some(peer) = g.peer() {
        peer.init_peercred();
    }
}
