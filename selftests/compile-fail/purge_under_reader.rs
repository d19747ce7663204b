// SPDX-License-Identifier: GPL-2.0
// hole: the receive queue purged under a reader that holds a queued skb (6)
// rule: `IoGuard::purge_rcvq` consumes the reader lock, which a handle borrows
// expect: E0505

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn purge(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let s = io.peek(&g)?;
    drop(g);
    io.purge_rcvq(drop);
    Ok(s.map_or(0, |s| s.len()))
}
