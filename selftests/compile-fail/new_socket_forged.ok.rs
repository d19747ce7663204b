// SPDX-License-Identifier: GPL-2.0
// Twin of new_socket_forged.rs: the accept call's own new socket.

use crate::api::sock::{AcceptedSock, NewSocket, Sock, Socket};

pub(crate) fn forge(a: AcceptedSock, listener: &Socket, new: NewSocket<'_>) {
    Sock::graft(a, listener, new);
}
