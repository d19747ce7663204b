// SPDX-License-Identifier: GPL-2.0
// Twin of purge_under_reader.rs: the handle goes first.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn purge(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let len = io.peek(&g)?.map_or(0, |s| s.len());
    drop(g);
    io.purge_rcvq(drop);
    Ok(len)
}
