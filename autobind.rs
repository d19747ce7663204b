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
//! with a `cond_resched()`. The map is [`AutobindMap`], safe code over atomic words.

use crate::addr::{Address, UniqueAddress};
use crate::hash::Bucket;
use crate::sock::{autobind_bits, cond_resched, random_u32, sock_type, Sock};
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::alloc::KVVec;
use kernel::error::{code::ENOSPC, Result};
use kernel::prelude::*;

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

/// The names of the autobind space: 2^20 (the debug parameter only narrows the search).
const NAMES: usize = 1 << 20;
const WORD_BITS: usize = usize::BITS as usize;

/// The autobind names known taken, for one socket type in one netns: a bit per name
/// `"\0%05x"`, set while a socket of that type is known to hold the name.
///
/// Set and cleared under the name's bucket lock ([`crate::hash::Locked`]), read
/// without a lock by the search (a stale bit costs a lookup or a skip that the table
/// corrects: the table has the last word).
pub(crate) struct AutobindMap {
    words: KVVec<AtomicUsize>,
}

impl AutobindMap {
    /// The index of a socket type's map (STREAM, DGRAM, SEQPACKET), if it has one.
    pub(crate) fn index(ty: u16) -> Option<usize> {
        match ty {
            sock_type::STREAM => Some(0),
            sock_type::DGRAM => Some(1),
            sock_type::SEQPACKET => Some(2),
            _ => None,
        }
    }

    /// An empty map (128 KiB; may sleep).
    pub(crate) fn new() -> Result<KBox<AutobindMap>> {
        let n = NAMES / WORD_BITS;
        let mut words = KVVec::with_capacity(n, GFP_KERNEL_ACCOUNT)?;
        for _ in 0..n {
            // Within the capacity: no allocation.
            words.push(AtomicUsize::new(0), GFP_KERNEL_ACCOUNT)?;
        }
        Ok(KBox::new(AutobindMap { words }, GFP_KERNEL_ACCOUNT)?)
    }

    /// The first name in `from..to` whose bit is clear, or `to`: a scan of 64 names a
    /// word.
    pub(crate) fn next_free(&self, from: u32, to: u32) -> u32 {
        let to = (to as usize).min(NAMES);
        let mut num = from as usize;
        while num < to {
            let Some(word) = self.words.get(num / WORD_BITS) else {
                break;
            };
            // The bits of this word from `num` on; the ones below count as taken.
            let free = !word.load(Ordering::Relaxed) & (usize::MAX << (num % WORD_BITS));
            if free != 0 {
                let found = num - num % WORD_BITS + free.trailing_zeros() as usize;
                return found.min(to) as u32;
            }
            num = num - num % WORD_BITS + WORD_BITS;
        }
        to as u32
    }

    /// Records name `num` as taken or free (under the name's bucket lock).
    pub(crate) fn mark(&self, num: u32, taken: bool) {
        let num = num as usize;
        let Some(word) = self.words.get(num / WORD_BITS) else {
            return;
        };
        let bit = 1usize << (num % WORD_BITS);
        if taken {
            word.fetch_or(bit, Ordering::Relaxed);
        } else {
            word.fetch_and(!bit, Ordering::Relaxed);
        }
    }
}
