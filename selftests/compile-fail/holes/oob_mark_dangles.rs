// SPDX-License-Identifier: GPL-2.0
// hole: the out-of-band skb unlinked and freed while `oob_skb` still points at it;
// the cursor then moves to the mark and reads the freed skb
// rule: (none yet) unlinking the mark's skb should clear the mark
// expect: none

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn dangling_mark(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let mut q = io.lock_queue(&g)?;
    if q.move_to_mark() {
        drop(q.remove_current());
    }
    q.move_to_mark();
    Ok(q.current().map_or(0, |s| s.len()))
}
