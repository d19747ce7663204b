// SPDX-License-Identifier: GPL-2.0
// Twin of queue_tail_unlocked.rs: under the receiver's state lock.

use crate::api::sock::{Skb, Sock};

pub(crate) fn send(other: &Sock, skb: Skb) {
    other.lock().queue_tail(skb);
}
