// SPDX-License-Identifier: GPL-2.0

//! The name tables: the split per-netns table and the global pathname table.
//!
//! As AF_UNIX since "af_unix: Optimise hash table layout" (2022), each network
//! namespace has `2 * HASH_SIZE` buckets: `[0, HASH_SIZE)` hold unbound and pathname
//! sockets, `[HASH_SIZE, 2 * HASH_SIZE)` abstract ones, so an abstract lookup never
//! walks a pathname socket. The socket type is mixed into the abstract hash: a STREAM
//! and a DGRAM socket may bind the same name. Each bucket has its own spinlock; a
//! rehash (bind) takes the old and the new bucket in ascending order.
//!
//! Past AF_UNIX, the abstract half stays flat as names grow: each of its buckets is a
//! lock stripe over chains `i` with `i % HASH_SIZE` fixed, the chains are resized (by a
//! work item, stripe by stripe: [`crate::resize`]) to about one socket each, up to
//! `2^ABS_MAX_BITS` chains, and the name hash is keyed per table ([`NameKey`]), so names
//! chosen without the key share chains as random ones do, pairwise (and, seen through
//! the listings, only by brute force).
//!
//! Pathname sockets are also in one global table keyed by inode ("af_unix: Put
//! pathname sockets in the global hash table"), so that a socket file reaches its
//! socket from every netns that can resolve it. Past AF_UNIX, it resizes as the
//! abstract half does (both are a [`Striped`] table), keyed by a hash of the inode.
//!
//! The tables are Rust data: [`NetTable`] per netns (the module's per-netns data,
//! [`crate::api::pernet`]), [`BsdTable`] for the module. Each chain is a C `hlist_head`
//! of `struct sock` (linked by `sk_node`, or `sk_bind_node` in the global table), written
//! only through the guard of the lock that protects it ([`crate::api::list`]). Nothing
//! here allocates under a lock: callers allocate before locking.
//!
//! Past AF_UNIX, the lookups of connect and sendto take no lock (but while a resize
//! moves the stripe's sockets: then the stripe lock)
//! ([`NetTable::find_abstract`], [`find_by_inode`]): they walk a chain under
//! `rcu_read_lock()` and take a reference with `refcount_inc_not_zero`. That holds
//! because every link and unlink is an `_rcu` list operation (an unlinked node keeps its
//! `next`, so a walker on it goes on), and a socket linked into a striped table is freed
//! a grace period after its last reference goes (`SOCK_RCU_FREE`), with its address. A
//! bound socket's name and inode never change and a socket leaves the tables only at
//! release, so a socket found with the name is the one bound to it (or,
//! if it is being released, one the caller sees dead, as after a locked lookup). A
//! resize moves sockets between chains under each stripe's lock, which a walker can
//! follow into the wrong chain: each stripe has a sequence count, odd while its
//! sockets move, and a walk that found nothing while it changed is made again. Binds
//! still check and insert under the stripe lock, so two binds of one name cannot both
//! succeed.
//!
//! A socket's chain is found from what the table recorded in it at the link: its bucket
//! (`sk_hash`) and its key (the name hash, or the inode key), which do not change while
//! it is linked; the unlinks rely on that to lock the chain the socket is in.

#![deny(unsafe_code)]

use crate::api::addr::{Address, UnixAddress, PATH_OFFSET, SUN_LEN};
use crate::api::bitmap::AtomicBitmap;
use crate::api::keys;
use crate::api::kline::pin_init_array_from_fn;
use crate::api::kline::ARef;
use crate::api::list::{
    ChainGuard, ChainLock, Chains, Inode, Link, LockClass, StripeGuard, Stripes, Walk, BSD_LOCK,
    TABLE_LOCK,
};
use crate::api::net::{self, DataRef, Net, PerNet};
use crate::api::publish::{Publication, Published};
use crate::api::sock::{sock_type, Sock};
use crate::api::sync::OnceBox;
use crate::api::sysctl::NetSysctls;
use crate::api::workqueue;
use crate::resize::{self, Resizable, ABS_MAX_BITS, HASH_BITS, HASH_SIZE};
use core::ops::Deref;
use core::sync::atomic::{fence, AtomicI32, Ordering};
use kernel::alloc::{flags, KVBox};
use kernel::error::{code::EINVAL, Result};
use kernel::prelude::*;
use kernel::sync::{Arc, UniqueArc};
use kernel::workqueue::{Work, WorkItem};

const HASH_MOD: u32 = HASH_SIZE - 1;
/// The lock stripes of a striped table.
const STRIPES: usize = HASH_SIZE as usize;

/// log2 of the autobind name space (`"\0%05x"`: 2^20 names, as AF_UNIX).
pub(crate) const AUTOBIND_BITS: u32 = 20;

/// A bucket of a netns table.
///
/// # Invariants
///
/// `self.0 < 2 * HASH_SIZE`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Bucket(u32);

impl Bucket {
    /// The bucket of an unbound socket: from its address and type (`unix_unbound_hash`).
    pub(crate) fn unbound(sk: &Sock) -> Bucket {
        let mut h = sk.as_ptr() as usize;
        h ^= h >> 16;
        h ^= h >> 8;
        h ^= usize::from(sk.sk_type());
        // INVARIANT: Masked below `HASH_SIZE`.
        Bucket(h as u32 & HASH_MOD)
    }

    /// The bucket of a pathname socket: from its inode number (`unix_bsd_hash`).
    pub(crate) fn bsd(ino: u64) -> Bucket {
        // INVARIANT: Masked below `HASH_SIZE`.
        Bucket(ino as u32 & HASH_MOD)
    }

    /// The bucket (lock stripe) of an abstract name for a socket type, in the upper half.
    pub(crate) fn abstract_name(h: NameHash) -> Bucket {
        // INVARIANT: `HASH_SIZE + (h & HASH_MOD) < 2 * HASH_SIZE`.
        Bucket(HASH_SIZE + (h.0 & HASH_MOD))
    }

    fn is_abstract(self) -> bool {
        self.0 >= HASH_SIZE
    }

    /// The bucket a socket is in (`sk_hash`), read under that bucket's lock or the
    /// socket's bind lock.
    pub(crate) fn of(sk: &Sock) -> Bucket {
        // INVARIANT: Only `Bucket` values are stored (`Locked::link`).
        Bucket(sk.hash() % (2 * HASH_SIZE))
    }

    /// The bucket with number `b`, if there is one.
    pub(crate) fn nth(b: u64) -> Option<Bucket> {
        // INVARIANT: Checked.
        (b < u64::from(2 * HASH_SIZE)).then_some(Bucket(b as u32))
    }
}

impl Sock {
    /// The name table of this socket's network namespace.
    #[inline]
    pub(crate) fn table(&self) -> TableRef<'_> {
        NetTable::of(self.net())
    }
}

/// The full hash of an abstract name (`sun_path` bytes) and a socket type, in one table.
///
/// Its low bits choose the stripe and the chain; all of it is kept in each bound socket
/// and compared before the name, so a lookup reads the name of (almost) only the socket
/// it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameHash(u32);

/// Pairs of 32-bit words in the longest name (`sun_path`, 108 bytes).
const NAME_PAIRS: usize = (SUN_LEN - PATH_OFFSET).div_ceil(8);

/// The prime `2^61 - 1`: the name hash sums modulo it.
const P61: u64 = (1 << 61) - 1;

/// The random key of a table's name hash: a multilinear hash, `k0 + klen * len +
/// sum(kw[i] * w[i])` modulo the prime `2^61 - 1` over the name's 32-bit words `w` (the
/// last padded with zeros; `kw` flattened), keys below the prime; then mixed
/// (MurmurHash3's 64-bit finalizer), of which the top half is kept.
///
/// Two distinct names have sums congruent modulo the prime for about 2^-61 of the keys
/// (a difference of words is not zero modulo the prime). The mixing is there because the listings
/// (`/proc/net/rust_afunix`, sock_diag) show which sockets share a chain, as AF_UNIX's
/// do: the sum is linear in the key, and a user who found two names with one sum would
/// know a difference that gives every other pair one sum too. Sums modulo 2^64 (keys
/// times words, one instruction fewer a word) were not enough: names that differ in the
/// top bits of their words have equal sums for about 2^-33 of the keys, few enough
/// tries for a user who watches the listings (found in review). Names that merely share
/// a chain have different sums, and the finalizer (not a cryptographic function: this
/// part is heuristic) spreads the difference over every bit: no shortcut is known past
/// brute force, binding names and watching the listings, about as many binds as chains
/// for each name kept in one chain. A multiply-add a word and a dozen instructions,
/// where `hsiphash` took about a hundred for a short name.
struct NameKey {
    /// The constant term.
    k0: u64,
    /// The factor of the name's length.
    klen: u64,
    /// The factors of the name's words, by pairs.
    kw: [[u64; 2]; NAME_PAIRS],
}

/// Up to four bytes as a little-endian word, zero-padded.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    match *b {
        [] => 0,
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c] => u64::from(u16::from_le_bytes([a, b])) | u64::from(c) << 16,
        [a, b, c, d, ..] => u64::from(u32::from_le_bytes([a, b, c, d])),
    }
}

/// `k * w` as a 128-bit product (one `mul`).
#[inline(always)]
fn mul(k: u64, w: u64) -> u128 {
    u128::from(k) * u128::from(w)
}

impl NameKey {
    fn random() -> NameKey {
        let [k0, klen, rest @ ..] = keys::random_u64s::<{ 2 + 2 * NAME_PAIRS }>().map(|k| k % P61);
        let mut kw = [[0; 2]; NAME_PAIRS];
        for (p, k) in kw.iter_mut().zip(rest.chunks_exact(2)) {
            if let &[a, b] = k {
                *p = [a, b];
            }
        }
        NameKey { k0, klen, kw }
    }

    // Inlined into the lookup of connect and sendto.
    #[inline(always)]
    fn hash(&self, name: &[u8]) -> u32 {
        // Keys below 2^61 times words below 2^32, 29 terms: below 2^98, no overflow
        // (wrapping: no overflow check to compile).
        // A name is at most 108 bytes: its length is a word.
        let mut h = u128::from(self.k0).wrapping_add(mul(self.klen, name.len() as u64));
        // Two words at a time, then the tail's (one to seven bytes) with the next keys.
        let (pairs, tail) = keys::as_chunks8(name);
        for (&[a, b, c, d, e, f, g, i], &[ka, kb]) in pairs.iter().zip(self.kw.iter()) {
            let lo = u64::from(u32::from_le_bytes([a, b, c, d]));
            let hi = u64::from(u32::from_le_bytes([e, f, g, i]));
            h = h.wrapping_add(mul(ka, lo).wrapping_add(mul(kb, hi)));
        }
        if !tail.is_empty() {
            if let Some(&[ka, kb]) = self.kw.get(pairs.len()) {
                let lo = tail.get(..4).unwrap_or(tail);
                let hi = tail.get(4..).unwrap_or(&[]);
                h = h.wrapping_add(mul(ka, word(lo)).wrapping_add(mul(kb, word(hi))));
            }
        }
        // `2^61 = 1` modulo the prime: a value congruent to the sum, below 2^62 (equal
        // values for equal sums, and only for congruent ones).
        let mut x = (h as u64 & P61).wrapping_add((h >> 61) as u64);
        // MurmurHash3's `fmix64`: every output bit depends on every bit of `x`.
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^= x >> 33;
        (x >> 32) as u32
    }
}

/// Chains over `HASH_SIZE` lock stripes, resized to about one socket each
/// ([`crate::resize`]), walked without the lock: the abstract half of each netns table
/// and the global pathname table. The key of each socket is [`Sock::key`], set before
/// it is linked: the name hash (abstract half, linked by `sk_node`) or the inode key
/// ([`keys::inode_key`]; the global table, by `sk_bind_node`).
///
/// Its stripe locks in the lock order: see [`crate::api`], "Lock order".
#[pin_data]
pub(crate) struct Striped {
    /// The stripes and their chains.
    #[pin]
    s: Stripes<STRIPES>,
    /// Sockets in the chains.
    n: AtomicI32,
    /// The number of chains; written by the resize only (the read-only sysctls
    /// `abstract_buckets` and `pathname_buckets` show it).
    size: AtomicI32,
}

impl Striped {
    /// Stripes over `chains` (its first size), linked by `link`, of lock class `class`.
    fn new(chains: UniqueArc<Chains>, link: Link, class: LockClass) -> impl PinInit<Striped> {
        let size = 1 << chains.bits();
        pin_init!(Striped {
            s <- Stripes::new(chains, link, class),
            n: AtomicI32::new(0),
            size: AtomicI32::new(size),
        })
    }

    /// Locks the stripe of key `k` (masked below `HASH_SIZE`); `nested` if the caller
    /// holds a lock of the same class, lower.
    fn lock(&self, k: u32, nested: bool) -> StripeGuard<'_, STRIPES> {
        self.s.lock(k, nested)
    }

    /// Counts a socket linked (under its stripe's lock); true if a resize is due.
    fn linked(&self) -> bool {
        let n = self.n.fetch_add(1, Ordering::SeqCst) + 1;
        // SeqCst, as the count's update: with the store and fence of `rehash`, either
        // the resize sees this count, or this sees its new size (the `smp_mb()` of
        // `atomic_inc_return()` in C).
        resize::should_grow(n, self.size.load(Ordering::SeqCst))
    }

    /// Counts a socket unlinked (under its stripe's lock); true if a resize is due.
    fn unlinked(&self) -> bool {
        let n = self.n.fetch_sub(1, Ordering::SeqCst) - 1;
        // As in `linked`.
        resize::should_shrink(n, self.size.load(Ordering::SeqCst))
    }
}

impl Resizable for Striped {
    fn size(&self) -> (u32, i32) {
        let bits = self.size.load(Ordering::Relaxed).max(1).ilog2();
        (bits, self.n.load(Ordering::SeqCst))
    }

    /// Moves the sockets to `2^bits` chains ([`Stripes::rehash`]); false if out of
    /// memory (the table keeps its size: lookups get slower, nothing fails). Only a
    /// resize work item (never run twice at once for one table) calls this.
    fn rehash(&self, bits: u32) -> bool {
        let bits = bits.clamp(HASH_BITS, ABS_MAX_BITS);
        let Ok(new) = Chains::new(bits, GFP_KERNEL | flags::__GFP_NOWARN) else {
            return false;
        };
        if !self.s.rehash(new) {
            return false;
        }
        self.size.store(1 << bits, Ordering::SeqCst);
        // Pairs with the SeqCst count updates and size loads of `linked` and `unlinked`:
        // either they see the new size, or the resize (`size`) sees their count.
        fence(Ordering::SeqCst);
        true
    }
}

/// The 256 bucket locks of the lower half of a netns table and the abstract stripes:
/// 20 to 40 KiB with lockdep, in storage that may come from vmalloc.
#[pin_data]
struct Buckets {
    /// Buckets `[0, HASH_SIZE)`: unbound and pathname sockets.
    #[pin]
    lower: [ChainLock; HASH_SIZE as usize],
    /// Buckets `[HASH_SIZE, 2 * HASH_SIZE)`: the abstract stripes.
    #[pin]
    abs: Striped,
}

/// The name table of one network namespace, and the namespace's other state: the
/// module's per-netns data ([`crate::api::pernet`]; `netns.rs` implements its
/// operations).
///
/// The netns's storage holds a reference from its init to its exit: every socket of the
/// namespace pins the netns, so the table outlives them. A queued resize holds a
/// reference of its own.
#[pin_data]
pub(crate) struct NetTable {
    /// The bucket locks.
    b: Pin<KVBox<Buckets>>,
    /// The key of the name hash, random per table.
    key: NameKey,
    /// The resize work item ([`crate::resize`]); disabled at netns exit.
    #[pin]
    resize: Work<NetTable>,
    /// Per socket type (STREAM, DGRAM, SEQPACKET), the autobind names known taken
    /// (a bit per name, set while a socket of that type is known to hold the name: set
    /// and cleared under the name's bucket lock, read without a lock by the search, for
    /// which the table has the last word); allocated at the first autobind.
    autobind: [OnceBox<AtomicBitmap>; 3],
    /// The sysctls `net.rust_afunix.*` of the netns.
    sysctls: NetSysctls,
    /// `net.rust_afunix.stream_coalesce`: small stream writes are appended to the tail
    /// skb of the peer's queue (1) or each get an skb (0, AF_UNIX's way; the default).
    pub(crate) stream_coalesce: AtomicI32,
}

kernel::impl_has_work! {
    impl HasWork<NetTable> for NetTable { self.resize }
}

impl PerNet for net::Module {
    type Data = NetTable;
}

/// The index of a socket type's autobind map (STREAM, DGRAM, SEQPACKET), if it has one.
fn autobind_index(ty: u16) -> Option<usize> {
    match ty {
        sock_type::STREAM => Some(0),
        sock_type::DGRAM => Some(1),
        sock_type::SEQPACKET => Some(2),
        _ => None,
    }
}

impl NetTable {
    /// A new, empty table with 256 abstract chains and a random hash key.
    pub(crate) fn new() -> Result<Arc<NetTable>> {
        let chains = Chains::new(HASH_BITS, GFP_KERNEL_ACCOUNT)?;
        let key = NameKey::random();
        // One lock class for the 512 bucket locks (two are taken nested, in order).
        let buckets = pin_init!(Buckets {
            lower <- pin_init_array_from_fn(|_| ChainLock::new(TABLE_LOCK)),
            abs <- Striped::new(chains, Link::Node, TABLE_LOCK),
        });
        let b = KVBox::pin_init(buckets, GFP_KERNEL_ACCOUNT)?;
        let init = pin_init!(NetTable {
            b,
            key,
            resize <- kernel::new_work!("rust_afunix:resize"),
            autobind: [OnceBox::new(), OnceBox::new(), OnceBox::new()],
            sysctls: NetSysctls::new(),
            stream_coalesce: AtomicI32::new(0),
        });
        Arc::pin_init(init, GFP_KERNEL_ACCOUNT)
    }

    /// The table of `net`.
    #[inline]
    pub(crate) fn of(net: &Net) -> TableRef<'_> {
        TableRef(net::data(net))
    }

    /// The sysctls of the netns.
    pub(crate) fn sysctls(&self) -> &NetSysctls {
        &self.sysctls
    }

    /// The number of abstract chains (the sysctl `abstract_buckets` shows it).
    pub(crate) fn abstract_buckets(&self) -> &AtomicI32 {
        &self.b.abs.size
    }

    /// The hash of an abstract name for a socket type: keyed by this table
    /// ([`NameKey`]), then the type, as AF_UNIX mixes it into its own.
    #[inline]
    pub(crate) fn name_hash(&self, name: &[u8], ty: u16) -> NameHash {
        NameHash(self.key.hash(name) ^ u32::from(ty))
    }

    /// The socket bound to the abstract `name` of hash `h`, with a reference: the
    /// lookup of connect and sendto, under RCU (under the stripe lock only while a
    /// resize moves the stripe's sockets).
    // Inlined, as `names::Target::find`.
    #[inline(always)]
    fn find_abstract(&self, h: NameHash, name: &[u8]) -> Option<ARef<Sock>> {
        self.b.abs.s.find_name(h.0, name)
    }

    /// The autobind map of socket type `ty`, if it has one.
    fn autobind_map(&self, ty: u16) -> Option<&AtomicBitmap> {
        self.autobind.get(autobind_index(ty)?)?.get()
    }

    /// Makes sure the autobind map of socket type `ty` exists (allocates 128 KiB: may
    /// sleep). Without it (no memory), autobind looks every name up, as AF_UNIX does.
    pub(crate) fn autobind_prepare(&self, ty: u16) {
        if let Some(slot) = autobind_index(ty).and_then(|i| self.autobind.get(i)) {
            let _ =
                slot.get_or_try_init(|| AtomicBitmap::new(1 << AUTOBIND_BITS, GFP_KERNEL_ACCOUNT));
        }
    }

    /// The first autobind name number in `from..to` that the map of socket type `ty`
    /// does not know taken, or `to`. Read without locks: the table has the last word.
    pub(crate) fn autobind_next(&self, ty: u16, from: u32, to: u32) -> u32 {
        match self.autobind_map(ty) {
            Some(m) => m.next_clear(from as usize, to as usize) as u32,
            None => from.min(to),
        }
    }

    /// Locks bucket `b` (nested: the caller holds another bucket lock, lower).
    fn lock_bucket(&self, b: Bucket, nested: bool) -> BucketGuard<'_> {
        // Masked below `HASH_SIZE`, the array's length.
        let i = (b.0 & HASH_MOD) as usize;
        match (b.is_abstract(), nested) {
            (false, false) => BucketGuard::Lower(self.b.lower[i].lock()),
            (false, true) => BucketGuard::Lower(self.b.lower[i].lock_nested()),
            (true, nested) => BucketGuard::Stripe(self.b.abs.lock(b.0, nested)),
        }
    }

    /// The abstract half, for its resize.
    fn abstract_half(&self) -> &Striped {
        &self.b.abs
    }
}

/// An abstract name with its hash in one table (only [`TableRef::abstract_name`] makes
/// one, so the hash is that of the name and the table).
pub(crate) struct AbstractName<'a> {
    t: &'a NetTable,
    name: &'a [u8],
    h: NameHash,
}

impl AbstractName<'_> {
    /// The socket bound to the name, with a reference ([`NetTable::find_abstract`]).
    #[inline(always)]
    pub(crate) fn find(&self) -> Option<ARef<Sock>> {
        self.t.find_abstract(self.h, self.name)
    }
}

/// A netns's table, borrowed with the reference the netns holds (a resize queued
/// through it takes one of its own).
#[derive(Clone, Copy)]
pub(crate) struct TableRef<'a>(DataRef<'a>);

impl Deref for TableRef<'_> {
    type Target = NetTable;

    fn deref(&self) -> &NetTable {
        self.0.get()
    }
}

impl<'a> TableRef<'a> {
    /// The abstract `name` for sockets of type `ty` in this table, hashed once for the
    /// lookups of one connect or send ([`AbstractName::find`]).
    #[inline(always)]
    pub(crate) fn abstract_name(self, name: &'a [u8], ty: u16) -> AbstractName<'a> {
        let t = self.0.get();
        AbstractName {
            t,
            name,
            h: t.name_hash(name, ty),
        }
    }

    /// Locks one bucket.
    pub(crate) fn lock(self, b: Bucket) -> Locked<'a> {
        let t = self.0.get();
        Locked {
            t: self,
            lo: (b, t.lock_bucket(b, false)),
            hi: None,
        }
    }

    /// Locks two buckets, in ascending order (one if they are the same).
    pub(crate) fn lock2(self, a: Bucket, b: Bucket) -> Locked<'a> {
        let t = self.0.get();
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let lo_g = t.lock_bucket(lo, false);
        // The second lock is of the same class, taken in a fixed order: nested.
        let hi_g = (hi != lo).then(|| (hi, t.lock_bucket(hi, true)));
        Locked {
            t: self,
            lo: (lo, lo_g),
            hi: hi_g,
        }
    }

    /// Links a new socket into its unbound bucket (`unix_insert_unbound_socket`).
    // Inlined, as `names::insert_unbound`.
    #[inline(always)]
    pub(crate) fn insert_unbound(self, sk: &Sock) {
        let b = Bucket::unbound(sk);
        if let BucketGuard::Lower(mut g) = self.0.get().lock_bucket(b, false) {
            // Recorded before the link, under the bucket's lock, as `Locked::link`
            // does. A new socket is in no chain: this cannot fail.
            sk.set_hash(b.0);
            let _ = g.add(sk);
        }
    }

    /// Unlinks `sk` from the bucket it is in (its release), and frees its name in the
    /// autobind map if it has one of that form.
    pub(crate) fn remove(self, sk: &Sock) {
        let b = Bucket::of(sk);
        if b.is_abstract() {
            // Its own bucket is locked: this cannot fail.
            let _ = self.lock(b).remove(sk);
            return;
        }
        // Unbound or a pathname: one chain of the lower half, no autobind name.
        if let BucketGuard::Lower(mut g) = self.0.get().lock_bucket(b, false) {
            g.del(sk);
        }
    }

    /// Queues the resize work item on the module's queue (unless queued already).
    fn queue_resize(self) {
        // The count is not zero: the netns holds a reference until its exit, which
        // cannot come while the caller's socket pins the netns.
        let this = self.0.to_arc();
        if let Some(q) = workqueue::queue() {
            // Already queued: the queue holds a reference, this one goes.
            let _ = q.enqueue(this);
        }
    }
}

impl WorkItem for NetTable {
    type Pointer = Arc<NetTable>;

    fn run(t: Arc<NetTable>) {
        if resize::resize_once(t.abstract_half()) {
            if let Some(q) = workqueue::queue() {
                // The reference of this run goes to the next one (back to this run if
                // the netns's exit disabled the work item: then dropped).
                let _ = q.enqueue(t);
            }
        }
    }
}

/// A held bucket lock of a netns table.
enum BucketGuard<'a> {
    /// A bucket of the lower half.
    Lower(ChainGuard<'a>),
    /// An abstract stripe.
    Stripe(StripeGuard<'a, STRIPES>),
}

/// One or two buckets of a netns table, locked.
///
/// # Invariants
///
/// `lo` and `hi` hold the locks of the buckets they name, of `t`.
pub(crate) struct Locked<'a> {
    t: TableRef<'a>,
    // Dropped (unlocked) first: the reverse of the locking order.
    hi: Option<(Bucket, BucketGuard<'a>)>,
    lo: (Bucket, BucketGuard<'a>),
}

impl<'a> Locked<'a> {
    /// The guard of bucket `b`, if it is one of the locked ones.
    fn guard(&self, b: Bucket) -> Option<&BucketGuard<'a>> {
        if self.lo.0 == b {
            return Some(&self.lo.1);
        }
        self.hi.as_ref().filter(|(hb, _)| *hb == b).map(|(_, g)| g)
    }

    /// As [`Locked::guard`], to write the chains.
    fn guard_mut(&mut self, b: Bucket) -> Option<&mut BucketGuard<'a>> {
        if self.lo.0 == b {
            return Some(&mut self.lo.1);
        }
        self.hi.as_mut().filter(|(hb, _)| *hb == b).map(|(_, g)| g)
    }

    /// Whether a socket can be linked into `b` (locked): in the lower half without a
    /// name hash, or in the chain of `h` (whose bucket `b` is) in the upper one.
    fn fits(&self, b: Bucket, h: Option<NameHash>) -> bool {
        match (self.guard(b), h) {
            (Some(BucketGuard::Lower(_)), None) => true,
            (Some(BucketGuard::Stripe(_)), Some(h)) => Bucket::abstract_name(h) == b,
            _ => false,
        }
    }

    /// The socket bound to the abstract `name` of hash `h` (its bucket must be locked).
    pub(crate) fn find_name(&self, h: NameHash, name: &[u8]) -> Option<&Sock> {
        match self.guard(Bucket::abstract_name(h))? {
            BucketGuard::Stripe(g) => g.find_name(h.0, name),
            BucketGuard::Lower(_) => None,
        }
    }

    /// Links `sk`, in no table, into `b`: in the lower half, or the chain of `h` (whose
    /// bucket `b` is) in the upper one. `b` must be locked.
    fn link(&mut self, sk: &Sock, b: Bucket, h: Option<NameHash>) -> Result {
        let abs = b.is_abstract();
        match (self.guard_mut(b), h) {
            (Some(BucketGuard::Lower(g)), None) if !abs => {
                sk.set_hash(b.0);
                g.add(sk)?;
            }
            (Some(BucketGuard::Stripe(g)), Some(h)) if abs && Bucket::abstract_name(h) == b => {
                sk.set_name_hash(h.0);
                sk.set_hash(b.0);
                g.add(h.0, sk)?;
            }
            _ => return Err(EINVAL),
        }
        if abs && self.t.b.abs.linked() {
            self.t.queue_resize();
        }
        Ok(())
    }

    /// Unlinks `sk` from its chain, whose bucket is locked; false if it was not linked.
    fn unlink(&mut self, sk: &Sock) -> bool {
        let b = Bucket::of(sk);
        // `sk`'s bucket is its chain's (the one of its name hash in its stripe); the
        // table's reference is dropped, the caller holds another.
        let unlinked = match self.guard_mut(b) {
            None => return false,
            Some(BucketGuard::Lower(g)) => g.del(sk),
            Some(BucketGuard::Stripe(g)) => g.del(sk),
        };
        if !unlinked {
            return false;
        }
        if b.is_abstract() && self.t.b.abs.unlinked() {
            self.t.queue_resize();
        }
        true
    }

    /// Records the autobind name `num` of socket type `ty`, whose hash is `h` (its bucket
    /// must be locked), as taken: bound now, or found bound by someone else.
    pub(crate) fn autobind_taken(&mut self, h: NameHash, ty: u16, num: u32) {
        if self.guard(Bucket::abstract_name(h)).is_some() {
            if let Some(m) = self.t.autobind_map(ty) {
                m.assign(num as usize, true);
            }
        }
    }

    /// Unlinks `sk` from its bucket (which must be locked); frees its name in the
    /// autobind map if it has one of that form.
    pub(crate) fn remove(&mut self, sk: &Sock) -> Result {
        let b = Bucket::of(sk);
        if self.guard(b).is_none() {
            return Err(EINVAL);
        }
        if self.unlink(sk) && b.is_abstract() {
            if let Some(num) = sk.addr_ref().and_then(Address::autobind_num) {
                if let Some(m) = self.t.autobind_map(sk.sk_type()) {
                    m.assign(num as usize, false);
                }
            }
        }
        Ok(())
    }

    /// Binds `sk`: publishes `addr` and moves the socket to bucket `new` (with the
    /// name hash `h` of an abstract name). Both its old bucket and `new` must be locked,
    /// and the caller holds `sk`'s bind lock, under which it saw `sk` unbound.
    pub(crate) fn rehash(
        &mut self,
        sk: &Sock,
        addr: ARef<UnixAddress>,
        new: Bucket,
        h: Option<NameHash>,
    ) -> Result {
        if self.guard(Bucket::of(sk)).is_none() || !self.fits(new, h) {
            return Err(EINVAL);
        }
        // The table's reference goes and comes back.
        self.unlink(sk);
        sk.publish_addr(addr);
        self.link(sk, new, h)
    }
}

/// The global pathname table, keyed by inode ([`keys::inode_key`]), linked by `sk_bind_node`: a
/// socket is in it from its pathname bind to its release, with a reference. Its chains
/// resize as the abstract half's do.
#[pin_data]
pub(crate) struct BsdTable {
    #[pin]
    s: Striped,
    /// The resize work item ([`crate::resize`]).
    #[pin]
    resize: Work<BsdTable>,
}

kernel::impl_has_work! {
    impl HasWork<BsdTable> for BsdTable { self.resize }
}

/// The module's global pathname table, published while the family is registered:
/// from before the pernet operations are registered until after every socket and netns
/// is gone (withdrawn at unload), and its users work on a socket or in a netns's init.
pub(crate) static BSD: Published<BsdTable> = Published::new();

impl BsdTable {
    /// The empty table, with 256 chains, and a new key of the inode hash.
    pub(crate) fn new() -> Result<Arc<BsdTable>> {
        let chains = Chains::new(HASH_BITS, GFP_KERNEL)?;
        keys::new_inode_key();
        let init = pin_init!(BsdTable {
            s <- Striped::new(chains, Link::BindNode, BSD_LOCK),
            resize <- kernel::new_work!("rust_afunix:bsd_resize"),
        });
        Arc::pin_init(init, GFP_KERNEL)
    }

    /// Publishes `t` as the module's table ([`BSD`]) until the returned value drops (at
    /// unload).
    pub(crate) fn publish(t: Arc<BsdTable>) -> Publication<BsdTable> {
        BSD.publish_for_module(t)
    }

    /// The module's table.
    fn get() -> Option<&'static BsdTable> {
        BSD.get()
    }

    /// Whether this is the published table (a resize of a withdrawn one does nothing).
    fn is_published(&self) -> bool {
        BSD.is(self)
    }

    /// Queues a resize of the published table on the module's queue (unless queued
    /// already).
    fn queue_resize() {
        let Some(this) = BSD.get_arc() else {
            return;
        };
        if let Some(q) = workqueue::queue() {
            // Already queued: the queue holds a reference, this one goes.
            let _ = q.enqueue(this);
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
        if resize::resize_once(&t.s) {
            if let Some(q) = workqueue::queue() {
                // The reference of this run goes to the next one.
                let _ = q.enqueue(t);
            }
        }
    }
}

/// The global table's number of chains (the read-only sysctl `pathname_buckets`), or
/// `None` before load.
pub(crate) fn bsd_buckets() -> Option<&'static AtomicI32> {
    BsdTable::get().map(|t| &t.s.size)
}

/// Links a newly bound pathname socket (its inode recorded) into the global table
/// (`unix_insert_bsd_socket`).
pub(crate) fn bsd_insert(sk: &Sock) {
    let (Some(key), Some(t)) = (sk.inode_key(), BsdTable::get()) else {
        return;
    };
    let mut g = t.s.lock(key, false);
    // `sk` is live and in no chain of the global table (bound once), with its inode and
    // key set.
    if g.add(key, sk).is_err() {
        return;
    }
    let grow = t.s.linked();
    drop(g);
    if grow {
        BsdTable::queue_resize();
    }
}

/// Unlinks a pathname socket from the global table, if linked.
pub(crate) fn bsd_remove(sk: &Sock) {
    let (Some(key), Some(t)) = (sk.inode_key(), BsdTable::get()) else {
        return;
    };
    let mut g = t.s.lock(key, false);
    // `sk` is in a chain of this stripe (keyed by its inode), if anywhere. Unlinked with
    // `hlist_del_init_rcu`: a lock-free walker on it goes on.
    let linked = g.del(sk);
    let shrink = linked && t.s.unlinked();
    drop(g);
    if shrink {
        BsdTable::queue_resize();
    }
}

/// The socket bound to the inode `inode`, with a reference: AF_UNIX's
/// `unix_find_socket_byinode`, without its lock (under RCU, as
/// [`NetTable::find_abstract`]).
pub(crate) fn find_by_inode(inode: *mut Inode) -> Option<ARef<Sock>> {
    let t = BsdTable::get()?;
    t.s.s.find_inode(keys::inode_key(inode), inode)
}

/// Iteration over a netns table for `/proc/net/rust_afunix` and sock_diag dumps, as
/// AF_UNIX's `unix_seq_*`: the position holds a bucket and a 1-based offset in it, and
/// the bucket of the socket being shown stays locked from one callback to the next
/// (a [`Cursor`] holds its lock).
pub(crate) mod seq {
    use super::*;

    const BUCKET_SPACE: u32 = 64 - (HASH_BITS + 1) - 1;

    fn bucket(pos: i64) -> u64 {
        (pos as u64) >> BUCKET_SPACE
    }

    fn offset(pos: i64) -> u64 {
        (pos as u64) & ((1 << BUCKET_SPACE) - 1)
    }

    fn position(bucket: u64, offset: u64) -> i64 {
        ((bucket << BUCKET_SPACE) | offset) as i64
    }

    /// A walk of one locked bucket, at a socket.
    enum BucketWalk<'a> {
        Lower(Walk<ChainGuard<'a>>),
        Stripe(Walk<StripeGuard<'a, STRIPES>>),
    }

    impl<'a> BucketWalk<'a> {
        /// The first socket of bucket `b`, which is left locked; `None` (unlocked) if it
        /// has none.
        fn first(t: &'a NetTable, b: Bucket) -> Option<BucketWalk<'a>> {
            match t.lock_bucket(b, false) {
                BucketGuard::Lower(g) => Walk::first(g).map(BucketWalk::Lower),
                BucketGuard::Stripe(g) => Walk::first(g).map(BucketWalk::Stripe),
            }
        }

        /// The socket after this one in the bucket; `None` (unlocked) at its end.
        fn next(self) -> Option<BucketWalk<'a>> {
            match self {
                BucketWalk::Lower(w) => w.next().map(BucketWalk::Lower),
                BucketWalk::Stripe(w) => w.next().map(BucketWalk::Stripe),
            }
        }

        fn sock(&self) -> &Sock {
            match self {
                BucketWalk::Lower(w) => w.sock(),
                BucketWalk::Stripe(w) => w.sock(),
            }
        }
    }

    /// A socket of the walk; its bucket stays locked until the cursor goes.
    pub(crate) struct Cursor<'a> {
        t: &'a NetTable,
        walk: BucketWalk<'a>,
    }

    impl Cursor<'_> {
        /// The socket.
        pub(crate) fn sock(&self) -> &Sock {
            self.walk.sock()
        }
    }

    /// The `offset`-th socket of bucket `b` (locked), or `None` (unlocked).
    fn from_bucket(t: &NetTable, b: Bucket, offset: u64) -> Option<BucketWalk<'_>> {
        if offset == 0 {
            return None;
        }
        let mut w = BucketWalk::first(t, b)?;
        for _ in 1..offset {
            w = w.next()?;
        }
        Some(w)
    }

    /// The socket at `pos`, or the first after it (`pos` moves there); its bucket is
    /// left locked.
    pub(crate) fn first<'a>(t: &'a NetTable, pos: &mut i64) -> Option<Cursor<'a>> {
        let mut n = bucket(*pos);
        while let Some(b) = Bucket::nth(n) {
            if let Some(walk) = from_bucket(t, b, offset(*pos)) {
                return Some(Cursor { t, walk });
            }
            n += 1;
            *pos = position(n, 1);
        }
        None
    }

    /// The socket after `cur` (whose bucket is unlocked when it is left), `pos` already
    /// advanced by one.
    pub(crate) fn next<'a>(cur: Cursor<'a>, pos: &mut i64) -> Option<Cursor<'a>> {
        let n = bucket(*pos);
        let t = cur.t;
        if let Some(walk) = cur.walk.next() {
            return Some(Cursor { t, walk });
        }
        *pos = position(n + 1, 1);
        first(t, pos)
    }
}
