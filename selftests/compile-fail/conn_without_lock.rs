// SPDX-License-Identifier: GPL-2.0
// hole: a connection state written without the state lock while readers hold it (8)
// rule: `set_conn` is on `StateGuard` (and an unpublished `Embryo`), not on `Sock`
// expect: E0599

use crate::api::sock::{Conn, Sock};

pub(crate) fn disconnect(sk: &Sock) {
    drop(sk.set_conn(Conn::Unconnected));
}
