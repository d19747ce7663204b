// SPDX-License-Identifier: GPL-2.0
// hole: two handles of one queued skb; unlinking one leaves the other dangling (1)
// rule: `IoGuard::peek` borrows the reader lock mutably: one handle at a time
// expect: E0499

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn twice(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let a = io.peek(&g)?;
    let b = io.peek(&g)?;
    if let Some(a) = a {
        a.unlink_consume();
    }
    Ok(b.map_or(0, |b| b.len()))
}
