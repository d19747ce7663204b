// SPDX-License-Identifier: GPL-2.0

//! Autobind: a name for a socket that did not choose one, as AF_UNIX's
//! `unix_autobind()` since "af_unix: Relax race in unix_autobind()" (2021).
//!
//! The name is `"\0%05x"` (an abstract name of five hex digits). The search starts at
//! a random point of `0..=0xFFFFF` and goes up, wrapping around; when it comes back to
//! where it started, every name is taken and the bind fails with `ENOSPC`.
//!
//! Past AF_UNIX, which looks every name up in turn (a million lookups for the last
//! name of a full space), the table keeps a bitmap per socket type of the names it
//! knows taken: the search skips them 64 at a time and looks up only names the map
//! says are free. A name bound explicitly in this form is not in the map until a
//! lookup finds it taken and marks it. The bucket locks are dropped between lookups,
//! with a `cond_resched()`. The maps are the netns table's ([`crate::hash::NetTable`],
//! bitmaps of [`crate::api::bitmap`]).

#![deny(unsafe_code)]

use crate::api::addr::{Address, UniqueAddress};
use crate::api::param::autobind_bits;
use crate::api::sock::Sock;
use crate::api::task::{cond_resched, random_u32};
use crate::hash::{Bucket, AUTOBIND_BITS};
use kernel::error::{code::ENOSPC, Result};

/// The autobind name space: 2^20 names, as AF_UNIX; fewer when the debug parameter
/// `autobind_bits` says so (tests of the wrap-around and of `ENOSPC`).
fn name_mask() -> u32 {
    (1u32 << autobind_bits().clamp(1, AUTOBIND_BITS as i32)) - 1
}

/// Gives `sk` an autobind name, unless it has a name already (then: success).
pub(crate) fn autobind(sk: &Sock) -> Result {
    let _b = sk.bind_lock()?;
    if sk.has_addr() {
        return Ok(());
    }
    // Allocated before any lock; the name is rewritten in place between tries.
    let mut addr = UniqueAddress::new(Address::autobind(0))?;
    let table = sk.table();
    let ty = sk.sk_type();
    table.autobind_prepare(ty);
    let old = Bucket::of(sk);
    // Read once: the debug parameter may change meanwhile.
    let mask = name_mask();
    let names = mask + 1;
    let start = random_u32() & mask;
    // `start..names`, then `0..start`.
    let (mut num, mut end, mut wrapped) = (start, names, false);
    loop {
        num = table.autobind_next(ty, num, end);
        if num >= end {
            if wrapped {
                // Every name is taken.
                return Err(ENOSPC);
            }
            (num, end, wrapped) = (0, start, true);
            continue;
        }
        addr.set_autobind_num(num);
        let h = table.name_hash(addr.name(), ty);
        let new = Bucket::abstract_name(h);
        let mut g = table.lock2(old, new);
        if g.find_name(h, addr.name()).is_none() {
            g.rehash(sk, addr.into_shared(), new, Some(h))?;
            g.autobind_taken(h, ty, num);
            return Ok(());
        }
        // Bound under a name the map did not know: explicitly, or by a racing autobind.
        g.autobind_taken(h, ty, num);
        drop(g);
        cond_resched();
        num += 1;
    }
}
