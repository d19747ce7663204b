// SPDX-License-Identifier: GPL-2.0
// hole: a peeked datagram, still queued, typed as owned: its fds taken under the
// collector's scan (5)
// rule: `Datagram::Peeked` holds a `PeekedSkb`, which has no writes
// expect: E0599

use crate::api::sock::{Datagram, Sock};

pub(crate) fn fds(dg: &mut Datagram<'_>, sk: &Sock) -> bool {
    match dg {
        Datagram::Taken(skb) => skb.take_fds(sk).is_some(),
        Datagram::Peeked(skb) => skb.take_fds(sk).is_some(),
    }
}
