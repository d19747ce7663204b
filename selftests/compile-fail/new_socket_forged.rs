// SPDX-License-Identifier: GPL-2.0
// hole: a `NewSocket` made of a live `struct socket` (one with an `sk`), then grafted:
// its first `sk` leaks and the grafted one is released twice (3)
// rule: only the accept trampoline makes a `NewSocket` (`new` is `pub(super)`)
// expect: E0624

use crate::api::sock::{AcceptedSock, NewSocket, Sock, Socket};

pub(crate) fn forge(a: AcceptedSock, listener: &Socket, other: &Socket) {
    Sock::graft(a, listener, NewSocket::new(other));
}
