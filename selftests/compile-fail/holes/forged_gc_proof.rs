// SPDX-License-Identifier: GPL-2.0
// hole: `InflightList::new` is safe: a list of one's own is taken as the proof that
// the collector's lock is held; `fp` of a queued skb freed under the collector's scan
// rule: (none yet)
// expect: none

use crate::api::inflight::InflightList;
use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn forged(sk: &Sock) -> Result {
    let mut gc = InflightList::new()?;
    let mut io = sk.io_lock();
    let g = sk.lock();
    if let Some(mut s) = io.peek(&g)? {
        drop(s.take_fds(&mut gc));
    }
    Ok(())
}

/// Deterministic: `sk` (in flight, on the collector's list) linked into a list of one's
/// own, which is freed; the collector's next `put` writes into the freed head.
pub(crate) fn relink(sk: &Sock) -> Result {
    let mut fake = InflightList::new()?;
    fake.get(sk);
    drop(fake);
    Ok(())
}
