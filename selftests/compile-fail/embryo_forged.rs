// SPDX-License-Identifier: GPL-2.0
// hole: a live socket wrapped as an `Embryo`, whose set-up then writes its connection
// state, path and credentials as if no one else saw it (8)
// rule: only `BareEmbryo::with_carrier` makes an `Embryo` (its fields are private)
// expect: E0423

use crate::api::kline::ARef;
use crate::api::sock::{Embryo, Skb, Sock, StateGuard};

pub(crate) fn forge(sk: ARef<Sock>, skb: Skb, client: &Sock, listener: &StateGuard<'_>) {
    let e = Embryo(sk, skb);
    drop(e.connect_to(client, listener));
}
