// SPDX-License-Identifier: GPL-2.0
// Twin of queued_skb_outlives_io.rs: the handle goes before the reader lock.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn escape(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let s = io.peek(&g)?;
    drop(g);
    let len = s.map_or(0, |s| s.len());
    drop(io);
    Ok(len)
}
