// SPDX-License-Identifier: GPL-2.0
// hole: a queued embryo, reached through its netns table, disconnected under its own
// state lock while sock_diag borrows its peer under the listener's queue lock
// (`Sock::with_embryo_peers`): the peer's reference goes, the borrow stays
// rule: (none yet)
// expect: none

use crate::api::kline::ARef;
use crate::api::sock::{Conn, Sock};

pub(crate) fn reset(embryo: &Sock) {
    let e = ARef::from(embryo);
    let old = e.lock().set_conn(Conn::Unconnected);
    drop(old);
}
