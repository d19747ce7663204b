// SPDX-License-Identifier: GPL-2.0
// Twin of queued_skb_across_sleep.rs: sleep, then peek again.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn sleep(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    io.unlocked(|| ());
    let g = sk.lock();
    let s = io.peek(&g)?;
    Ok(s.map_or(0, |s| s.len()))
}
