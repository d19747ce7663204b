// SPDX-License-Identifier: GPL-2.0
// Twin of graft_twice.rs: one graft; the other accepted socket is put.

use crate::api::sock::{AcceptedSock, NewSocket, Sock, Socket};

pub(crate) fn twice(a: AcceptedSock, b: AcceptedSock, listener: &Socket, new: NewSocket<'_>) {
    Sock::graft(a, listener, new);
    drop(b);
}
