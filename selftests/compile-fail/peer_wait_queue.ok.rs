// SPDX-License-Identifier: GPL-2.0
// Twin of peer_wait_queue.rs: the call's own socket.

use crate::api::sock::Socket;

pub(crate) fn sleep_on(sock: &Socket) -> isize {
    sock.wait_queue().wait_timeout(1, false, |_| true)
}
