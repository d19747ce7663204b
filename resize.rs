// SPDX-License-Identifier: GPL-2.0

//! The sizes of the striped tables (the abstract half of each netns table and the global
//! pathname table): how many chains each should have, and one resize step.
//!
//! The chains follow the number of sockets (abstract names of the netns, or pathname
//! sockets of every netns), by powers of two between `HASH_SIZE` and `2^ABS_MAX_BITS`:
//! grow when there are more sockets than chains, shrink when fewer than a quarter, to
//! twice the sockets. The gap keeps a count that goes back and forth from resizing each
//! time. A resize runs on the module's own workqueue (unbound: a rehash of a million
//! sockets is long), one at a time per table, one rehash per run ([`resize_once`]); the
//! work items (in `hash.rs`) queue themselves again if the count moved past a threshold
//! meanwhile. Without memory, a table keeps its size.
//!
//! The rehash itself is [`Resizable::rehash`] (`hash.rs`'s `Striped`, over
//! [`crate::api::list::Stripes::rehash`]).

#![deny(unsafe_code)]

/// log2 of the buckets in each half of a netns table, and of the lock stripes (and the
/// fewest chains) of a striped table.
pub(crate) const HASH_BITS: u32 = 8;
/// Buckets in each half of a netns table; lock stripes of a striped table.
pub(crate) const HASH_SIZE: u32 = 1 << HASH_BITS;
/// A striped table (the abstract half, the global pathname table) has at most
/// `2^ABS_MAX_BITS` chains (8 MiB of heads).
pub(crate) const ABS_MAX_BITS: u32 = 20;

/// A table whose chains resize.
pub(crate) trait Resizable {
    /// The chains (`log2`) and the number of sockets in them.
    fn size(&self) -> (u32, i32);
    /// Moves the sockets to `2^bits` chains; false if that could not be done (the
    /// table keeps its size).
    fn rehash(&self, bits: u32) -> bool;
}

/// The chains (log2) for `n` sockets: at least `n`, within the table's limits.
fn bits_for(n: i32) -> u32 {
    let n = n.max(1) as u32;
    // `order_base_2(n)`: the log2 of the next power of two.
    let bits = u32::BITS - (n - 1).leading_zeros();
    bits.clamp(HASH_BITS, ABS_MAX_BITS)
}

/// The chains (log2) a table should have for `n` sockets, or `bits` (its current
/// size).
pub(crate) fn wanted_bits(bits: u32, n: i32) -> u32 {
    let size = 1i64 << bits;
    if i64::from(n) > size {
        return bits_for(n);
    }
    if bits > HASH_BITS && i64::from(n) < size / 4 {
        return bits_for(n.saturating_mul(2));
    }
    bits
}

/// After a link: `n` sockets outgrow `size` chains (a resize is due).
pub(crate) fn should_grow(n: i32, size: i32) -> bool {
    n > size && size < 1 << ABS_MAX_BITS
}

/// After an unlink: `n` sockets are too few for `size` chains (a resize is due).
pub(crate) fn should_shrink(n: i32, size: i32) -> bool {
    size > HASH_SIZE as i32 && n < size / 4
}

/// One resize of `s` to the size its count wants; true if the count moved past a
/// threshold meanwhile (another run is due).
pub(crate) fn resize_once(s: &impl Resizable) -> bool {
    let (bits, n) = s.size();
    let want = wanted_bits(bits, n);
    if want == bits || !s.rehash(want) {
        return false;
    }
    let (_, n) = s.size();
    wanted_bits(want, n) != want
}
