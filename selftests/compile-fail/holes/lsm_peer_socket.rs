// SPDX-License-Identifier: GPL-2.0
// hole: the LSM wrappers follow `sk_socket` of any `&Sock`, without RCU or its state
// lock: a peer's, which its close frees meanwhile (issue 35's (7), left in lsm.rs)
// rule: (none yet)
// expect: none

use crate::api::lsm;
use crate::api::sock::Sock;
use kernel::types::ARef;

pub(crate) fn peer_secid(sk: &Sock) -> u32 {
    let g = sk.lock();
    let Some(peer) = g.peer().map(ARef::from) else {
        return 0;
    };
    drop(g);
    lsm::peersec_dgram(&peer)
}
