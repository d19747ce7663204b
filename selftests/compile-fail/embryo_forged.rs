// SPDX-License-Identifier: GPL-2.0
// hole: a live socket wrapped as an `Embryo`, whose `set_conn` then writes its
// connection state without its lock (8)
// rule: only `BareEmbryo::with_carrier` makes an `Embryo` (its fields are private)
// expect: E0423

use crate::api::kline::ARef;
use crate::api::sock::{Conn, Embryo, Sock};

pub(crate) fn forge(sk: ARef<Sock>) -> Conn {
    let mut e = Embryo(sk);
    e.set_conn(Conn::Unconnected)
}
