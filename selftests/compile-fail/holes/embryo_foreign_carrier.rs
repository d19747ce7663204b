// SPDX-License-Identifier: GPL-2.0
// hole: an embryo queued with a carrier skb charged to another socket: accept makes an
// `ARef` of that socket out of a reference nobody took
// rule: (none yet) the carrier should be made from the embryo, inside the API
// expect: none

use crate::api::sock::{Skb, Sock};
use kernel::error::Result;

pub(crate) fn steal(listener: &Sock, victim: &Sock) -> Result {
    let embryo = listener.alloc_embryo()?;
    let carrier = Skb::embryo_carrier(victim)?;
    listener.lock().queue_embryo(carrier, embryo.connected());
    // `take_embryo` turns `victim` (the carrier's `skb->sk`) into an `ARef`.
    if let Some(acc) = listener.accept_embryo(true)? {
        drop(acc);
    }
    Ok(())
}
