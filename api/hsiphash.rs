// SPDX-License-Identifier: GPL-2.0

//! The keyed hash of the name tables (`hsiphash`), its random keys, and the module's keyed
//! hash of socket inodes.

use crate::api::bindings;
use crate::api::list::Inode;
use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicU64, Ordering};

/// A random key of `hsiphash`.
pub(crate) struct HashKey(bindings::hsiphash_key_t);

impl HashKey {
    /// A key from `get_random_bytes()`.
    pub(crate) fn random() -> HashKey {
        let mut key = bindings::hsiphash_key_t::default();
        // SAFETY: `key` is writable for its size.
        unsafe {
            bindings::get_random_bytes(
                ptr::addr_of_mut!(key).cast::<c_void>(),
                core::mem::size_of_val(&key),
            )
        };
        HashKey(key)
    }

    /// `hsiphash(data, len, key)`.
    #[inline]
    pub(crate) fn hash(&self, data: &[u8]) -> u32 {
        // SAFETY: `data` is `data.len()` readable bytes; `self.0` is a key.
        unsafe { bindings::afunix_hsiphash(data.as_ptr().cast(), data.len(), &self.0) }
    }
}

/// The key of [`inode_key`]: written when the global pathname table is made
/// ([`new_inode_key`]), at load, before any socket exists, and read after.
static INODE_KEY: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// Draws the module's key of inode hashes: once per load, with the global table, before
/// the family is registered (which publishes it to every socket's callers).
pub(crate) fn new_inode_key() {
    let mut k = [0u64; 2];
    // SAFETY: `k` is writable for its size.
    unsafe {
        bindings::get_random_bytes(k.as_mut_ptr().cast::<c_void>(), core::mem::size_of_val(&k))
    };
    for (w, v) in INODE_KEY.iter().zip(k) {
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
