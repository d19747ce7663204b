// SPDX-License-Identifier: GPL-2.0
// hole: a socket unlinked through the guard of a chain it is not on: its chain is
// written under another lock than its own
// rule: (none yet)
// expect: none

use crate::api::list::ChainLock;
use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn wrong_chain(a: &ChainLock, b: &ChainLock, sk: &Sock) -> Result {
    a.lock().add(sk)?;
    b.lock().del(sk);
    Ok(())
}
