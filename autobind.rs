// SPDX-License-Identifier: GPL-2.0

//! Autobind: a name for a socket that did not choose one, as AF_UNIX's
//! `unix_autobind()` since "af_unix: Relax race in unix_autobind()" (2021).
//!
//! The name is `"\0%05x"` (an abstract name of five hex digits). The search starts at
//! a random point of `0..=0xFFFFF` and goes up, wrapping around; when it comes back to
//! where it started, every name is taken and the bind fails with `ENOSPC`. The bucket
//! locks are dropped between tries, with a `cond_resched()`, so a nearly full name
//! space slows the caller but never stalls the CPU.

use crate::addr::Address;
use crate::hash::Bucket;
use crate::sock::{autobind_bits, cond_resched, random_u32, Sock};
use kernel::error::{code::ENOSPC, Result};
use kernel::prelude::*;
use kernel::sync::UniqueArc;

/// The autobind name space: 2^20 names, as AF_UNIX; fewer when the debug parameter
/// `autobind_bits` says so (tests of the wrap-around and of `ENOSPC`).
fn name_mask() -> u32 {
    (1u32 << autobind_bits().clamp(1, 20)) - 1
}

/// Gives `sk` an autobind name, unless it has a name already (then: success).
pub(crate) fn autobind(sk: &Sock) -> Result {
    let _b = sk.bind_lock()?;
    if sk.has_addr() {
        return Ok(());
    }
    // Allocated before any lock; the name is rewritten in place between tries.
    let mut addr = UniqueArc::new(Address::autobind(0), GFP_KERNEL)?;
    let table = sk.table();
    let old = Bucket::of(sk);
    let mask = name_mask();
    let mut num = random_u32();
    let last = num & mask;
    loop {
        num = num.wrapping_add(1) & mask;
        addr.set_autobind_num(num);
        let h = table.name_hash(addr.name(), sk.sk_type());
        let new = Bucket::abstract_name(h);
        let mut g = table.lock2(old, new);
        if g.find_name(h, addr.name()).is_none() {
            return g.rehash(sk, addr.into(), new, Some(h));
        }
        drop(g);
        // The lookup may take long when many names are in use.
        cond_resched();
        if num == last {
            // Give up: all names seem to be in use.
            return Err(ENOSPC);
        }
    }
}
