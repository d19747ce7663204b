// SPDX-License-Identifier: GPL-2.0

//! Chains of sockets for the name tables: C `hlist_head`s of `struct sock`, linked by
//! `sk_node` or `sk_bind_node`, and the lock-free lookups and the resize over them.
//!
//! A chain is written only through the guard of the lock that protects it, with the
//! `_rcu` list operations, and read under that lock or under `rcu_read_lock()`. A socket
//! linked into a [`Stripes`] chain (the ones walked under RCU) is freed a grace period
//! after its last reference goes (`SOCK_RCU_FREE`, which [`StripeGuard::add`] makes sure
//! its release keeps: [`Sock::mark_rcu_linked`]), so a walker under RCU reaches only
//! allocated sockets, maybe unlinked or dying ([`RcuSock`]).
//!
//! Two shapes: a [`ChainLock`] (one chain and its lock: the lower half of a netns table),
//! and [`Stripes`] (`N` lock stripes over `2^bits` [`Chains`], chain `i` under stripe
//! `i % N`: the abstract half and the global pathname table). A lookup of a stripe's
//! chains takes no lock ([`Stripes::find_name`], [`Stripes::find_inode`]); a resize
//! moves the sockets to a new array ([`Stripes::rehash`]), stripe by stripe, with a
//! sequence count per stripe, odd while its sockets move, so that a walk that ran while
//! they moved is made again. A [`Walk`] keeps a chain's lock from one step to the next
//! (the `/proc` and sock_diag dumps).
//!
//! The walks of names and inodes are functions of their own under fixed symbol names,
//! never inlined, for kprobes (`bpftrace`, `funclatency`). 7.3's `kernel::tracepoint`:
//! not used: `declare_trace!` binds only events in the kernel crate's own bindings.
//!
//! `kernel::list` (both lines): not used: its items are `ListArc`s, where a socket is
//! `sk_alloc`'d, counted by `sk_refcnt` and linked by its C `hlist_node`s, walked under RCU.
//! 7.3's `kernel::xarray`: not used: it reads only under `xa_lock` (no RCU lookup), and
//! `kernel::rbtree` (both lines; gc.rs's per-user counts use it) has no RCU lookup either.

use crate::api::bindings;
use crate::api::kline::ARef;
use crate::api::kline::{init_array_from_fn, pin_init_array_from_fn, PinInit};
use crate::api::sock::Sock;
use crate::api::sync::{synchronize_rcu, Guard, RcuReadGuard, SpinLock};
use crate::api::task::cond_resched;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use core::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU32, Ordering};
use kernel::alloc::{Flags, KVVec};
use kernel::error::{code::EINVAL, Result};
use kernel::prelude::*;
use kernel::sync::{Arc, UniqueArc};
use kernel::types::Opaque;

/// A socket inode, only compared (the global table's key).
pub(crate) type Inode = bindings::inode;

/// A lock class of the chains' spinlocks: a C initialiser with a lockdep key of its own.
#[derive(Clone, Copy)]
pub(crate) struct LockClass(unsafe extern "C" fn(*mut bindings::spinlock_t));

/// The bucket locks of every netns table (one class: two are taken nested, in order).
pub(crate) const TABLE_LOCK: LockClass = LockClass(bindings::afunix_table_lock_init);
/// The stripe locks of the global pathname table.
pub(crate) const BSD_LOCK: LockClass = LockClass(bindings::afunix_bsd_lock_init);

/// The `hlist_node` of `struct sock` that links a socket into the chains of a table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    /// `sk_node` (`sk_add_node_rcu`).
    Node,
    /// `sk_bind_node`.
    BindNode,
}

impl Link {
    /// The node's offset in `struct sock`.
    fn offset(self) -> usize {
        match self {
            Link::Node => bindings::AFUNIX_SK_NODE_OFFSET as usize,
            Link::BindNode => bindings::AFUNIX_SK_BIND_NODE_OFFSET as usize,
        }
    }

    /// The node of `sk`.
    fn node(self, sk: &Sock) -> *mut bindings::hlist_node {
        // SAFETY: The node is at `offset()` in the live `struct sock`.
        unsafe { sk.as_ptr().byte_add(self.offset()).cast() }
    }

    /// The lock `sk` is linked under by this node, NULL if none ([`Sock::chained`]).
    fn owner(self, sk: &Sock) -> &AtomicPtr<c_void> {
        sk.chained(self == Link::BindNode)
    }
}

/// The identity of a chain lock ([`Sock::chained`]): the address of what it guards.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Owner(*mut c_void);

/// A chain: a C `hlist_head` of sockets.
///
/// # Invariants
///
/// The list holds live sockets of this family, linked by the [`Link`] of the structure
/// that holds the chain, each with a reference owned by the chain, and each recording
/// the lock that protects the chain as its node's owner ([`Sock::chained`]). It is
/// written only under the lock that protects it (its [`ChainLock`]'s, or
/// its stripe's), with the `_rcu` list operations, and read under that lock or, a chain
/// of a [`Stripes`], under `rcu_read_lock()`: a socket linked there stays allocated
/// until a grace period after its last reference goes (`SOCK_RCU_FREE`, kept by
/// [`Sock::mark_rcu_linked`]).
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

    /// Links `sk` by `link`, with a reference the chain holds. `EINVAL` if `sk` is
    /// linked by that node already, in any chain, or if `no_rcu_linked` and `sk` was
    /// ever linked where walkers go without a lock.
    ///
    /// # Safety
    ///
    /// The chain's lock, whose identity is `owner`, is held, and `link` is the chain's.
    unsafe fn add(&self, sk: &Sock, link: Link, owner: Owner, no_rcu_linked: bool) -> Result {
        let slot = link.owner(sk);
        // Claimed first: of two links of one node under two locks, one fails here.
        // Acquire: the unlink that freed the node came before.
        slot.compare_exchange(
            ptr::null_mut(),
            owner.0,
            Ordering::Acquire,
            Ordering::Relaxed,
        )
        .map_err(|_| EINVAL)?;
        // Checked after the claim: a striped chain's link marks the socket before its
        // claim, and its unlink's release of the node came before ours.
        if no_rcu_linked && sk.rcu_linked() {
            slot.store(ptr::null_mut(), Ordering::Release);
            return Err(EINVAL);
        }
        // SAFETY: The chain is locked; `sk` is live and its node is in no chain (it was
        // unowned), and now ours.
        unsafe {
            match link {
                Link::Node => bindings::afunix_sk_add_node_rcu(sk.as_ptr(), self.as_ptr()),
                Link::BindNode => {
                    bindings::afunix_sock_hold(sk.as_ptr());
                    bindings::afunix_hlist_add_head_rcu(link.node(sk), self.as_ptr())
                }
            }
        }
        Ok(())
    }

    /// Unlinks `sk`'s node `link` and drops the chain's reference (`sk_del_node_init`);
    /// false if it is not linked in a chain of the lock `owner`. `hlist_del_init_rcu`:
    /// the node keeps its `next` for walkers on it.
    ///
    /// # Safety
    ///
    /// The lock whose identity is `owner` is held.
    unsafe fn del(sk: &Sock, link: Link, owner: Owner) -> bool {
        let slot = link.owner(sk);
        // Set to `owner` and cleared only under that lock, which is held: stable.
        if slot.load(Ordering::Relaxed) != owner.0 {
            return false;
        }
        // SAFETY: Linked in a chain of this held lock (its owner). The chain's reference
        // is not the last one: `&Sock` is a live socket, and the callers hold a
        // reference of their own (a `__sock_put` that reached zero would leak the
        // socket, not free it).
        unsafe {
            bindings::afunix_hlist_del_init_rcu(link.node(sk));
            bindings::afunix___sock_put(sk.as_ptr());
        }
        // Release: a link under another lock comes after the unlink.
        slot.store(ptr::null_mut(), Ordering::Release);
        true
    }

    /// Unlinks the chain's first socket and hands over the chain's reference to it;
    /// `None` if the chain is empty. For the drop of a table: a socket left linked
    /// must not keep the table's lock as its owner, whose address may be reused.
    ///
    /// # Safety
    ///
    /// The chain's lock is held, and `link` is the chain's.
    unsafe fn pop(&self, link: Link) -> Option<ARef<Sock>> {
        let node = NonNull::new(self.first())?;
        // SAFETY: The first node of the locked chain, at `link.offset()` in a live
        // socket the chain holds a reference to.
        let sk = unsafe { Sock::from_raw(node.as_ptr().byte_sub(link.offset()).cast()) };
        // SAFETY: Linked in this locked chain.
        unsafe { bindings::afunix_hlist_del_init_rcu(node.as_ptr()) };
        link.owner(sk).store(ptr::null_mut(), Ordering::Release);
        // SAFETY: The chain's reference, which leaves with the socket.
        Some(unsafe { ARef::from_raw(NonNull::from(sk)) })
    }

    /// Moves `sk`, linked by `link` in a chain whose lock is held, to this chain, with
    /// the reference the table holds, if it holds one.
    ///
    /// # Safety
    ///
    /// This chain's lock and that of `sk`'s chain are held; `link` is theirs.
    unsafe fn move_in(&self, sk: &Sock, link: Link) {
        let node = link.node(sk);
        // SAFETY: `sk` is linked in a locked chain; its node moves to this locked one.
        // A walker on the node follows it into this chain (the stripe's sequence count
        // makes it walk again: `Stripes::rehash`).
        unsafe {
            bindings::afunix_hlist_del_rcu(node);
            bindings::afunix_hlist_add_head_rcu(node, self.as_ptr());
        }
    }

    /// The sockets of the chain, linked by `link`.
    ///
    /// # Safety
    ///
    /// The chain's lock is held for `'a`, and `link` is the chain's.
    unsafe fn iter(&self, link: Link) -> ChainIter<'_> {
        // INVARIANT: The chain is locked for the borrow of `self` (safety requirements).
        ChainIter {
            node: self.first(),
            offset: link.offset(),
            _chain: PhantomData,
        }
    }

    /// The sockets of the chain, walked under the RCU read lock `_rcu`: some may be
    /// unlinked meanwhile, or dying.
    ///
    /// # Safety
    ///
    /// `link` is the chain's.
    unsafe fn iter_rcu<'a>(
        &'a self,
        _rcu: &'a RcuReadGuard,
        link: Link,
    ) -> impl Iterator<Item = RcuSock<'a>> {
        // INVARIANT: Nodes reached under `_rcu` stay allocated while it is held.
        ChainIter {
            node: self.first(),
            offset: link.offset(),
            _chain: PhantomData,
        }
        .map(RcuSock)
    }
}

/// A socket reached under RCU: allocated while the read lock is held, but maybe
/// unlinked, or dying (its count at zero, which the `&Sock` inside does not promise: it
/// never leaves this wrapper). Only what a socket keeps from its link to its free is
/// read; a reference is taken with [`RcuSock::get`].
#[derive(Clone, Copy)]
pub(crate) struct RcuSock<'a>(&'a Sock);

impl<'a> RcuSock<'a> {
    /// The full hash of its abstract name (set before it was linked).
    fn name_hash(self) -> u32 {
        self.0.key()
    }

    /// Its bound name (published before it was linked, freed with the socket).
    fn name(self) -> Option<&'a [u8]> {
        self.0.addr_ref().map(|a| a.name())
    }

    /// Its socket inode (set before it was linked), only compared.
    fn inode_ptr(self) -> *mut Inode {
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
    _chain: PhantomData<&'a Chain>,
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

/// Walks the chain for the abstract `name` of full hash `h`: AF_UNIX's
/// `__unix_find_socket_byname`, with the full hash compared first. The caller holds the
/// chain's stripe lock.
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
    // SAFETY: The caller holds the chain's lock for `'a`; its sockets are linked by
    // `sk_node` (the abstract half).
    let mut it = unsafe { chain.iter(Link::Node) };
    // Every socket of the upper half is bound: its name hash is set.
    it.find(|s| s.key() == h && s.addr_ref().is_some_and(|a| a.name() == name))
}

/// The same walk for a lock-free lookup, under the RCU read lock `rcu`
/// ([`Stripes::find_name`]); the socket found may be dying.
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
    // SAFETY: The abstract half's chains are linked by `sk_node`.
    let mut it = unsafe { chain.iter_rcu(rcu, Link::Node) };
    it.find(|s| s.name_hash() == h && s.name().is_some_and(|n| same_name(n, name)))
}

/// `a == b` for two names, without a call to `bcmp`: a short name is a word or two,
/// and the walk stays a leaf function (no registers saved around a call).
#[inline(always)]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    // `try_from` of an exact chunk of 8 cannot fail.
    let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]));
    for (x, y) in (&mut wa).zip(&mut wb) {
        if word(x) != word(y) {
            return false;
        }
    }
    // The tail, as one difference: no early exit (nor a loop LLVM makes a `bcmp`).
    let (ta, tb) = (wa.remainder(), wb.remainder());
    ta.iter().zip(tb).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

/// Walks a chain of the global table for the socket bound to `inode`, under the RCU
/// read lock `rcu` ([`Stripes::find_inode`]); the socket found may be dying.
#[no_mangle]
#[inline(never)]
#[expect(
    improper_ctypes_definitions,
    reason = "called from Rust only; C ABI for kprobes"
)]
extern "C" fn rust_afunix_find_socket_byinode<'a>(
    chain: &'a Chain,
    rcu: &'a RcuReadGuard,
    inode: *const Inode,
) -> Option<RcuSock<'a>> {
    // A socket's inode is set before it is linked and kept until it is freed.
    // SAFETY: The global table's chains are linked by `sk_bind_node`.
    let mut it = unsafe { chain.iter_rcu(rcu, Link::BindNode) };
    it.find(|s| ptr::eq(s.inode_ptr(), inode))
}

/// One chain of sockets linked by `sk_node` (each with a reference) and its lock.
#[pin_data(PinnedDrop)]
pub(crate) struct ChainLock {
    #[pin]
    lock: SpinLock<Chain>,
}

#[pinned_drop]
impl PinnedDrop for ChainLock {
    fn drop(self: Pin<&mut Self>) {
        // Sockets still linked (none in the module: each leaves at its release) leave,
        // with the chain's references: this lock's identity may be reused.
        loop {
            let sk = {
                let g = self.lock.lock();
                // SAFETY: The lock is held; the chain is linked by `sk_node`.
                unsafe { g.pop(Link::Node) }
            };
            // Put once unlocked.
            match sk {
                Some(sk) => drop(sk),
                None => break,
            }
        }
    }
}

impl ChainLock {
    /// An empty chain whose lock is of class `class`.
    pub(crate) fn new(class: LockClass) -> impl PinInit<ChainLock> {
        pin_init!(ChainLock {
            lock <- SpinLock::new(Chain::new(), class.0),
        })
    }

    /// Takes the lock.
    pub(crate) fn lock(&self) -> ChainGuard<'_> {
        ChainGuard(self.lock.lock())
    }

    /// Takes the lock while the caller holds another of the same class, taken first in
    /// a fixed order.
    pub(crate) fn lock_nested(&self) -> ChainGuard<'_> {
        ChainGuard(self.lock.lock_nested())
    }
}

/// A held [`ChainLock`]: reads of the chain through `&self`, writes through `&mut self`
/// (so no walk of it is under way), unlocked on drop.
pub(crate) struct ChainGuard<'a>(Guard<'a, Chain>);

impl ChainGuard<'_> {
    fn owner(&self) -> Owner {
        Owner(ptr::from_ref::<Chain>(&*self.0).cast_mut().cast())
    }

    /// Links `sk` (the chain takes a reference); `EINVAL` if it is linked already, or
    /// was ever linked where walkers go without a lock: they may still be on its node,
    /// and would follow it here, to sockets freed without a grace period.
    pub(crate) fn add(&mut self, sk: &Sock) -> Result {
        // SAFETY: The lock, `owner()`, is held; the chain is linked by `sk_node`.
        unsafe { self.0.add(sk, Link::Node, self.owner(), true) }
    }

    /// Unlinks `sk` and drops the chain's reference; false if it is not in this chain.
    pub(crate) fn del(&mut self, sk: &Sock) -> bool {
        // SAFETY: The lock, `owner()`, is held.
        unsafe { Chain::del(sk, Link::Node, self.owner()) }
    }
}

/// The chains of a [`Stripes`].
///
/// # Invariants
///
/// `heads.len() == 1 << bits`, `bits < 32`. Chain `i` is protected by the lock of stripe
/// `i % N` of the [`Stripes<N>`] whose stripes hold these chains.
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
    /// `2^bits` empty chains (from the slab or vmalloc: 8 MiB at 2^20), for one
    /// [`Stripes`] (unique: no two share chains).
    pub(crate) fn new(bits: u32, gfp: Flags) -> Result<UniqueArc<Chains>> {
        if bits >= 32 {
            return Err(EINVAL);
        }
        let n = 1usize << bits;
        let mut heads = KVVec::with_capacity(n, gfp)?;
        for _ in 0..n {
            // Within the capacity: no allocation.
            heads.push(Chain::new(), gfp)?;
        }
        // INVARIANT: `n` heads, `bits < 32`.
        Ok(UniqueArc::new(Chains { bits, heads }, gfp)?)
    }

    /// log2 of the number of chains.
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    /// The index of the chain of key `k` (a name hash or an inode key) in stripe `s` of
    /// `n` (a power of two): the chain of `k`, which callers lock the stripe of, and in
    /// any case one of stripe `s`.
    fn index(&self, k: u32, s: usize, n: usize) -> usize {
        ((k & ((1u32 << self.bits) - 1)) as usize & !(n - 1)) | s
    }
}

/// What the lock of a stripe of a [`Stripes`] protects: the chains `i` of `chains` with
/// `i % N` equal to the stripe's number. All stripes point to the same chains, but while
/// a resize moves them one by one.
struct Stripe {
    chains: Arc<Chains>,
}

/// What lock-free lookups read of a stripe: its chains and its sequence count.
///
/// # Invariants
///
/// `chains` points to the array of the stripe's `chains` (written under the stripe's
/// lock); an array it pointed to is freed only a grace period after it was replaced,
/// or with the [`Stripes`] (whose drop no lookup can overlap).
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

/// Chains over `N` lock stripes (`N` a power of two), walked without the lock.
///
/// # Invariants
///
/// `rcu[s]` mirrors `stripes[s]`'s chains (type invariant of [`StripeRcu`]); the chains
/// hold sockets linked by `link`, each in a chain of the stripe it was linked under.
/// `resizing` is set while [`Stripes::rehash`] runs.
#[pin_data(PinnedDrop)]
pub(crate) struct Stripes<const N: usize> {
    /// Stripe `s` protects chains `i` with `i % N == s`.
    #[pin]
    stripes: [SpinLock<Stripe>; N],
    /// The stripes as lock-free lookups see them.
    rcu: [StripeRcu; N],
    /// The node that links the sockets.
    link: Link,
    /// A rehash is running (one at a time: it keeps one reference to the old array).
    resizing: AtomicBool,
}

#[pinned_drop]
impl<const N: usize> PinnedDrop for Stripes<N> {
    fn drop(self: Pin<&mut Self>) {
        // As `ChainLock`'s: sockets still linked leave, with the chains' references.
        let link = self.link;
        for (s, stripe) in self.stripes.iter().enumerate() {
            loop {
                let sk = {
                    let g = stripe.lock();
                    // Chains `s`, `s + N`, ... are this stripe's.
                    let mut heads = g.chains.heads.iter().skip(s).step_by(N);
                    // SAFETY: The stripe's lock is held; its chains are linked by `link`.
                    heads.find_map(|h| unsafe { h.pop(link) })
                };
                match sk {
                    Some(sk) => drop(sk),
                    None => break,
                }
            }
        }
    }
}

impl<const N: usize> Stripes<N> {
    /// Stripes over `chains`, linked by `link`, with locks of class `class`.
    pub(crate) fn new(
        chains: UniqueArc<Chains>,
        link: Link,
        class: LockClass,
    ) -> impl PinInit<Stripes<N>> {
        kernel::prelude::build_assert!(N.is_power_of_two());
        let chains: Arc<Chains> = chains.into();
        let first: *mut Chains = ptr::from_ref::<Chains>(&chains).cast_mut();
        pin_init!(Stripes {
            stripes <- pin_init_array_from_fn(|_| {
                SpinLock::new(Stripe { chains: chains.clone() }, class.0)
            }),
            // INVARIANT: Each stripe's `chains`, count 0.
            rcu <- init_array_from_fn::<_, N, _, core::convert::Infallible>(|_| StripeRcu {
                seq: AtomicU32::new(0),
                chains: AtomicPtr::new(first),
            }),
            link,
            resizing: AtomicBool::new(false),
        })
    }

    /// Locks the stripe of key `k`; `nested` if the caller holds a lock of the same
    /// class, lower.
    pub(crate) fn lock(&self, k: u32, nested: bool) -> StripeGuard<'_, N> {
        let s = k as usize & (N - 1);
        // Masked below `N`, the array's length.
        let lock = &self.stripes[s];
        let g = if nested {
            lock.lock_nested()
        } else {
            lock.lock()
        };
        StripeGuard {
            g,
            s,
            link: self.link,
        }
    }

    /// The socket that `walk` finds in the chain of `key`, with a reference: walked
    /// under RCU, or under the stripe lock while a resize moves the stripe's sockets.
    ///
    /// A walk that found nothing while the stripe's count changed (its sockets moved,
    /// maybe the one sought from under the walker) is made again. A walk that found its
    /// socket needs no retry: the socket has the key. A socket whose last reference is
    /// gone is leaving the table, as if it were not found.
    // Inlined into each lookup (connect, sendto): LLVM left it a call.
    #[inline(always)]
    fn lookup<F>(&self, key: u32, walk: F) -> Option<ARef<Sock>>
    where
        F: for<'a> Fn(&'a Chain, &'a RcuReadGuard) -> Option<RcuSock<'a>>,
    {
        let s = key as usize & (N - 1);
        // Masked below `N`, the array's length.
        let rcu = &self.rcu[s];
        let guard = RcuReadGuard::new();
        loop {
            let Some(seq) = rcu.read_begin() else {
                // A resize is moving this stripe's sockets: walk under its lock (the
                // read lock stays held: the walk is the same).
                let g = self.lock(key, false);
                return walk(g.chain_of(key)?, &guard).and_then(RcuSock::get);
            };
            let chains = rcu.chains(&guard);
            let chain = chains.heads.get(chains.index(key, s, N))?;
            if let Some(sk) = walk(chain, &guard) {
                return sk.get();
            }
            if !rcu.read_retry(seq) {
                return None;
            }
        }
    }

    /// The socket bound to the abstract name `name` of full hash `h`, with a reference
    /// (the abstract half: linked by `sk_node`).
    // Inlined, as `names::Target::find`.
    #[inline(always)]
    pub(crate) fn find_name(&self, h: u32, name: &[u8]) -> Option<ARef<Sock>> {
        if self.link != Link::Node {
            return None;
        }
        self.lookup(h, |chain, rcu| {
            rust_afunix_find_socket_byname_rcu(chain, rcu, h, name)
        })
    }

    /// The socket bound to `inode`, whose key is `k`, with a reference (the global
    /// table: linked by `sk_bind_node`).
    pub(crate) fn find_inode(&self, k: u32, inode: *const Inode) -> Option<ARef<Sock>> {
        if self.link != Link::BindNode {
            return None;
        }
        self.lookup(k, |chain, rcu| {
            rust_afunix_find_socket_byinode(chain, rcu, inode)
        })
    }

    /// Moves the sockets to the chains `new`, stripe by stripe, and frees the old ones a
    /// grace period later; false (nothing done) if another rehash runs or `new` has
    /// fewer than `N` chains. May sleep.
    ///
    /// A lock-free lookup of stripe `s` reads `rcu[s]`: while the stripe's sockets move,
    /// its count is odd and the lookup takes the stripe lock; a lookup that walked
    /// while they moved (the count changed) walks again, in the new chains.
    pub(crate) fn rehash(&self, new: UniqueArc<Chains>) -> bool {
        let new: Arc<Chains> = new.into();
        if new.heads.len() < N
            || self
                .resizing
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        let link = self.link;
        let mut old = None;
        for (s, (stripe, rcu)) in self.stripes.iter().zip(&self.rcu).enumerate() {
            let mut g = stripe.lock();
            let from = core::mem::replace(&mut g.chains, new.clone());
            // Written under the stripe's lock only: odd from here (`write_seqcount_begin`),
            // before any node moves (the Release fence orders the store before them).
            let seq = rcu.seq.load(Ordering::Relaxed);
            rcu.seq.store(seq.wrapping_add(1), Ordering::Relaxed);
            fence(Ordering::Release);
            // Chains `s`, `s + N`, ... of the old array are this stripe's.
            for head in from.heads.iter().skip(s).step_by(N) {
                // SAFETY: The stripe's lock is held, for the old chain and the new; the
                // chains are linked by `link` (type invariant).
                while let Some(sk) = unsafe { head.iter(link) }.next() {
                    // `new` has at least `N` chains (checked above): in bounds, and one
                    // of stripe `s`.
                    let Some(to) = new.heads.get(new.index(sk.key(), s, N)) else {
                        break;
                    };
                    // SAFETY: Both chains are of this stripe, whose lock is held; `sk` is
                    // linked by `link` in the first.
                    unsafe { to.move_in(sk, link) };
                }
            }
            // INVARIANT: The stripe's new chains, then even again, after the moves.
            rcu.chains
                .store(ptr::from_ref::<Chains>(&new).cast_mut(), Ordering::Release);
            rcu.seq.store(seq.wrapping_add(2), Ordering::Release);
            drop(g);
            // Every stripe held the same old array (one rehash at a time): one reference
            // is kept.
            old = Some(from);
            cond_resched();
        }
        // Lookups may still walk the old array: it goes after a grace period (this
        // function may sleep: callers).
        synchronize_rcu();
        drop(old);
        self.resizing.store(false, Ordering::Release);
        true
    }
}

/// A held stripe lock of a [`Stripes<N>`]: reads of its chains through `&self`, writes
/// through `&mut self`, unlocked on drop.
///
/// # Invariants
///
/// `g` holds the lock of stripe `s`; `link` links the sockets of its chains.
pub(crate) struct StripeGuard<'a, const N: usize> {
    g: Guard<'a, Stripe>,
    s: usize,
    link: Link,
}

impl<const N: usize> StripeGuard<'_, N> {
    /// The chain of key `k`, one of this stripe's.
    fn chain_of(&self, k: u32) -> Option<&Chain> {
        let c = &self.g.chains;
        c.heads.get(c.index(k, self.s, N))
    }

    /// The socket bound to the abstract `name` of full hash `h` (the abstract half).
    pub(crate) fn find_name(&self, h: u32, name: &[u8]) -> Option<&Sock> {
        if self.link != Link::Node {
            return None;
        }
        // The lock of the chain's stripe is held for the borrow of `self`.
        rust_afunix_find_socket_byname(self.chain_of(h)?, h, name)
    }

    /// The stripe lock's identity: a resize keeps each socket in its stripe.
    fn owner(&self) -> Owner {
        Owner(ptr::from_ref::<Stripe>(&*self.g).cast_mut().cast())
    }

    /// Links `sk`, whose key is `k`, into the chain of `k`, with a reference; `EINVAL`
    /// if it is linked by the stripes' node already.
    pub(crate) fn add(&mut self, k: u32, sk: &Sock) -> Result {
        let chain = self.chain_of(k).ok_or(EINVAL)?;
        // Lookups walk these chains without the lock: `sk` must outlive its last
        // reference by a grace period.
        sk.mark_rcu_linked()?;
        // SAFETY: The chain is of this stripe, whose lock (`owner()`) is held; linked by
        // `link`.
        unsafe { chain.add(sk, self.link, self.owner(), false) }
    }

    /// Unlinks `sk` and drops the chain's reference; false if it is not in a chain of
    /// this stripe.
    pub(crate) fn del(&mut self, sk: &Sock) -> bool {
        // SAFETY: The stripe's lock, `owner()`, is held, for all its chains.
        unsafe { Chain::del(sk, self.link, self.owner()) }
    }
}

/// The chains a [`Walk`] visits, in order, under one held lock.
pub(crate) trait Walkable: private::Sealed {
    /// The `j`-th chain, if there is one.
    fn nth_chain(&self, j: usize) -> Option<&Chain>;
    /// The node that links their sockets.
    fn link(&self) -> Link;
}

mod private {
    /// Only the guards of this file are [`super::Walkable`]: a walk relies on their lock
    /// being held and protecting their chains.
    pub(crate) trait Sealed {}
    impl Sealed for super::ChainGuard<'_> {}
    impl<const N: usize> Sealed for super::StripeGuard<'_, N> {}
}

impl Walkable for ChainGuard<'_> {
    fn nth_chain(&self, j: usize) -> Option<&Chain> {
        (j == 0).then_some(&*self.0)
    }

    fn link(&self) -> Link {
        Link::Node
    }
}

impl<const N: usize> Walkable for StripeGuard<'_, N> {
    fn nth_chain(&self, j: usize) -> Option<&Chain> {
        self.g.chains.heads.get(self.s + j.checked_mul(N)?)
    }

    fn link(&self) -> Link {
        self.link
    }
}

/// A socket of the chains a held guard protects, visited one by one across calls (a
/// dump that shows a bucket's sockets one callback at a time keeps its lock).
///
/// # Invariants
///
/// `node` is the node of a socket linked in chain `chain` of `guard`; the chains do not
/// change while `guard` is held (nothing writes them through it).
pub(crate) struct Walk<G: Walkable> {
    guard: G,
    chain: usize,
    node: NonNull<bindings::hlist_node>,
}

impl<G: Walkable> Walk<G> {
    /// The first socket of `guard`'s chains; `None` (the lock goes) if they have none.
    pub(crate) fn first(guard: G) -> Option<Walk<G>> {
        Self::from_chain(guard, 0)
    }

    /// The first socket of the chains from the `chain`-th on.
    fn from_chain(guard: G, mut chain: usize) -> Option<Walk<G>> {
        while let Some(c) = guard.nth_chain(chain) {
            if let Some(node) = NonNull::new(c.first()) {
                // INVARIANT: The first node of chain `chain` of the held lock.
                return Some(Walk { guard, chain, node });
            }
            chain += 1;
        }
        None
    }

    /// The socket after this one: the next in its chain, else the first of the next
    /// chain that has one; `None` (the lock goes) at the end.
    pub(crate) fn next(self) -> Option<Walk<G>> {
        // SAFETY: A node of a chain of the held lock (type invariant), which does not
        // change while it is held.
        let next = unsafe { (*self.node.as_ptr()).next };
        match NonNull::new(next) {
            // INVARIANT: The next node of the same chain.
            Some(node) => Some(Walk { node, ..self }),
            None => Self::from_chain(self.guard, self.chain + 1),
        }
    }

    /// The socket.
    pub(crate) fn sock(&self) -> &Sock {
        let offset = self.guard.link().offset();
        // SAFETY: The node of a socket linked in a chain of the held lock (type
        // invariant), alive while it is linked, so for the borrow of `self`.
        unsafe { Sock::from_raw(self.node.as_ptr().byte_sub(offset).cast()) }
    }
}
