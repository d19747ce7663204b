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
//! `2^ABS_MAX_BITS` chains, and the name hash is keyed per table (hsiphash), so names
//! chosen to collide in one namespace do not collide in another.
//!
//! Pathname sockets are also in one global table keyed by inode ("af_unix: Put
//! pathname sockets in the global hash table"), so that a socket file reaches its
//! socket from every netns that can resolve it. Past AF_UNIX, it resizes as the
//! abstract half does (both are a [`Striped`] table), keyed by a hash of the inode.
//!
//! The tables are Rust data: [`NetTable`] per netns, [`BsdTable`] for the module. Each
//! chain is a C `hlist_head` of `struct sock` (linked by `sk_node`, or `sk_bind_node`
//! in the global table), written only through the guard of the lock that protects
//! it. The list operations are the `unsafe` of this file. Nothing here allocates under
//! a lock: callers allocate before locking.
//!
//! Past AF_UNIX, the lookups of connect and sendto take no lock (but while a resize
//! moves the stripe's sockets: then the stripe lock)
//! ([`NetTable::find_abstract`], [`find_by_inode`]): they walk a chain under
//! `rcu_read_lock()` and take a reference with `refcount_inc_not_zero`. That holds
//! because every link and unlink is an `_rcu` list operation (an unlinked node keeps its
//! `next`, so a walker on it goes on), and a socket of this family is freed a grace
//! period after its last reference goes (`SOCK_RCU_FREE`, set at creation), with its
//! address. A bound socket's name and inode never change and a socket leaves the
//! tables only at release, so a socket found with the name is the one bound to it (or,
//! if it is being released, one the caller sees dead, as after a locked lookup). A
//! resize moves sockets between chains under each stripe's lock, which a walker can
//! follow into the wrong chain: each stripe has a sequence count, odd while its
//! sockets move, and a walk that found nothing while it changed is made again. Binds
//! still check and insert under the stripe lock, so two binds of one name cannot both
//! succeed.

use crate::addr::{Address, UnixAddress};
use crate::autobind::AutobindMap;
use crate::bindings;
use crate::sock::{cond_resched, Sock};
use crate::sync::{Guard, OnceBox, RcuReadGuard, SpinLock};
use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{fence, AtomicBool, AtomicI32, AtomicPtr, AtomicU32, Ordering};
use kernel::alloc::{flags, KVBox, KVVec};
use kernel::error::{code::EINVAL, Result};
use kernel::init::{init_array_from_fn, pin_init_array_from_fn};
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow};
use kernel::types::{ARef, Opaque};
use kernel::workqueue::Work;

/// log2 of the buckets in each half of a netns table, and of the lock stripes (and the
/// fewest chains) of a striped table.
pub(crate) const HASH_BITS: u32 = 8;
/// Buckets in each half of a netns table; lock stripes of a striped table.
pub(crate) const HASH_SIZE: u32 = 1 << HASH_BITS;
const HASH_MOD: u32 = HASH_SIZE - 1;
/// A striped table (the abstract half, the global pathname table) has at most
/// `2^ABS_MAX_BITS` chains (8 MiB of heads).
pub(crate) const ABS_MAX_BITS: u32 = 20;

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
    pub(crate) fn table(&self) -> &NetTable {
        // SAFETY: A live socket's netns is alive (the socket holds a reference), and
        // the module's pernet init gave every netns a table while the module is loaded.
        unsafe { crate::netns::table_of(bindings::afunix_sock_net(self.as_ptr())) }
    }
}

/// The full hash of an abstract name (`sun_path` bytes) and a socket type, in one table.
///
/// Its low bits choose the stripe and the chain; all of it is kept in each bound socket
/// and compared before the name, so a lookup reads the name of (almost) only the socket
/// it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameHash(u32);

/// A chain: a C `hlist_head` of sockets.
///
/// # Invariants
///
/// The list holds live sockets of this family, each with a reference owned by the
/// table (except in [`BsdTable`], whose sockets are also in a netns table). It is only
/// written under the lock that protects the chain, with the `_rcu` list operations, and
/// read under that lock or under `rcu_read_lock()`: a socket unlinked from it stays
/// allocated until a grace period after its last reference goes (`SOCK_RCU_FREE`).
#[repr(transparent)]
pub(crate) struct Chain(Opaque<bindings::hlist_head>);

// SAFETY: A chain is used under its lock from any thread (type invariant).
unsafe impl Send for Chain {}
// SAFETY: Shared without the lock only by RCU walkers, which read the list the lock
// holder writes with the `_rcu` operations (type invariant).
unsafe impl Sync for Chain {}

impl Chain {
    fn new() -> Chain {
        // INVARIANT: Empty.
        Chain(Opaque::new(bindings::hlist_head {
            first: ptr::null_mut(),
        }))
    }

    fn as_ptr(&self) -> *mut bindings::hlist_head {
        self.0.get()
    }

    /// The first node, or NULL (the caller holds the chain's lock or the RCU read lock).
    fn first(&self) -> *mut bindings::hlist_node {
        // SAFETY: The head is initialised; a concurrent writer stores it with
        // `rcu_assign_pointer`, so it is read once (`READ_ONCE`, `rcu_dereference`).
        unsafe { ptr::addr_of!((*self.as_ptr()).first).read_volatile() }
    }

    /// Links `sk` by `sk_node`; the chain takes a reference (`sk_add_node_rcu`).
    ///
    /// # Safety
    ///
    /// The chain's lock is held; `sk` is in no chain of a netns table.
    unsafe fn add(&self, sk: &Sock) {
        // SAFETY: Valid by the safety requirements.
        unsafe { bindings::afunix_sk_add_node_rcu(sk.as_ptr(), self.as_ptr()) };
    }

    /// Unlinks `sk`'s `sk_node` and drops the chain's reference; false if it was not
    /// linked (`sk_del_node_init`, with `hlist_del_init_rcu`: the node keeps its `next`
    /// for walkers on it).
    ///
    /// # Safety
    ///
    /// The lock of `sk`'s chain is held, and the caller holds a reference of its own.
    unsafe fn del(sk: &Sock) -> bool {
        let node = sk_node(sk);
        // SAFETY: The node of a live socket; its chain is locked (safety requirements).
        if unsafe { (*node).pprev.is_null() } {
            return false;
        }
        // SAFETY: Linked in a locked chain; the chain's reference is not the last one.
        unsafe {
            bindings::afunix_hlist_del_init_rcu(node);
            bindings::afunix___sock_put(sk.as_ptr());
        }
        true
    }

    /// Moves `sk` (linked by the node at `offset` in a chain whose lock is held) to this
    /// chain, with the reference the table holds, if it holds one.
    ///
    /// # Safety
    ///
    /// This chain's lock and that of `sk`'s chain are held; `offset` is `SK_NODE` or
    /// `SK_BIND_NODE`, the node that links `sk` there.
    unsafe fn move_in(&self, sk: &Sock, offset: usize) {
        // SAFETY: A node of the live `struct sock` (safety requirements).
        let node: *mut bindings::hlist_node = unsafe { sk.as_ptr().byte_add(offset).cast() };
        // SAFETY: `sk` is linked in a locked chain; its node moves to this locked one.
        // A walker on the node follows it into this chain (the stripe's sequence count
        // makes it walk again: `Striped::rehash`).
        unsafe {
            bindings::afunix_hlist_del_rcu(node);
            bindings::afunix_hlist_add_head_rcu(node, self.as_ptr());
        }
    }

    /// The sockets of the chain, linked through the node at `offset` of `struct sock`
    /// (the caller holds the chain's lock).
    fn iter(&self, offset: usize) -> ChainIter<'_> {
        // INVARIANT: The chain is locked for the borrow of `self` (type invariant).
        ChainIter {
            node: self.first(),
            offset,
            _chain: core::marker::PhantomData,
        }
    }

    /// The sockets of the chain, walked under the RCU read lock `_rcu`: some may be
    /// unlinked meanwhile, or dying.
    fn iter_rcu<'a>(
        &'a self,
        _rcu: &'a RcuReadGuard,
        offset: usize,
    ) -> impl Iterator<Item = RcuSock<'a>> {
        // INVARIANT: Nodes reached under `_rcu` stay allocated while it is held.
        ChainIter {
            node: self.first(),
            offset,
            _chain: core::marker::PhantomData,
        }
        .map(RcuSock)
    }
}

/// A socket reached under RCU ([`Chain::iter_rcu`]): allocated while the read lock is
/// held, but maybe unlinked, or dying (its count at zero, which the `&Sock` inside
/// does not promise: it never leaves this wrapper). Only what a socket keeps from its
/// link to its free is read; a reference is taken with [`RcuSock::get`].
#[derive(Clone, Copy)]
struct RcuSock<'a>(&'a Sock);

impl<'a> RcuSock<'a> {
    /// The full hash of its abstract name (set before it was linked).
    fn name_hash(self) -> u32 {
        self.0.key()
    }

    /// Its bound name (published before it was linked, freed with the socket).
    fn name(self) -> Option<&'a [u8]> {
        self.0.addr_ref().map(Address::name)
    }

    /// Its socket inode (set before it was linked), only compared.
    fn inode_ptr(self) -> *mut bindings::inode {
        self.0.inode_ptr()
    }

    /// A reference, unless its last one is gone (`refcount_inc_not_zero`).
    fn get(self) -> Option<ARef<Sock>> {
        self.0.try_get()
    }
}

/// The sockets of a chain, locked or under the RCU read lock.
///
/// # Invariants
///
/// `node` is NULL or a node, at `offset` in a `struct sock` of this family, of a chain
/// whose lock is held for `'a` (the socket is live), or reached under an RCU read lock
/// held for `'a` (the socket stays allocated, maybe unlinked or dying: such an
/// iterator is only used wrapped in [`RcuSock`], by [`Chain::iter_rcu`]).
struct ChainIter<'a> {
    node: *mut bindings::hlist_node,
    offset: usize,
    _chain: core::marker::PhantomData<&'a Chain>,
}

impl<'a> Iterator for ChainIter<'a> {
    type Item = &'a Sock;

    fn next(&mut self) -> Option<&'a Sock> {
        if self.node.is_null() {
            return None;
        }
        // SAFETY: `node` is at `offset` in a socket that stays allocated for `'a` (type
        // invariant): linked sockets of a locked chain are held by the table, and under
        // RCU a socket is freed only a grace period after it left the chain.
        let sk = unsafe { Sock::from_raw(self.node.byte_sub(self.offset).cast()) };
        // SAFETY: `node` is a list node of the chain, or was (unlinking keeps `next`);
        // a writer stores `next` concurrently (a word-sized store; a moved node's is
        // plain, as `hlist_add_head_rcu` does): read once.
        // INVARIANT: The next node of the chain, or NULL.
        self.node = unsafe { ptr::addr_of!((*self.node).next).read_volatile() };
        Some(sk)
    }
}

/// The offsets of `sk_node` and `sk_bind_node` in `struct sock`.
const SK_NODE: usize = bindings::AFUNIX_SK_NODE_OFFSET as usize;
const SK_BIND_NODE: usize = bindings::AFUNIX_SK_BIND_NODE_OFFSET as usize;

/// The `sk_node` of a socket.
fn sk_node(sk: &Sock) -> *mut bindings::hlist_node {
    // SAFETY: `sk_node` is at `SK_NODE` in the live `struct sock`.
    unsafe { sk.as_ptr().byte_add(SK_NODE).cast() }
}

/// The `sk_bind_node` of a socket.
fn sk_bind_node(sk: &Sock) -> *mut bindings::hlist_node {
    // SAFETY: `sk_bind_node` is at `SK_BIND_NODE` in the live `struct sock`.
    unsafe { sk.as_ptr().byte_add(SK_BIND_NODE).cast() }
}

/// The chains of a [`Striped`] table.
///
/// # Invariants
///
/// `heads.len() == 1 << bits`, `HASH_BITS <= bits <= ABS_MAX_BITS`; chain `i` is
/// protected by the lock of stripe `i % HASH_SIZE` of the table whose stripes hold
/// these chains.
pub(crate) struct Chains {
    bits: u32,
    heads: KVVec<Chain>,
}

// SAFETY: Each chain is written under its stripe's lock and read under it or under RCU
// (type invariants of `Chains` and `Chain`), from any thread; the array is freed on any
// thread, a grace period after lookups could last see it.
unsafe impl Sync for Chains {}
// SAFETY: As above.
unsafe impl Send for Chains {}

impl Chains {
    /// `2^bits` empty chains (from the slab or vmalloc: 8 MiB at `ABS_MAX_BITS`).
    fn new(bits: u32, gfp: kernel::alloc::Flags) -> Result<Arc<Chains>> {
        let bits = bits.clamp(HASH_BITS, ABS_MAX_BITS);
        let n = 1usize << bits;
        let mut heads = KVVec::with_capacity(n, gfp)?;
        for _ in 0..n {
            // Within the capacity: no allocation.
            heads.push(Chain::new(), gfp)?;
        }
        // INVARIANT: `n` heads, `bits` clamped.
        Ok(Arc::new(Chains { bits, heads }, gfp)?)
    }

    /// The chain of key `k` (a name hash or an inode key).
    fn head_of(&self, k: u32) -> &Chain {
        // Masked below `heads.len() == 1 << bits` (type invariant): in bounds.
        &self.heads[(k & ((1 << self.bits) - 1)) as usize]
    }
}

/// What the lock of stripe `s` of a [`Striped`] table protects: chains `i` of `chains` with
/// `i % HASH_SIZE == s`. All stripes point to the same chains, but while a resize
/// moves them one by one.
pub(crate) struct Stripe {
    chains: Arc<Chains>,
}

/// What lock-free lookups read of a stripe: its chains and its sequence count.
///
/// # Invariants
///
/// `chains` points to the array of the stripe's `chains` (written under the stripe's
/// lock); an array it pointed to is freed only a grace period after it was replaced.
/// `seq` is odd while the stripe's sockets move between chains (under its lock).
struct StripeRcu {
    seq: AtomicU32,
    chains: AtomicPtr<Chains>,
}

impl StripeRcu {
    /// The sequence count before a walk, or `None` while sockets move (odd): the
    /// caller then takes the stripe's lock instead of spinning (`read_seqbegin_or_lock`;
    /// a spin could starve the mover on PREEMPT_RT, where it holds a sleeping lock).
    fn read_begin(&self) -> Option<u32> {
        // Acquire: the walk's reads come after (`read_seqcount_begin`).
        let s = self.seq.load(Ordering::Acquire);
        (s & 1 == 0).then_some(s)
    }

    /// The stripe's chains, for a walk under `_rcu`.
    fn chains<'a>(&'a self, _rcu: &'a RcuReadGuard) -> &'a Chains {
        // SAFETY: The stripe's chains, freed only a grace period after they are replaced
        // (type invariant), and the read lock is held for `'a`.
        unsafe { &*self.chains.load(Ordering::Acquire) }
    }

    /// Whether sockets moved since `read_begin` gave `s` (`read_seqcount_retry`).
    fn read_retry(&self, s: u32) -> bool {
        // The walk's reads come before the second read of the count (`smp_rmb`).
        fence(Ordering::Acquire);
        self.seq.load(Ordering::Relaxed) != s
    }
}

/// What the chains of a [`Striped`] table are keyed by, and the node that links them.
/// The key of each socket is [`Sock::key`], set before it is linked.
#[derive(Clone, Copy)]
enum Key {
    /// The abstract half of a netns table: the name hash, linked by `sk_node`.
    Abstract,
    /// The global pathname table: the inode key ([`inode_key`]), by `sk_bind_node`.
    Inode,
}

impl Key {
    /// The node of `struct sock` that links sockets into these chains.
    fn offset(self) -> usize {
        match self {
            Key::Abstract => SK_NODE,
            Key::Inode => SK_BIND_NODE,
        }
    }
}

/// The key of a socket inode in the global pathname table: a hash of the inode's
/// address keyed per module load (hsiphash). AF_UNIX keys by `i_ino`, which every tmpfs
/// numbers from 1: sockets of equal inode numbers on many mounts (any user namespace
/// can make them) would share one chain that no resize splits.
pub(crate) fn inode_key(inode: *const bindings::inode) -> u32 {
    BsdTable::get().map_or(0, |t| t.inode_key(inode))
}

/// A random key for `hsiphash` (of a netns table's names, of the global table's inodes).
fn random_key() -> bindings::hsiphash_key_t {
    let mut key = bindings::hsiphash_key_t::default();
    // SAFETY: `key` is writable for its size.
    unsafe {
        bindings::get_random_bytes(
            ptr::addr_of_mut!(key).cast::<c_void>(),
            core::mem::size_of_val(&key),
        )
    };
    key
}

/// Chains over `HASH_SIZE` lock stripes, resized to about one socket each
/// ([`crate::resize`]), walked without the lock: the abstract half of each netns table
/// and the global pathname table.
///
/// Lock order: an abstract stripe lock may be taken inside the bucket lock of the lower
/// half of a netns table ([`NetTable::lock2`]: ascending, one class); `/proc` takes a
/// socket's state lock inside it, and a link or unlink the workqueue's lock (queueing a
/// resize). A pathname stripe lock is taken inside the socket's bind lock (a mutex) or
/// with no lock held, and nothing is taken inside it.
#[pin_data]
pub(crate) struct Striped {
    /// Stripe `s` protects chains `i` with `i % HASH_SIZE == s`.
    #[pin]
    stripes: [SpinLock<Stripe>; HASH_SIZE as usize],
    /// The stripes as lock-free lookups see them.
    rcu: [StripeRcu; HASH_SIZE as usize],
    /// What the chains are keyed by.
    key: Key,
    /// Sockets in the chains.
    n: AtomicI32,
    /// The number of chains; written by the resize only (the read-only sysctls
    /// `abstract_buckets` and `pathname_buckets` show it).
    size: AtomicI32,
}

impl Striped {
    /// Stripes over `chains` (its first size), keyed by `key`, of lock class `class`.
    fn new(
        chains: &Arc<Chains>,
        key: Key,
        class: unsafe extern "C" fn(*mut bindings::spinlock_t),
    ) -> impl PinInit<Striped> + '_ {
        let first: *mut Chains = ptr::from_ref::<Chains>(chains).cast_mut();
        pin_init!(Striped {
            stripes <- pin_init_array_from_fn(|_| {
                SpinLock::new(Stripe { chains: chains.clone() }, class)
            }),
            // INVARIANT: Each stripe's `chains`, count 0.
            rcu <- init_array_from_fn::<_, { HASH_SIZE as usize }, _, core::convert::Infallible>(|_| StripeRcu {
                seq: AtomicU32::new(0),
                chains: AtomicPtr::new(first),
            }),
            key,
            n: AtomicI32::new(0),
            size: AtomicI32::new(1 << chains.bits),
        })
    }

    /// Locks stripe `i` (masked below `HASH_SIZE`); `nested` if the caller holds a
    /// lock of the same class, lower.
    fn lock(&self, i: u32, nested: bool) -> Guard<'_, Stripe> {
        // Masked below `HASH_SIZE`, the array's length.
        let s = &self.stripes[(i & HASH_MOD) as usize];
        if nested {
            s.lock_nested()
        } else {
            s.lock()
        }
    }

    /// The socket that `walk` finds in the chain of `key`, with a reference: walked
    /// under RCU, or under the stripe lock while a resize moves the stripe's sockets.
    ///
    /// A walk that found nothing while the stripe's count changed (its sockets moved,
    /// maybe the one sought from under the walker) is made again. A walk that found its
    /// socket needs no retry: the socket has the key. A socket whose last reference is
    /// gone is leaving the table, as if it were not found.
    fn lookup<F>(&self, key: u32, walk: F) -> Option<ARef<Sock>>
    where
        F: for<'a> Fn(&'a Chain, &'a RcuReadGuard) -> Option<RcuSock<'a>>,
    {
        // Masked below `HASH_SIZE`, the array's length.
        let rcu = &self.rcu[(key & HASH_MOD) as usize];
        let guard = RcuReadGuard::new();
        loop {
            let Some(seq) = rcu.read_begin() else {
                // A resize is moving this stripe's sockets: walk under its lock (the
                // read lock stays held: the walk is the same).
                let g = self.lock(key, false);
                return walk(g.chains.head_of(key), &guard).and_then(RcuSock::get);
            };
            if let Some(sk) = walk(rcu.chains(&guard).head_of(key), &guard) {
                return sk.get();
            }
            if !rcu.read_retry(seq) {
                return None;
            }
        }
    }

    /// Counts a socket linked (under its stripe's lock); true if a resize is due.
    fn linked(&self) -> bool {
        let n = self.n.fetch_add(1, Ordering::SeqCst) + 1;
        // SeqCst, as the count's update: with the store and fence of `rehash`, either
        // the resize sees this count, or this sees its new size (the `smp_mb()` of
        // `atomic_inc_return()` in C).
        crate::resize::should_grow(n, self.size.load(Ordering::SeqCst))
    }

    /// Counts a socket unlinked (under its stripe's lock); true if a resize is due.
    fn unlinked(&self) -> bool {
        let n = self.n.fetch_sub(1, Ordering::SeqCst) - 1;
        // As in `linked`.
        crate::resize::should_shrink(n, self.size.load(Ordering::SeqCst))
    }

    /// The chains (`log2`) and the number of sockets in them.
    pub(crate) fn size(&self) -> (u32, i32) {
        let bits = self.size.load(Ordering::Relaxed).max(1).ilog2();
        (bits, self.n.load(Ordering::SeqCst))
    }

    /// Moves the sockets to `2^bits` chains, stripe by stripe; false if out of memory
    /// (the table keeps its size: lookups get slower, nothing fails). Only a resize work
    /// item (never run twice at once for one table) calls this.
    ///
    /// A lock-free lookup of stripe `s` reads `rcu[s]`: while the stripe's sockets move,
    /// its count is odd and the lookup takes the stripe lock; a lookup that walked
    /// while they moved (the count changed) walks again, in the new chains.
    pub(crate) fn rehash(&self, bits: u32) -> bool {
        let Ok(new) = Chains::new(bits, GFP_KERNEL | flags::__GFP_NOWARN) else {
            return false;
        };
        let offset = self.key.offset();
        let mut old = None;
        for (s, (stripe, rcu)) in self.stripes.iter().zip(&self.rcu).enumerate() {
            let mut g = stripe.lock();
            let from = core::mem::replace(&mut g.chains, new.clone());
            // Written under the stripe's lock only: odd from here (`write_seqcount_begin`),
            // before any node moves (the Release fence orders the store before them).
            let seq = rcu.seq.load(Ordering::Relaxed);
            rcu.seq.store(seq.wrapping_add(1), Ordering::Relaxed);
            fence(Ordering::Release);
            // Chains `s`, `s + HASH_SIZE`, ... of the old array are this stripe's.
            for head in from.heads.iter().skip(s).step_by(HASH_SIZE as usize) {
                // The stripe's lock is held, for the old chain and the new.
                while let Some(sk) = head.iter(offset).next() {
                    let to = new.head_of(sk.key());
                    // SAFETY: Both chains are of this stripe, whose lock is held; `sk` is
                    // linked by `offset` in the first.
                    unsafe { to.move_in(sk, offset) };
                }
            }
            // INVARIANT: The stripe's new chains, then even again, after the moves.
            rcu.chains
                .store(ptr::from_ref::<Chains>(&new).cast_mut(), Ordering::Release);
            rcu.seq.store(seq.wrapping_add(2), Ordering::Release);
            drop(g);
            // Every stripe held the same old array: one reference is kept.
            old = Some(from);
            cond_resched();
        }
        // Lookups may still walk the old array: it goes after a grace period.
        // SAFETY: Called from a resize work item, in process context, no lock held.
        unsafe { bindings::synchronize_rcu() };
        drop(old);
        self.size.store(1 << new.bits, Ordering::SeqCst);
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
    lower: [SpinLock<Chain>; HASH_SIZE as usize],
    /// Buckets `[HASH_SIZE, 2 * HASH_SIZE)`: the abstract stripes.
    #[pin]
    abs: Striped,
}

/// The name table of one network namespace, and the namespace's other state.
///
/// Handed to C as an opaque handle (`Arc::into_raw`, [`crate::netns`]), whose reference
/// goes at the netns's exit: every socket of the namespace pins the netns, so the table
/// outlives them. A queued resize holds a reference of its own.
#[pin_data]
pub(crate) struct NetTable {
    /// The bucket locks.
    b: Pin<KVBox<Buckets>>,
    /// The key of the name hash, random per table.
    seed: bindings::hsiphash_key_t,
    /// The resize work item ([`crate::resize`]).
    #[pin]
    pub(crate) resize: Work<NetTable>,
    /// Set at netns exit: the resize does not queue itself again.
    pub(crate) exiting: AtomicBool,
    /// Per socket type (STREAM, DGRAM, SEQPACKET), the autobind names known taken;
    /// allocated at the first autobind.
    autobind: [OnceBox<AutobindMap>; 3],
    /// `net.rust_afunix.max_dgram_qlen` (sysctl, as `net.unix.max_dgram_qlen`).
    max_dgram_qlen: AtomicI32,
    /// The sysctl entries of the netns ([`crate::netns`]), set once at netns init.
    pub(crate) sysctls: OnceBox<crate::netns::Sysctls>,
    /// Their registration, set once at netns init.
    pub(crate) sysctl: AtomicPtr<bindings::ctl_table_header>,
}

kernel::impl_has_work! {
    impl HasWork<NetTable> for NetTable { self.resize }
}

impl NetTable {
    /// A new, empty table with 256 abstract chains and a random hash key.
    pub(crate) fn new() -> Result<Arc<NetTable>> {
        let chains = Chains::new(HASH_BITS, GFP_KERNEL_ACCOUNT)?;
        let seed = random_key();
        // One lock class for the 512 bucket locks (two are taken nested, in order).
        let class = bindings::afunix_table_lock_init;
        let buckets = pin_init!(Buckets {
            lower <- pin_init_array_from_fn(|_| SpinLock::new(Chain::new(), class)),
            abs <- Striped::new(&chains, Key::Abstract, class),
        });
        let b = KVBox::pin_init(buckets, GFP_KERNEL_ACCOUNT)?;
        let init = pin_init!(NetTable {
            b,
            seed,
            resize <- kernel::new_work!("rust_afunix:resize"),
            exiting: AtomicBool::new(false),
            autobind: [OnceBox::new(), OnceBox::new(), OnceBox::new()],
            max_dgram_qlen: AtomicI32::new(10),
            sysctls: OnceBox::new(),
            sysctl: AtomicPtr::new(ptr::null_mut()),
        });
        Arc::pin_init(init, GFP_KERNEL_ACCOUNT)
    }

    /// `net.rust_afunix.max_dgram_qlen`.
    pub(crate) fn max_dgram_qlen(&self) -> u32 {
        // The sysctl keeps it in 0..=INT_MAX.
        self.max_dgram_qlen.load(Ordering::Relaxed).max(0) as u32
    }

    /// The sysctl data: `max_dgram_qlen` and `abstract_buckets` (the C `int`s the
    /// sysctl code reads and writes).
    pub(crate) fn sysctl_data(&self) -> (*mut i32, *mut i32) {
        (self.max_dgram_qlen.as_ptr(), self.b.abs.size.as_ptr())
    }

    /// The hash of an abstract name for a socket type: hsiphash keyed by this table,
    /// then the type, as AF_UNIX mixes it into its own.
    pub(crate) fn name_hash(&self, name: &[u8], ty: u16) -> NameHash {
        // SAFETY: `name` is `name.len()` readable bytes; `seed` is a key.
        let h = unsafe { bindings::afunix_hsiphash(name.as_ptr().cast(), name.len(), &self.seed) };
        NameHash(h ^ u32::from(ty))
    }

    /// The socket bound to the abstract `name` of hash `h`, with a reference: the
    /// lookup of connect and sendto, under RCU (under the stripe lock only while a
    /// resize moves the stripe's sockets).
    pub(crate) fn find_abstract(&self, h: NameHash, name: &[u8]) -> Option<ARef<Sock>> {
        self.b.abs.lookup(h.0, |chain, rcu| {
            rust_afunix_find_socket_byname_rcu(chain, rcu, h.0, name)
        })
    }

    /// The autobind map of socket type `ty`, if it has one.
    fn autobind_map(&self, ty: u16) -> Option<&AutobindMap> {
        self.autobind.get(AutobindMap::index(ty)?)?.get()
    }

    /// Makes sure the autobind map of socket type `ty` exists (allocates: may sleep).
    /// Without it (no memory), autobind looks every name up, as AF_UNIX does.
    pub(crate) fn autobind_prepare(&self, ty: u16) {
        if let Some(slot) = AutobindMap::index(ty).and_then(|i| self.autobind.get(i)) {
            let _ = slot.get_or_try_init(AutobindMap::new);
        }
    }

    /// The first autobind name number in `from..to` that the map of socket type `ty`
    /// does not know taken, or `to`. Read without locks: the table has the last word.
    pub(crate) fn autobind_next(&self, ty: u16, from: u32, to: u32) -> u32 {
        match self.autobind_map(ty) {
            Some(m) => m.next_free(from, to),
            None => from.min(to),
        }
    }

    /// Locks one bucket.
    pub(crate) fn lock(&self, b: Bucket) -> Locked<'_> {
        Locked {
            t: self,
            lo: (b, self.lock_bucket(b, false)),
            hi: None,
        }
    }

    /// Locks two buckets, in ascending order (one if they are the same).
    pub(crate) fn lock2(&self, a: Bucket, b: Bucket) -> Locked<'_> {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let lo_g = self.lock_bucket(lo, false);
        // The second lock is of the same class, taken in a fixed order: nested.
        let hi_g = (hi != lo).then(|| (hi, self.lock_bucket(hi, true)));
        Locked {
            t: self,
            lo: (lo, lo_g),
            hi: hi_g,
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

    /// Queues the resize work item on the module's queue (unless queued already).
    fn queue_resize(&self) {
        if self.exiting.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: Every `NetTable` lives in an `Arc` (`new`), and `self` is the pointer
        // `Arc::into_raw` gives for it. The count is not zero while `self` is borrowed:
        // the netns holds a reference until its exit, which cannot come while the
        // caller's socket pins the netns (or the running resize holds one).
        let this: Arc<NetTable> = unsafe { ArcBorrow::from_raw(self) }.into();
        if let Some(q) = crate::netns::queue() {
            // Already queued: the queue holds a reference, this one goes.
            let _ = q.enqueue(this);
        }
    }

    /// The abstract half, for its resize.
    pub(crate) fn abstract_half(&self) -> &Striped {
        &self.b.abs
    }
}

/// A held bucket lock of a netns table.
enum BucketGuard<'a> {
    /// A bucket of the lower half.
    Lower(Guard<'a, Chain>),
    /// An abstract stripe.
    Stripe(Guard<'a, Stripe>),
}

/// One or two buckets of a netns table, locked.
///
/// # Invariants
///
/// `lo` and `hi` hold the locks of the buckets they name, of `t`.
pub(crate) struct Locked<'a> {
    t: &'a NetTable,
    // Dropped (unlocked) first: the reverse of the locking order.
    hi: Option<(Bucket, BucketGuard<'a>)>,
    lo: (Bucket, BucketGuard<'a>),
}

impl Locked<'_> {
    /// The guard of bucket `b`, if it is one of the locked ones.
    fn guard(&self, b: Bucket) -> Option<&BucketGuard<'_>> {
        if self.lo.0 == b {
            return Some(&self.lo.1);
        }
        self.hi.as_ref().filter(|(hb, _)| *hb == b).map(|(_, g)| g)
    }

    /// The chain `b` (lower half) or `h` (abstract: its stripe is `b`) is in, if `b` is
    /// locked.
    fn chain_at(&self, b: Bucket, h: Option<NameHash>) -> Option<&Chain> {
        match (self.guard(b)?, h) {
            (BucketGuard::Lower(g), None) => Some(&**g),
            (BucketGuard::Stripe(g), Some(h)) if Bucket::abstract_name(h) == b => {
                Some(g.chains.head_of(h.0))
            }
            _ => None,
        }
    }

    /// The socket bound to the abstract `name` of hash `h` (its bucket must be locked).
    pub(crate) fn find_name(&self, h: NameHash, name: &[u8]) -> Option<&Sock> {
        let chain = self.chain_at(Bucket::abstract_name(h), Some(h))?;
        rust_afunix_find_socket_byname(chain, h.0, name)
    }

    /// Links an unbound socket into bucket `b` of the lower half (which must be locked).
    pub(crate) fn insert(&mut self, sk: &Sock, b: Bucket) -> Result {
        self.link(sk, b, None)
    }

    /// Links `sk`, in no table, into `b`: in the lower half, or the chain of `h` (whose
    /// bucket `b` is) in the upper one. `b` must be locked.
    fn link(&mut self, sk: &Sock, b: Bucket, h: Option<NameHash>) -> Result {
        if b.is_abstract() != h.is_some() {
            return Err(EINVAL);
        }
        let chain = self.chain_at(b, h).ok_or(EINVAL)?;
        if let Some(h) = h {
            sk.set_name_hash(h.0);
        }
        sk.set_hash(b.0);
        // SAFETY: `chain`'s lock is held (its guard is in `self`); `sk` is in no chain.
        unsafe { chain.add(sk) };
        if b.is_abstract() && self.t.b.abs.linked() {
            self.t.queue_resize();
        }
        Ok(())
    }

    /// Unlinks `sk` from its chain, whose bucket is locked; false if it was not linked.
    fn unlink(&mut self, sk: &Sock) -> bool {
        let b = Bucket::of(sk);
        if self.guard(b).is_none() {
            return false;
        }
        // SAFETY: `sk`'s bucket is locked, so is its chain (the one of its name hash in
        // its stripe); unlinking an unlinked socket does nothing. The table's reference
        // is dropped; the caller holds another.
        if !unsafe { Chain::del(sk) } {
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
                m.mark(num, true);
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
                    m.mark(num, false);
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
        if self.guard(Bucket::of(sk)).is_none() || self.chain_at(new, h).is_none() {
            return Err(EINVAL);
        }
        // The table's reference goes and comes back.
        self.unlink(sk);
        sk.publish_addr(addr);
        self.link(sk, new, h)
    }
}

/// Walks the chain of `h` for the abstract `name`: AF_UNIX's
/// `__unix_find_socket_byname`, with the full hash compared first.
///
/// A function of its own, never inlined, under a fixed symbol name, for kprobes
/// (`bpftrace`, `funclatency`). The caller holds the chain's stripe lock.
#[no_mangle]
#[inline(never)]
#[expect(
    improper_ctypes_definitions,
    reason = "called from Rust only; C ABI for kprobes"
)]
extern "C" fn rust_afunix_find_socket_byname<'a>(
    chain: &'a Chain,
    h: u32,
    name: &[u8],
) -> Option<&'a Sock> {
    // Every socket of the upper half is bound: its name hash is set.
    chain
        .iter(SK_NODE)
        .find(|s| s.key() == h && s.addr_ref().is_some_and(|a| a.name() == name))
}

/// The same walk for a lock-free lookup, under the RCU read lock `rcu`
/// ([`NetTable::find_abstract`]); the socket found may be dying.
#[no_mangle]
#[inline(never)]
#[expect(
    improper_ctypes_definitions,
    reason = "called from Rust only; C ABI for kprobes"
)]
extern "C" fn rust_afunix_find_socket_byname_rcu<'a>(
    chain: &'a Chain,
    rcu: &'a RcuReadGuard,
    h: u32,
    name: &[u8],
) -> Option<RcuSock<'a>> {
    // Every socket of the upper half is bound: its name hash and address are set before
    // it is linked (`rcu_assign_pointer` publishes them), and kept until it is freed.
    chain
        .iter_rcu(rcu, SK_NODE)
        .find(|s| s.name_hash() == h && s.name() == Some(name))
}

/// The global pathname table, keyed by inode ([`inode_key`]), linked by `sk_bind_node`: a
/// socket is in it from its pathname bind to its release. It does not hold references
/// (the socket's netns table does). Its chains resize as the abstract half's do.
#[pin_data]
pub(crate) struct BsdTable {
    #[pin]
    s: Striped,
    /// The key of the inode hash ([`inode_key`]), random per module load.
    seed: bindings::hsiphash_key_t,
    /// The resize work item ([`crate::resize`]).
    #[pin]
    pub(crate) resize: Work<BsdTable>,
}

kernel::impl_has_work! {
    impl HasWork<BsdTable> for BsdTable { self.resize }
}

/// The module's global pathname table, set while the family is registered.
static BSD: AtomicPtr<BsdTable> = AtomicPtr::new(ptr::null_mut());

impl BsdTable {
    /// The empty table, with 256 chains.
    pub(crate) fn new() -> Result<Arc<BsdTable>> {
        let chains = Chains::new(HASH_BITS, GFP_KERNEL)?;
        let seed = random_key();
        let init = pin_init!(BsdTable {
            s <- Striped::new(&chains, Key::Inode, bindings::afunix_bsd_lock_init),
            seed,
            resize <- kernel::new_work!("rust_afunix:bsd_resize"),
        });
        Arc::pin_init(init, GFP_KERNEL)
    }

    /// Publishes `t` as the module's table; the published reference goes back in
    /// [`BsdTable::withdraw`].
    pub(crate) fn publish(t: Arc<BsdTable>) {
        let old = BSD.swap(Arc::into_raw(t).cast_mut(), Ordering::AcqRel);
        if !old.is_null() {
            // SAFETY: A published pointer comes from `Arc::into_raw` (above), and the
            // reference it had is this swap's to drop; the module publishes one table,
            // once, so no socket uses the old one.
            drop(unsafe { Arc::from_raw(old) });
        }
    }

    /// Withdraws the published table and drops its reference.
    ///
    /// # Safety
    ///
    /// No socket of the family exists (a socket's callers use the table unlocked).
    pub(crate) unsafe fn withdraw() {
        let old = BSD.swap(ptr::null_mut(), Ordering::AcqRel);
        if !old.is_null() {
            // SAFETY: From `Arc::into_raw` in `publish`; no user is left (safety
            // requirements). A queued resize holds a reference of its own.
            drop(unsafe { Arc::from_raw(old) });
        }
    }

    /// The module's table: published from before the pernet operations are registered
    /// until after every socket and netns is gone, and callers work on a socket or in a
    /// netns's init.
    fn get() -> Option<&'static BsdTable> {
        // SAFETY: A published pointer is an `Arc::into_raw` whose reference is dropped
        // only at withdrawal, when no caller is left (above).
        unsafe { BSD.load(Ordering::Acquire).as_ref() }
    }

    /// Whether this is the published table (a resize of a withdrawn one does nothing).
    pub(crate) fn is_published(&self) -> bool {
        ptr::eq(BSD.load(Ordering::Acquire), self)
    }

    /// The key of `inode` in this table ([`inode_key`]).
    fn inode_key(&self, inode: *const bindings::inode) -> u32 {
        let addr = inode as usize;
        // SAFETY: `addr` is `size_of::<usize>()` readable bytes; `seed` is a key.
        unsafe {
            bindings::afunix_hsiphash(
                ptr::addr_of!(addr).cast(),
                core::mem::size_of::<usize>(),
                &self.seed,
            )
        }
    }

    /// The chains, for the resize.
    pub(crate) fn striped(&self) -> &Striped {
        &self.s
    }

    /// The number of chains (the C `int` the read-only sysctl `pathname_buckets` shows).
    pub(crate) fn size_ptr(&self) -> *mut i32 {
        self.s.size.as_ptr()
    }

    /// Queues a resize of the published table on the module's queue (unless queued
    /// already).
    fn queue_resize() {
        let p = BSD.load(Ordering::Acquire);
        if p.is_null() {
            return;
        }
        // SAFETY: A published pointer is an `Arc::into_raw` (`publish`) whose reference
        // stays until withdrawal, after the last socket (the callers work on one).
        let this: Arc<BsdTable> = unsafe { ArcBorrow::from_raw(p) }.into();
        if let Some(q) = crate::netns::queue() {
            // Already queued: the queue holds a reference, this one goes.
            let _ = q.enqueue(this);
        }
    }
}

/// The global table's chains (read-only sysctl `pathname_buckets`), or NULL before load.
pub(crate) fn bsd_size_ptr() -> *mut i32 {
    BsdTable::get().map_or(ptr::null_mut(), BsdTable::size_ptr)
}

/// Links a newly bound pathname socket (its inode recorded) into the global table
/// (`unix_insert_bsd_socket`).
pub(crate) fn bsd_insert(sk: &Sock) {
    let (Some(key), Some(t)) = (sk.inode_key(), BsdTable::get()) else {
        return;
    };
    let g = t.s.lock(key, false);
    // SAFETY: The chain's stripe is locked; `sk` is live and in no chain of the global
    // table (bound once), with its inode and key set.
    unsafe {
        bindings::afunix_hlist_add_head_rcu(sk_bind_node(sk), g.chains.head_of(key).as_ptr())
    };
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
    let g = t.s.lock(key, false);
    let node = sk_bind_node(sk);
    // SAFETY: `sk` is in a chain of this stripe (keyed by its inode), if anywhere, and
    // the stripe is locked. Unlinked with `hlist_del_init_rcu`: a lock-free walker on it
    // goes on.
    let linked = unsafe { !(*node).pprev.is_null() };
    if linked {
        // SAFETY: As above.
        unsafe { bindings::afunix_hlist_del_init_rcu(node) };
    }
    let shrink = linked && t.s.unlinked();
    drop(g);
    if shrink {
        BsdTable::queue_resize();
    }
}

/// The socket bound to the inode `inode` (number `ino`), with a reference:
/// AF_UNIX's `unix_find_socket_byinode`, without its lock (under RCU, as
/// [`NetTable::find_abstract`]).
pub(crate) fn find_by_inode(inode: *mut bindings::inode) -> Option<ARef<Sock>> {
    let t = BsdTable::get()?;
    t.s.lookup(t.inode_key(inode), |chain, rcu| {
        rust_afunix_find_socket_byinode(chain, rcu, inode)
    })
}

/// Walks a chain of the global table for the socket bound to `inode`, under the RCU
/// read lock `rcu`; the socket found may be dying. A kprobe target, as the abstract
/// lookup.
#[no_mangle]
#[inline(never)]
#[expect(
    improper_ctypes_definitions,
    reason = "called from Rust only; C ABI for kprobes"
)]
extern "C" fn rust_afunix_find_socket_byinode<'a>(
    chain: &'a Chain,
    rcu: &'a RcuReadGuard,
    inode: *mut bindings::inode,
) -> Option<RcuSock<'a>> {
    // A socket's inode is set before it is linked and kept until it is freed.
    chain
        .iter_rcu(rcu, SK_BIND_NODE)
        .find(|s| ptr::eq(s.inode_ptr(), inode))
}

/// Iteration over a netns table for `/proc/net/rust_afunix`, as AF_UNIX's
/// `unix_seq_*`: the seq_file position holds a bucket and a 1-based offset in it, and the
/// bucket of the socket being shown stays locked from one callback to the next.
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

    impl NetTable {
        /// Locks bucket `b` past the guard (unlocked by [`NetTable::seq_unlock`]).
        fn seq_lock(&self, b: Bucket) {
            match self.lock_bucket(b, false) {
                BucketGuard::Lower(g) => g.leak(),
                BucketGuard::Stripe(g) => g.leak(),
            }
        }

        /// Unlocks bucket `b`, locked by [`NetTable::seq_lock`].
        ///
        /// # Safety
        ///
        /// `b` is locked by `seq_lock` in this thread.
        unsafe fn seq_unlock(&self, b: Bucket) {
            let i = (b.0 & HASH_MOD) as usize;
            // SAFETY: Held by a leaked guard (safety requirements).
            unsafe {
                if b.is_abstract() {
                    self.b.abs.stripes[i].force_unlock();
                } else {
                    self.b.lower[i].force_unlock();
                }
            }
        }

        /// The socket after `sk` in bucket `b` (the first one if `sk` is `None`).
        ///
        /// # Safety
        ///
        /// `b` is locked by `seq_lock` in this thread, for `'a`; `sk` is in it.
        unsafe fn seq_next<'a>(&'a self, b: Bucket, sk: Option<&Sock>) -> Option<&'a Sock> {
            let i = (b.0 & HASH_MOD) as usize;
            if !b.is_abstract() {
                // SAFETY: Bucket `b` is locked, for `'a` (safety requirements).
                let chain = unsafe { self.b.lower[i].leaked_data() };
                return match sk {
                    None => chain.iter(SK_NODE).next(),
                    // SAFETY: `sk` is in the locked chain.
                    Some(sk) => unsafe { sock_after(sk) },
                };
            }
            // SAFETY: Stripe `i` is locked, for `'a` (safety requirements).
            let chains = unsafe { &self.b.abs.stripes[i].leaked_data().chains };
            let first = match sk {
                // SAFETY: `sk` is in a chain of the locked stripe.
                Some(sk) => match unsafe { sock_after(sk) } {
                    Some(next) => return Some(next),
                    None => (sk.key() & ((1 << chains.bits) - 1)) as usize + HASH_SIZE as usize,
                },
                None => i,
            };
            chains
                .heads
                .iter()
                .skip(first)
                .step_by(HASH_SIZE as usize)
                .find_map(|c| c.iter(SK_NODE).next())
        }
    }

    /// The socket after `sk` in its chain.
    ///
    /// # Safety
    ///
    /// `sk` is linked by `sk_node` in a chain whose lock is held for `'a`.
    unsafe fn sock_after<'a>(sk: &Sock) -> Option<&'a Sock> {
        // SAFETY: `sk` is linked in a locked chain (safety requirements).
        let next = unsafe { (*sk_node(sk)).next };
        // INVARIANT: The next node of a locked chain, at `SK_NODE` in a live socket.
        ChainIter {
            node: next,
            offset: SK_NODE,
            _chain: core::marker::PhantomData,
        }
        .next()
    }

    /// The `offset`-th socket of bucket `b` (locked), or `None`.
    ///
    /// # Safety
    ///
    /// `b` is locked by `seq_lock` in this thread, for `'a`.
    unsafe fn from_bucket<'a>(t: &'a NetTable, b: Bucket, offset: u64) -> Option<&'a Sock> {
        let mut sk = None;
        for _ in 0..offset {
            // SAFETY: `b` is locked; `sk` is `None` or a socket in it.
            sk = Some(unsafe { t.seq_next(b, sk) }?);
        }
        sk
    }

    /// The socket at `pos`, or the first after it; its bucket is left locked.
    pub(crate) fn first<'a>(t: &'a NetTable, pos: &mut i64) -> Option<&'a Sock> {
        let mut n = bucket(*pos);
        while let Some(b) = Bucket::nth(n) {
            t.seq_lock(b);
            // SAFETY: Bucket `b` was just locked.
            if let Some(sk) = unsafe { from_bucket(t, b, offset(*pos)) } {
                return Some(sk);
            }
            // SAFETY: Locked above.
            unsafe { t.seq_unlock(b) };
            n += 1;
            *pos = position(n, 1);
        }
        None
    }

    /// The socket after `sk` (whose bucket is locked, and is unlocked when it is left).
    ///
    /// # Safety
    ///
    /// `sk` came from [`first`] or [`next`] with `pos`, and its bucket is still locked.
    pub(crate) unsafe fn next<'a>(t: &'a NetTable, sk: &Sock, pos: &mut i64) -> Option<&'a Sock> {
        let n = bucket(*pos);
        let b = Bucket::of(sk);
        // SAFETY: `sk` is linked in bucket `b`, locked since `first`.
        if let Some(next) = unsafe { t.seq_next(b, Some(sk)) } {
            return Some(next);
        }
        // SAFETY: Bucket `b` was locked by `first`.
        unsafe { t.seq_unlock(b) };
        *pos = position(n + 1, 1);
        first(t, pos)
    }

    /// Ends an iteration: unlocks the bucket of `sk`, if any.
    ///
    /// # Safety
    ///
    /// `sk` is `None` or came from [`first`]/[`next`], its bucket still locked.
    pub(crate) unsafe fn stop(t: &NetTable, sk: Option<&Sock>) {
        if let Some(sk) = sk {
            // SAFETY: That bucket is locked (safety requirements).
            unsafe { t.seq_unlock(Bucket::of(sk)) };
        }
    }
}
