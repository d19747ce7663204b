// SPDX-License-Identifier: GPL-2.0
// hole: a peeked datagram kept while a stream-style handle of the same queue unlinks
// and frees its skb
// rule: a `Datagram` borrows the reader lock mutably, as `IoGuard::peek`
// expect: E0499

use crate::api::sock::{MsgFlags, Sock};
use kernel::error::Result;

pub(crate) fn both(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let d = io
        .try_recv_datagram(MsgFlags::PEEK, &mut skip)
        .map_err(|(e, _)| e)?;
    let g = sk.lock();
    if let Some(s) = io.peek(&g)? {
        s.unlink_consume();
    }
    Ok(d.view().len())
}
