// SPDX-License-Identifier: GPL-2.0
// hole: the credentials of an embryo found in its netns table rewritten under
// `sk_peer_lock` alone, while its connect writes them under its state lock (review of
// issue 36)
// rule: every writer of the credentials holds the socket's state lock
// (`StateGuard::update_peercred`)
// expect: E0599

use crate::api::sock::Sock;

pub(crate) fn relabel(sk: &Sock) {
    sk.update_peercred();
}
