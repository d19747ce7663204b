// SPDX-License-Identifier: GPL-2.0
// hole: the handle a cursor leaves on unlock kept while a second cursor unlinks and
// frees the same skb
// rule: `QueueCursor::unlock` gives a `QueuedSkb` that still borrows the reader lock
// mutably: no other cursor while it lives
// expect: E0499

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn twice(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let a = io.lock_queue(&g)?.unlock();
    let mut q = io.lock_queue(&g)?;
    drop(q.remove_current());
    drop(q);
    Ok(a.map_or(0, |a| a.len()))
}
