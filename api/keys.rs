// SPDX-License-Identifier: GPL-2.0

//! Random keys for the module's hashes, and the keyed hash of socket inodes.

use crate::api::bindings;
use crate::api::list::Inode;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, Ordering};

/// `N` random words from `get_random_bytes()` (on the stack: a few).
pub(crate) fn random_u64s<const N: usize>() -> [u64; N] {
    let mut k = [0u64; N];
    // SAFETY: `k` is writable for its size.
    unsafe {
        bindings::get_random_bytes(k.as_mut_ptr().cast::<c_void>(), core::mem::size_of_val(&k))
    };
    k
}

/// `s.as_chunks::<8>()`: `s` as arrays of 8 bytes, and the rest (stable in Rust only
/// since 1.88, past both lines' minimum: 1.78 and 1.85).
#[inline(always)]
pub(crate) fn as_chunks8(s: &[u8]) -> (&[[u8; 8]], &[u8]) {
    let n = s.len() / 8;
    let tail = s.get(n * 8..).unwrap_or(&[]);
    // SAFETY: `s` starts with `n * 8` readable bytes: `n` arrays of 8 bytes (alignment 1),
    // borrowed as `s` is.
    let head = unsafe { core::slice::from_raw_parts(s.as_ptr().cast::<[u8; 8]>(), n) };
    (head, tail)
}

/// The key of [`inode_key`]: written when the global pathname table is made
/// ([`new_inode_key`]), at load, before any socket exists, and read after.
static INODE_KEY: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// Draws the module's key of inode hashes: once per load, with the global table, before
/// the family is registered (which publishes it to every socket's callers).
pub(crate) fn new_inode_key() {
    for (w, v) in INODE_KEY.iter().zip(random_u64s::<2>()) {
        w.store(v, Ordering::Relaxed);
    }
}

/// The key of a socket inode in the global pathname table: a hash of the inode's
/// address keyed per module load. AF_UNIX keys by `i_ino`, which every tmpfs numbers
/// from 1: sockets of equal inode numbers on many mounts (any user namespace can make
/// them) would share one chain that no resize splits. Distinct inodes have distinct
/// addresses, which no caller chooses or sees: a multiply-shift hash (`(x ^ k0) * k1`,
/// `k1` odd, its high half) spreads them, in a few instructions where `hsiphash` of the
/// eight bytes takes a hundred (the connect of a pathname looks one up). The table
/// indexes chains by the key's low bits, so the bytes are swapped: they are the
/// product's top bits, the best mixed ones.
#[inline]
pub(crate) fn inode_key(inode: *const Inode) -> u32 {
    let k0 = INODE_KEY[0].load(Ordering::Relaxed);
    let k1 = INODE_KEY[1].load(Ordering::Relaxed) | 1;
    let h = ((inode as usize as u64) ^ k0).wrapping_mul(k1);
    ((h >> 32) as u32).swap_bytes()
}
