// SPDX-License-Identifier: GPL-2.0
// hole: a handle kept while the reader lock is dropped to sleep (1)
// rule: `IoGuard::unlocked` takes the guard mutably, which a handle borrows
// expect: E0499

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn sleep(sk: &Sock) -> Result<u32> {
    let mut io = sk.io_lock();
    let g = sk.lock();
    let s = io.peek(&g)?;
    drop(g);
    io.unlocked(|| ());
    Ok(s.map_or(0, |s| s.len()))
}
