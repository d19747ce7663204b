// SPDX-License-Identifier: GPL-2.0

//! Out-of-band data on stream sockets, on the reader's side: the mark
//! (`MSG_OOB`'s byte) and the emptied skbs a read passes over, as AF_UNIX's
//! `manage_oob()` and `unix_stream_recv_urg()` of 6.12 handle them.

#![deny(unsafe_code)]

use crate::api::sock::{IoGuard, QueuedSkb, Skb, StateGuard};

/// AF_UNIX's `manage_oob()`, for each skb a stream read meets at the head of the queue
/// (`copied`: this read has data already), under the state lock: an emptied skb is
/// passed over (and unlinked unless peeking); the read stops before the mark once it
/// has data; reaching the mark clears it and, without `SO_OOBINLINE`, drops the
/// out-of-band byte from the stream (passed over when peeking). Returns the skb to
/// read, if any, and the skbs unlinked, to free (after the last use of `skb`).
pub(crate) fn manage_oob<'s>(
    io: &'s IoGuard<'_>,
    state: &StateGuard<'_>,
    skb: QueuedSkb<'s>,
    peek: bool,
    copied: bool,
) -> (Option<QueuedSkb<'s>>, [Option<Skb>; 2]) {
    let sk = state.sock();
    if skb.unread() != 0 && !sk.is_oob_mark(&skb) {
        return (Some(skb), [None, None]);
    }
    let q = io.lock_queue(state);
    let mut freed = [None, None];
    let mut cur = skb;
    if cur.unread() == 0 {
        if copied && (!sk.has_oob() || q.is_mark(&cur)) {
            return (None, freed);
        }
        let next = q.next(&cur);
        if !peek {
            freed[0] = Some(q.unlink(cur));
        }
        match next {
            Some(n) => cur = n,
            None => return (None, freed),
        }
    }
    if !q.is_mark(&cur) {
        return (Some(cur), freed);
    }
    if copied {
        return (None, freed);
    }
    if !peek {
        q.clear_mark();
        if sk.urg_inline() {
            return (Some(cur), freed);
        }
        freed[1] = Some(q.unlink(cur));
        return (q.first(), freed);
    }
    if sk.urg_inline() {
        return (Some(cur), freed);
    }
    (q.next(&cur), freed)
}

/// The out-of-band skb for `recv(MSG_OOB)` (`unix_stream_recv_urg()`), under the state
/// lock: `None` with `SO_OOBINLINE` or without a mark. The skb stays queued (the reader
/// lock's holder is the only one to unlink); unless peeking, the mark is cleared and an
/// emptied skb just before it is unlinked and returned, to free.
pub(crate) fn take_urg<'s>(
    io: &'s IoGuard<'_>,
    state: &StateGuard<'_>,
    peek: bool,
) -> Option<(QueuedSkb<'s>, Option<Skb>)> {
    let q = io.lock_queue(state);
    if state.sock().urg_inline() {
        return None;
    }
    let oob = q.mark()?;
    let mut read = None;
    if !peek {
        q.clear_mark();
        if let Some(prev) = q.prev(&oob).filter(|p| p.unread() == 0) {
            read = Some(q.unlink(prev));
        }
    }
    Some((oob, read))
}
