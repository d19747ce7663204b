// SPDX-License-Identifier: GPL-2.0
// Twin of cursor_unlock_relock.rs: the handle is used up before the second cursor.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn twice(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let a = io.lock_queue(&g)?.unlock();
    let len = a.map_or(0, |a| a.len());
    let mut q = io.lock_queue(&g)?;
    drop(q.remove_current());
    drop(q);
    Ok(len)
}
