// SPDX-License-Identifier: GPL-2.0
// Twin of peercred_live.rs: the locked update.

use crate::api::sock::Sock;

pub(crate) fn again(sk: &Sock) {
    sk.lock().update_peercred();
}
