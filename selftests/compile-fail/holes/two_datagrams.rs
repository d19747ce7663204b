// SPDX-License-Identifier: GPL-2.0
// hole: `try_recv_datagram` borrows the reader lock shared: a peeked datagram and the
// same skb taken by a second call coexist; the taken one gives up the fd list the
// peeked one lends
// rule: (none yet)
// expect: none

use crate::api::sock::{msg, Datagram, Sock};

pub(crate) fn peek_then_take(sk: &Sock) -> usize {
    let io = sk.io_lock();
    let mut skip = 0;
    let Ok(peeked) = io.try_recv_datagram(msg::PEEK, &mut skip) else {
        return 0;
    };
    let lent = peeked.view().fds();
    let mut skip = 0;
    if let Ok(Datagram::Taken(mut skb)) = io.try_recv_datagram(0, &mut skip) {
        drop(skb.take_fds(sk));
    }
    lent.map_or(0, |f| f.len())
}
