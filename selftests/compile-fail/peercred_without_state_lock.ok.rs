// SPDX-License-Identifier: GPL-2.0
// Twin of peercred_without_state_lock.rs: under the state lock.

use crate::api::sock::Sock;

pub(crate) fn relabel(sk: &Sock) {
    sk.lock().update_peercred();
}
