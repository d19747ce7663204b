// SPDX-License-Identifier: GPL-2.0
// hole: a live, already grafted socket grafted onto another `struct socket` (3)
// rule: only `Sock::accept_embryo` makes an `AcceptedSock` (its field is private)
// expect: E0423

use crate::api::kline::ARef;
use crate::api::sock::{AcceptedSock, NewSocket, Sock, Socket};

pub(crate) fn any(sk: ARef<Sock>, listener: &Socket, new: NewSocket<'_>) {
    Sock::graft(AcceptedSock(sk), listener, new);
}
