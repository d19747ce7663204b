// SPDX-License-Identifier: GPL-2.0
// hole: the relay stays hooked on the peer's `peer_wait` after the connection (the
// reference that keeps that queue alive) is dropped
// rule: (none yet)
// expect: none

use crate::api::sock::{Conn, Sock};
use kernel::types::ARef;

pub(crate) fn leave_hooked(sk: &Sock) {
    let mut g = sk.lock();
    let Some(peer) = g.peer().map(ARef::from) else {
        return;
    };
    peer.lock_peer_wait().hook_relay(&g);
    let old = g.set_conn(Conn::Unconnected);
    drop(g);
    drop(old);
    drop(peer);
}
