// SPDX-License-Identifier: GPL-2.0
// Twin of datagram_across_sleep.rs: the datagram goes before the sleep.

use crate::api::sock::{MsgFlags, Sock};

pub(crate) fn sleep(sk: &Sock) -> u32 {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(d) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    let len = d.view().len();
    d.free(sk);
    io.unlocked(|| ());
    len
}
