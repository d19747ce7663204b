// SPDX-License-Identifier: GPL-2.0
// hole: a handle kept after the reader lock went, while another reader unlinks (1)
// rule: a `QueuedSkb` borrows the `IoGuard` that lent it
// expect: E0505

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn escape(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let s = io.peek(&g)?;
    drop(g);
    drop(io);
    Ok(s.map_or(0, |s| s.len()))
}
