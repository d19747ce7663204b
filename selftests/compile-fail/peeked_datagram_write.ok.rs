// SPDX-License-Identifier: GPL-2.0
// Twin of peeked_datagram_write.rs: only a taken datagram gives its fds up.

use crate::api::sock::{Datagram, Sock};

pub(crate) fn fds(dg: &mut Datagram<'_>, sk: &Sock) -> bool {
    match dg {
        Datagram::Taken(skb) => skb.take_fds(sk).is_some(),
        Datagram::Peeked(_) => false,
    }
}
