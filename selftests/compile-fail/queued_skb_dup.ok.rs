// SPDX-License-Identifier: GPL-2.0
// Twin of queued_skb_dup.rs: one handle, used up by the unlink.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn twice(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let Some(a) = io.peek(&g)? else {
        return Ok(0);
    };
    let len = a.len();
    a.unlink_consume();
    Ok(len)
}
