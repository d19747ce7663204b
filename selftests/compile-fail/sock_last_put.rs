// SPDX-License-Identifier: GPL-2.0
// hole: the protocol frees a socket through its last put while references remain
// rule: `Sock::last_put` is private to `api::sock::unix` (and unsafe): the one way to it
// rule: is dropping the last `ARef<Sock>`, whose decrement reached zero
// expect: E0624
// expect: E0133

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn free_early(sk: &ARef<Sock>) {
    Sock::last_put(sk.as_ptr());
}
