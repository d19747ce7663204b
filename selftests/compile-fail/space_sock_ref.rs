// SPDX-License-Identifier: GPL-2.0
// hole: a reference taken on a socket whose last one is gone (`sk_write_space` from
// its last skb's destructor): `sock_hold` from 0, the socket freed under it
// rule: `SpaceSock` lends no `&Sock` to the protocol (`sock()` is `pub(super)`)
// expect: E0624

use crate::api::kline::ARef;
use crate::api::sock::{Sock, SpaceSock};

pub(crate) fn keep(sk: &SpaceSock<'_>) -> ARef<Sock> {
    ARef::from(sk.sock())
}
