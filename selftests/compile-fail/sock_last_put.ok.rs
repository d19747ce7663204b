// SPDX-License-Identifier: GPL-2.0
// Twin of sock_last_put.rs: dropping a reference puts it; the last one frees the socket.

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn free_early(sk: ARef<Sock>) {
    drop(sk);
}
