// SPDX-License-Identifier: GPL-2.0
// hole: a sleep on the wait queue of a socket whose `struct socket` may be freed
// meanwhile (a peer's) (7)
// rule: the sleeping queue comes from the `&Socket` a system call lends
// expect: E0599

use crate::api::sock::Sock;

pub(crate) fn sleep_on(peer: &Sock) -> isize {
    peer.wait_queue().wait_timeout(1, false, |_| true)
}
