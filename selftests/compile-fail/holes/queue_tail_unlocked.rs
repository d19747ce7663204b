// SPDX-License-Identifier: GPL-2.0
// hole: an skb queued on a stream socket without its state lock, while its reader
// walks the links under the state lock alone (`peek`, `next`)
// rule: (none yet)
// expect: none

use crate::api::sock::{Skb, Sock};

pub(crate) fn send(other: &Sock, skb: Skb) {
    other.queue_tail(skb);
}
