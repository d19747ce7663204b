// SPDX-License-Identifier: GPL-2.0

//! The resize of the abstract half of a netns table and of the global pathname table:
//! how many chains each should have, and the work items that move their sockets there.
//!
//! The chains follow the number of sockets (abstract names of the netns, or pathname
//! sockets of every netns), by powers of two between `HASH_SIZE` and `2^ABS_MAX_BITS`:
//! grow when there are more sockets than chains, shrink when fewer than a quarter, to
//! twice the sockets. The gap keeps a count that goes back and forth from resizing each
//! time. A resize runs on the module's own workqueue (unbound: a rehash of a million
//! sockets is long), one at a time per table, one rehash per run; it queues itself again
//! if the count moved past a threshold meanwhile. Without memory, the table keeps its
//! size.
//!
//! Safe code only: the rehash itself is [`Striped::rehash`].

use crate::hash::{BsdTable, NetTable, Striped, ABS_MAX_BITS, HASH_BITS, HASH_SIZE};
use core::sync::atomic::Ordering;
use kernel::sync::Arc;
use kernel::workqueue::WorkItem;

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
fn resize_once(s: &Striped) -> bool {
    let (bits, n) = s.size();
    let want = wanted_bits(bits, n);
    if want == bits || !s.rehash(want) {
        return false;
    }
    let (_, n) = s.size();
    wanted_bits(want, n) != want
}

impl WorkItem for NetTable {
    type Pointer = Arc<NetTable>;

    fn run(t: Arc<NetTable>) {
        // The netns is going: its table is empty and will be freed.
        if t.exiting.load(Ordering::Relaxed) {
            return;
        }
        if resize_once(t.abstract_half()) && !t.exiting.load(Ordering::Relaxed) {
            if let Some(q) = crate::netns::queue() {
                // The reference of this run goes to the next one.
                let _ = q.enqueue(t);
            }
        }
    }
}

impl WorkItem for BsdTable {
    type Pointer = Arc<BsdTable>;

    fn run(t: Arc<BsdTable>) {
        // Withdrawn: the module is going (no socket is left).
        if !t.is_published() {
            return;
        }
        if resize_once(t.striped()) {
            if let Some(q) = crate::netns::queue() {
                // The reference of this run goes to the next one.
                let _ = q.enqueue(t);
            }
        }
    }
}
