// SPDX-License-Identifier: GPL-2.0

//! A bitmap of atomic words, read without a lock (as the kernel's `set_bit()`,
//! `clear_bit()` and `find_next_zero_bit()`): the autobind names known taken.
//! 7.3's `kernel::bitmap::BitmapVec`: not used: `bitmap_zalloc()` is kmalloc only, where
//! these 128 KiB are kvmalloc'd; 7.3's `Atomic<usize>` has no `fetch_or`/`fetch_and`.

use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::alloc::{Flags, KVVec};
use kernel::error::Result;
use kernel::prelude::*;

const WORD_BITS: usize = usize::BITS as usize;

/// A bitmap of a fixed size; a bit is set and cleared with relaxed atomics, so readers
/// see each bit old or new.
pub(crate) struct AtomicBitmap {
    words: KVVec<AtomicUsize>,
}

impl AtomicBitmap {
    /// `bits` clear bits (rounded up to a word).
    pub(crate) fn new(bits: usize, gfp: Flags) -> Result<KBox<AtomicBitmap>> {
        let n = bits.div_ceil(WORD_BITS);
        let mut words = KVVec::with_capacity(n, gfp)?;
        for _ in 0..n {
            // Within the capacity: no allocation.
            words.push(AtomicUsize::new(0), gfp)?;
        }
        Ok(KBox::new(AtomicBitmap { words }, gfp)?)
    }

    /// The first bit in `from..to` that is clear, or `to` (at most the bitmap's size): a
    /// scan of a word at a time.
    pub(crate) fn next_clear(&self, from: usize, to: usize) -> usize {
        let to = to.min(self.words.len() * WORD_BITS);
        let mut num = from;
        while num < to {
            let Some(word) = self.words.get(num / WORD_BITS) else {
                break;
            };
            // The bits of this word from `num` on; the ones below count as set.
            let free = !word.load(Ordering::Relaxed) & (usize::MAX << (num % WORD_BITS));
            if free != 0 {
                let found = num - num % WORD_BITS + free.trailing_zeros() as usize;
                return found.min(to);
            }
            num = num - num % WORD_BITS + WORD_BITS;
        }
        to
    }

    /// Sets (`true`) or clears bit `num`; nothing if it is past the end.
    pub(crate) fn assign(&self, num: usize, set: bool) {
        let Some(word) = self.words.get(num / WORD_BITS) else {
            return;
        };
        let bit = 1usize << (num % WORD_BITS);
        if set {
            word.fetch_or(bit, Ordering::Relaxed);
        } else {
            word.fetch_and(!bit, Ordering::Relaxed);
        }
    }
}
