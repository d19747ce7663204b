// SPDX-License-Identifier: GPL-2.0
// Twin of take_sk.rs: a callback borrows the sock its socket holds.

use crate::api::sock::Socket;

pub(crate) fn steal(sock: &Socket) -> bool {
    sock.sk().is_some()
}
