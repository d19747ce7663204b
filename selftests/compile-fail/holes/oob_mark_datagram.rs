// SPDX-License-Identifier: GPL-2.0
// hole: the same through a datagram receive, which unlinks any skb (also a stream
// socket's, also the mark) without looking at `oob_skb`
// rule: (none yet)
// expect: none

use crate::api::sock::{Datagram, Sock};
use kernel::error::Result;

pub(crate) fn dangling_mark(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let mut skip = 0;
    if let Ok(Datagram::Taken(skb)) = io.try_recv_datagram(0, &mut skip) {
        skb.free_datagram(sk);
    }
    let g = sk.lock();
    let mut q = io.lock_queue(&g)?;
    q.move_to_mark();
    Ok(q.current().map_or(0, |s| s.len()))
}
