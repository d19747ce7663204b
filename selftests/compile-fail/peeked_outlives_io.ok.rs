// SPDX-License-Identifier: GPL-2.0
// Twin of peeked_outlives_io.rs: read under the reader lock.

use crate::api::sock::{MsgFlags, Sock};

pub(crate) fn escape(sk: &Sock) -> usize {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(d) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    let n = d.view().fds().map_or(0, |f| f.len());
    d.free(sk);
    drop(io);
    n
}
