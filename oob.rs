// SPDX-License-Identifier: GPL-2.0

//! Out-of-band data on stream sockets, on the reader's side: the mark
//! (`MSG_OOB`'s byte) and the emptied skbs a read passes over, as AF_UNIX's
//! `manage_oob()` and `unix_stream_recv_urg()` of 6.12 handle them.

#![deny(unsafe_code)]

use crate::api::sock::{IoGuard, QueuedSkb, Skb, StateGuard};
use kernel::error::Result;

/// The skb to read next and the skbs unlinked, to free after the last use of it.
pub(crate) type Managed<'g> = (Option<QueuedSkb<'g>>, [Option<Skb>; 2]);

/// AF_UNIX's `manage_oob()`, for each skb a stream read meets at the head of the queue
/// (`copied`: this read has data already), under the state lock: an emptied skb is
/// passed over (and unlinked unless peeking); the read stops before the mark once it
/// has data; reaching the mark clears it and, without `SO_OOBINLINE`, drops the
/// out-of-band byte from the stream (passed over when peeking).
pub(crate) fn manage_oob<'g>(
    state: &StateGuard<'_>,
    skb: QueuedSkb<'g>,
    peek: bool,
    copied: bool,
) -> Result<Managed<'g>> {
    let sk = state.sock();
    if skb.unread() != 0 && !sk.is_oob_mark(&skb) {
        return Ok((Some(skb), [None, None]));
    }
    let mut q = skb.lock_queue(state)?;
    let mut freed = [None, None];
    if q.current().is_some_and(|c| c.unread() == 0) {
        if copied && (!sk.has_oob() || q.is_mark()) {
            return Ok((None, freed));
        }
        if peek {
            q.move_next();
        } else {
            freed[0] = q.remove_current();
        }
        if q.current().is_none() {
            return Ok((None, freed));
        }
    }
    if !q.is_mark() {
        return Ok((q.unlock(), freed));
    }
    if copied {
        return Ok((None, freed));
    }
    if !peek {
        q.clear_mark();
        if sk.urg_inline() {
            return Ok((q.unlock(), freed));
        }
        freed[1] = q.remove_current();
        q.move_first();
        return Ok((q.unlock(), freed));
    }
    if !sk.urg_inline() {
        q.move_next();
    }
    Ok((q.unlock(), freed))
}

/// The out-of-band skb for `recv(MSG_OOB)` (`unix_stream_recv_urg()`), under the state
/// lock: `None` with `SO_OOBINLINE` or without a mark. The skb stays queued (the reader
/// lock's holder is the only one to unlink); unless peeking, the mark is cleared and an
/// emptied skb just before it is unlinked and returned, to free.
pub(crate) fn take_urg<'g>(
    io: &'g mut IoGuard<'_>,
    state: &StateGuard<'_>,
    peek: bool,
) -> Result<Option<(QueuedSkb<'g>, Option<Skb>)>> {
    let mut q = io.lock_queue(state)?;
    if state.sock().urg_inline() || !q.move_to_mark() {
        return Ok(None);
    }
    let mut read = None;
    if !peek {
        q.clear_mark();
        read = q.remove_prev_if(|p| p.unread() == 0);
    }
    Ok(q.unlock().map(|oob| (oob, read)))
}
