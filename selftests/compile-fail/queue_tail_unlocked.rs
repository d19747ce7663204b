// SPDX-License-Identifier: GPL-2.0
// hole: an skb queued on a stream socket without its state lock, while its reader
// walks the links under the state lock alone (review of issue 35)
// rule: queueing is a method of the receiver's `StateGuard`
// expect: E0599

use crate::api::sock::{Skb, Sock};

pub(crate) fn send(other: &Sock, skb: Skb) {
    other.queue_tail(skb);
}
