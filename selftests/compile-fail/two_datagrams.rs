// SPDX-License-Identifier: GPL-2.0
// hole: a peeked datagram and the same skb taken by a second receive coexist; the
// taken one gives up the fd list the peeked one lends (review of issue 35)
// rule: `IoGuard::try_recv_datagram` borrows the reader lock mutably
// expect: E0499

use crate::api::sock::{Datagram, MsgFlags, Sock};

pub(crate) fn peek_then_take(sk: &Sock) -> usize {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(peeked) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    let lent = peeked.view().fds();
    let mut skip = 0;
    if let Ok(Datagram::Taken(mut skb)) = io.try_recv_datagram(MsgFlags::NONE, &mut skip) {
        drop(skb.take_fds(sk));
    }
    lent.map_or(0, |f| f.len())
}
