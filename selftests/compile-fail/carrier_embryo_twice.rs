// SPDX-License-Identifier: GPL-2.0
// hole: the embryo reference of a carrier skb taken out by the protocol and the skb
// then queued again (or purged): two owners of one reference
// rule: only `api/` takes an embryo out of its carrier (`take_embryo` is private)
// expect: E0624

use crate::api::kline::ARef;
use crate::api::sock::{Datagram, Sock};

pub(crate) fn take(dg: Datagram<'_>) -> Option<ARef<Sock>> {
    match dg {
        Datagram::Taken(skb) => skb.take_embryo(),
        Datagram::Peeked(_) => None,
    }
}
