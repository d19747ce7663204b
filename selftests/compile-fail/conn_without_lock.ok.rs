// SPDX-License-Identifier: GPL-2.0
// Twin of conn_without_lock.rs: under the state lock.

use crate::api::sock::{Conn, Sock};

pub(crate) fn disconnect(sk: &Sock) {
    let old = sk.lock().set_conn(Conn::Unconnected);
    drop(old);
}
