// SPDX-License-Identifier: GPL-2.0
// hole: the last reference to a socket is put while its state lock is held
// rule: a `StateGuard` borrows its socket, which cannot move or drop under it
// expect: E0505

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn put_locked(sk: ARef<Sock>) -> bool {
    let g = sk.lock();
    drop(sk);
    g.peer().is_some()
}
