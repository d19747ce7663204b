// SPDX-License-Identifier: GPL-2.0
// Twin of two_datagrams.rs: count the peeked fds, free the datagram, then receive.

use crate::api::sock::{Datagram, MsgFlags, Sock};

pub(crate) fn peek_then_take(sk: &Sock) -> usize {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(peeked) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    let n = peeked.view().fds().map_or(0, |f| f.len());
    peeked.free(sk);
    let mut skip = 0;
    if let Ok(Datagram::Taken(mut skb)) = io.try_recv_datagram(MsgFlags::NONE, &mut skip) {
        drop(skb.take_fds(sk));
    }
    n
}
