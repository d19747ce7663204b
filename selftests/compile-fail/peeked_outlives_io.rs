// SPDX-License-Identifier: GPL-2.0
// hole: a peeked datagram read after the reader lock went: another reader takes the
// skb and its fd list meanwhile
// rule: `PeekedSkb` (in `Datagram`) borrows the `IoGuard` that peeked it
// expect: E0505

use crate::api::sock::{MsgFlags, Sock};

pub(crate) fn escape(sk: &Sock) -> usize {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(d) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    drop(io);
    d.view().fds().map_or(0, |f| f.len())
}
