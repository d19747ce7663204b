// SPDX-License-Identifier: GPL-2.0

use crate::api::sock::Sock;

pub(crate) fn free_at_once(sk: &Sock) {
    crate::names::remove(sk);
}
