// SPDX-License-Identifier: GPL-2.0
// Twin of graft_any_sock.rs: the embryo comes off the listener's queue.

use crate::api::sock::{NewSocket, Sock, Socket};
use kernel::error::Result;

pub(crate) fn any(sk: &Sock, listener: &Socket, new: NewSocket<'_>) -> Result {
    if let Some(e) = sk.accept_embryo(true)? {
        Sock::graft(e, listener, new);
    }
    Ok(())
}
