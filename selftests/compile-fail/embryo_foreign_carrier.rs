// SPDX-License-Identifier: GPL-2.0
// hole: an embryo queued with a carrier skb charged to another socket: accept makes an
// `ARef` of that socket out of a reference nobody took (review of issue 35)
// rule: the carrier is made inside the API from the embryo itself
// (`BareEmbryo::with_carrier`); `Skb::embryo_carrier` is private to `api/`
// expect: E0624
// expect: E0061

use crate::api::sock::{Skb, Sock};
use kernel::error::Result;

pub(crate) fn steal(listener: &Sock, victim: &Sock) -> Result {
    let embryo = listener.alloc_embryo()?;
    let carrier = Skb::embryo_carrier(victim)?;
    listener.lock().queue_embryo(carrier, embryo);
    Ok(())
}
