// SPDX-License-Identifier: GPL-2.0
// hole: a peeked datagram kept while the reader lock is dropped to sleep
// rule: `IoGuard::unlocked` takes the guard mutably, which a `Datagram` borrows so too
// expect: E0499

use crate::api::sock::{MsgFlags, Sock};

pub(crate) fn sleep(sk: &Sock) -> u32 {
    let mut io = sk.io_lock();
    let mut skip = 0;
    let Ok(d) = io.try_recv_datagram(MsgFlags::PEEK, &mut skip) else {
        return 0;
    };
    io.unlocked(|| ());
    d.view().len()
}
