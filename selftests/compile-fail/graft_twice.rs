// SPDX-License-Identifier: GPL-2.0
// hole: one new socket grafted twice, left pointing at a freed sock (3)
// rule: `graft` consumes the accept call's `NewSocket`, made once by its trampoline
// expect: E0382

use crate::api::sock::{AcceptedSock, NewSocket, Sock, Socket};

pub(crate) fn twice(a: AcceptedSock, b: AcceptedSock, listener: &Socket, new: NewSocket<'_>) {
    Sock::graft(a, listener, new);
    Sock::graft(b, listener, new);
}
