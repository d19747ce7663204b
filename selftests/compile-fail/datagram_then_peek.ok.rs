// SPDX-License-Identifier: GPL-2.0
// Twin of datagram_then_peek.rs: the datagram goes before the handle comes.

use crate::api::sock::{MsgFlags, Sock};
use kernel::error::Result;

pub(crate) fn both(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let d = io
        .try_recv_datagram(MsgFlags::PEEK, &mut skip)
        .map_err(|(e, _)| e)?;
    let len = d.view().len();
    d.free(sk);
    let g = sk.lock();
    if let Some(s) = io.peek(&g)? {
        s.unlink_consume();
    }
    Ok(len)
}
