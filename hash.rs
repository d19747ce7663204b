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
//! work item, stripe by stripe, `afunix_abs_resize`) to about one socket each, up to
//! `2^AFUNIX_ABS_MAX_BITS` chains, and the name hash is keyed per table (hsiphash), so
//! names chosen to collide in one namespace do not collide in another.
//!
//! Pathname sockets are also in one global table keyed by inode ("af_unix: Put
//! pathname sockets in the global hash table"), so that a socket file reaches its
//! socket from every netns that can resolve it.
//!
//! The tables are C data (`struct afunix_table`, lists of `struct sock`); this file is
//! the thin layer over them. Nothing here allocates under a lock: callers allocate
//! before locking (`Table::autobind_prepare` allocates, and takes no lock).

use crate::addr::Address;
use crate::bindings;
use crate::sock::Sock;
use core::marker::PhantomData;
use kernel::error::{code::EINVAL, Result};
use kernel::sync::Arc;
use kernel::types::ARef;

/// Buckets in each half of a netns table, and in the global pathname table.
pub(crate) const HASH_SIZE: u32 = bindings::AFUNIX_HASH_SIZE;
const HASH_MOD: u32 = HASH_SIZE - 1;

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
}

/// The full hash of an abstract name (`sun_path` bytes) and a socket type, in one table.
///
/// Its low bits choose the stripe and the chain; all of it is kept in each bound socket
/// and compared before the name, so a lookup reads the name of (almost) only the socket
/// it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameHash(u32);

/// The name table of a socket's network namespace.
///
/// The table lives as long as the namespace, which each of its sockets pins.
pub(crate) struct Table<'a> {
    t: *mut bindings::afunix_table,
    _sk: PhantomData<&'a Sock>,
}

impl Sock {
    /// The name table of this socket's network namespace.
    pub(crate) fn table(&self) -> Table<'_> {
        // SAFETY: A live socket's netns is alive (the socket holds a reference), and
        // the module's pernet init gave every netns a table while the module is loaded.
        let t = unsafe { bindings::afunix_net_table(bindings::afunix_sock_net(self.as_ptr())) };
        Table {
            t,
            _sk: PhantomData,
        }
    }
}

impl Table<'_> {
    /// The hash of an abstract name for a socket type: hsiphash keyed by this table,
    /// then the type, as AF_UNIX mixes it into its own.
    pub(crate) fn name_hash(&self, name: &[u8], ty: u16) -> NameHash {
        // SAFETY: `self.t` is a live table; `name` is `name.len()` readable bytes.
        let h = unsafe { bindings::afunix_name_hash(self.t, name.as_ptr(), name.len()) };
        NameHash(h ^ u32::from(ty))
    }

    /// Makes sure the autobind map of socket type `ty` exists (allocates: may sleep).
    /// Without it (no memory), autobind looks every name up, as AF_UNIX does.
    pub(crate) fn autobind_prepare(&self, ty: u16) {
        // SAFETY: `self.t` is a live table.
        let _ = unsafe { bindings::afunix_autobind_prepare(self.t, ty.into()) };
    }

    /// The first autobind name number in `from..to` that the map of socket type `ty`
    /// does not know taken, or `to`. Read without locks: the table has the last word.
    pub(crate) fn autobind_next(&self, ty: u16, from: u32, to: u32) -> u32 {
        // SAFETY: `self.t` is a live table; the map is only read.
        let n = unsafe {
            bindings::afunix_autobind_next(self.t, ty.into(), from as usize, to as usize)
        };
        u32::try_from(n).map_or(to, |n| n.min(to))
    }

    /// Locks one bucket.
    pub(crate) fn lock(&self, b: Bucket) -> Locked<'_> {
        self.lock2(b, b)
    }

    /// Locks two buckets, in ascending order (one if they are the same).
    pub(crate) fn lock2(&self, a: Bucket, b: Bucket) -> Locked<'_> {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        // SAFETY: `self.t` is a live table (see `Table`); indices are in range
        // (`Bucket` invariant). The second lock is of the same class, taken in a fixed
        // order, hence nested.
        unsafe {
            bindings::afunix_table_lock(self.t, lo.0, false);
            if hi != lo {
                bindings::afunix_table_lock(self.t, hi.0, true);
            }
        }
        // INVARIANT: Both locks were just taken.
        Locked {
            t: self.t,
            lo,
            hi,
            _t: PhantomData,
        }
    }
}

/// One or two buckets of a netns table, locked.
///
/// # Invariants
///
/// The locks of buckets `lo` and `hi` of the live table `t` are held.
pub(crate) struct Locked<'a> {
    t: *mut bindings::afunix_table,
    lo: Bucket,
    hi: Bucket,
    _t: PhantomData<&'a ()>,
}

impl Locked<'_> {
    fn holds(&self, b: Bucket) -> bool {
        b == self.lo || b == self.hi
    }

    /// The socket bound to the abstract `name` of hash `h` (its bucket must be locked).
    pub(crate) fn find_name(&self, h: NameHash, name: &[u8]) -> Option<&Sock> {
        if !self.holds(Bucket::abstract_name(h)) {
            return None;
        }
        rust_afunix_find_socket_byname(self, h, name)
    }

    /// Links an unbound socket into bucket `b` of the lower half (which must be locked).
    pub(crate) fn insert(&mut self, sk: &Sock, b: Bucket) -> Result {
        self.link(sk, b, None)
    }

    /// Links `sk`, in no table, into `b`: in the lower half, or the chain of `h` (whose
    /// bucket `b` is) in the upper one. `b` must be locked.
    fn link(&mut self, sk: &Sock, b: Bucket, h: Option<NameHash>) -> Result {
        if !self.holds(b) {
            return Err(EINVAL);
        }
        match h {
            None if !b.is_abstract() => {
                sk.set_hash(b.0);
                // SAFETY: The bucket (< `HASH_SIZE`) is locked; `sk` is live and in no
                // table. The table takes a reference.
                unsafe { bindings::afunix_table_add(self.t, b.0, sk.as_ptr()) };
            }
            Some(h) if Bucket::abstract_name(h) == b => {
                sk.set_name_hash(h.0);
                sk.set_hash(b.0);
                // SAFETY: The stripe of `h` is locked; `sk` is live and in no table. The
                // table takes a reference.
                unsafe { bindings::afunix_table_add_abstract(self.t, h.0, sk.as_ptr()) };
            }
            _ => return Err(EINVAL),
        }
        Ok(())
    }

    /// Records the autobind name `num` of socket type `ty`, whose hash is `h` (its bucket
    /// must be locked), as taken: bound now, or found bound by someone else.
    pub(crate) fn autobind_taken(&mut self, h: NameHash, ty: u16, num: u32) {
        if self.holds(Bucket::abstract_name(h)) {
            // SAFETY: `self.t` is a live table and the name's bucket is locked.
            unsafe { bindings::afunix_autobind_mark(self.t, ty.into(), num as usize, true) };
        }
    }

    /// Unlinks `sk` from its bucket (which must be locked); frees its name in the
    /// autobind map if it has one of that form.
    pub(crate) fn remove(&mut self, sk: &Sock) -> Result {
        let b = Bucket::of(sk);
        if !self.holds(b) {
            return Err(EINVAL);
        }
        // SAFETY: `sk`'s bucket is locked; unlinking an unlinked socket does nothing.
        // The table's reference is dropped; the caller holds another.
        let unlinked = unsafe { bindings::afunix_table_del(self.t, sk.as_ptr()) };
        if unlinked && b.is_abstract() {
            if let Some(num) = sk.addr_ref().and_then(Address::autobind_num) {
                // SAFETY: `self.t` is a live table and the name's bucket is locked.
                unsafe {
                    bindings::afunix_autobind_mark(self.t, sk.sk_type().into(), num as usize, false)
                };
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
        addr: Arc<Address>,
        new: Bucket,
        h: Option<NameHash>,
    ) -> Result {
        if !self.holds(Bucket::of(sk)) || !self.holds(new) {
            return Err(EINVAL);
        }
        if new.is_abstract() != h.is_some() || h.is_some_and(|h| Bucket::abstract_name(h) != new) {
            return Err(EINVAL);
        }
        // SAFETY: The old bucket is locked; the table's reference goes and comes back.
        unsafe { bindings::afunix_table_del(self.t, sk.as_ptr()) };
        sk.publish_addr(addr);
        self.link(sk, new, h)
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // SAFETY: The locks are held (type invariant).
        unsafe {
            if self.hi != self.lo {
                bindings::afunix_table_unlock(self.t, self.hi.0);
            }
            bindings::afunix_table_unlock(self.t, self.lo.0);
        }
    }
}

/// The first socket linked through `node` at `offset` in `struct sock`, or `None`.
///
/// # Safety
///
/// `node` is NULL or the `sk_node`/`sk_bind_node` (at `offset`) of a live socket of
/// this family that stays alive for `'a` (its bucket's lock is held).
unsafe fn sock_of<'a>(node: *mut bindings::hlist_node, offset: u32) -> Option<&'a Sock> {
    if node.is_null() {
        return None;
    }
    // SAFETY: `node` is inside a `struct sock` at `offset` (safety requirements).
    Some(unsafe { Sock::from_raw(node.byte_sub(offset as usize).cast()) })
}

/// Walks the chain of `h` for the abstract `name`: AF_UNIX's
/// `__unix_find_socket_byname`, with the full hash compared first.
///
/// A function of its own, never inlined, under a fixed symbol name, for kprobes
/// (`bpftrace`, `funclatency`). The caller holds the bucket's lock.
#[no_mangle]
#[inline(never)]
fn rust_afunix_find_socket_byname<'a>(
    g: &'a Locked<'_>,
    h: NameHash,
    name: &[u8],
) -> Option<&'a Sock> {
    // SAFETY: The table is live and the stripe of `h` is locked (`find_name`).
    let mut node = unsafe { bindings::afunix_table_abstract_first(g.t, h.0) };
    // SAFETY: Linked sockets are live while the bucket is locked (the table holds a
    // reference to each); `node` is the `sk_node` of each.
    while let Some(s) = unsafe { sock_of(node, bindings::AFUNIX_SK_NODE_OFFSET) } {
        // Every socket of the upper half is bound: its name hash is set.
        if s.name_hash() == h.0 && s.addr_ref().is_some_and(|a| a.name() == name) {
            return Some(s);
        }
        // SAFETY: `node` is a linked, live list node (above).
        node = unsafe { (*node).next };
    }
    None
}

/// The global pathname table's bucket lock.
///
/// # Invariants
///
/// The lock of global bucket `self.0` (< `HASH_SIZE`) is held.
struct BsdLocked(u32);

impl BsdLocked {
    fn new(ino: u64) -> BsdLocked {
        let h = ino as u32 & HASH_MOD;
        // SAFETY: `h < HASH_SIZE`.
        unsafe { bindings::afunix_bsd_lock(h) };
        // INVARIANT: Just locked.
        BsdLocked(h)
    }
}

impl Drop for BsdLocked {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::afunix_bsd_unlock(self.0) };
    }
}

/// Links a newly bound pathname socket into the global table (`unix_insert_bsd_socket`).
pub(crate) fn bsd_insert(sk: &Sock, ino: u64) {
    let g = BsdLocked::new(ino);
    // SAFETY: The bucket is locked; `sk` is live and in no bsd bucket yet (bound once).
    unsafe { bindings::afunix_bsd_add(g.0, sk.as_ptr()) };
}

/// Unlinks a pathname socket from the global table, if linked.
pub(crate) fn bsd_remove(sk: &Sock) {
    let Some(ino) = sk.inode_number() else {
        return;
    };
    let _g = BsdLocked::new(ino);
    // SAFETY: `sk` is in this bucket (keyed by its inode), if anywhere, and it is locked.
    unsafe { bindings::afunix_bsd_del(sk.as_ptr()) };
}

/// The socket bound to the inode `inode` (number `ino`), with a reference:
/// AF_UNIX's `unix_find_socket_byinode`. A kprobe target, as the abstract lookup.
#[no_mangle]
#[inline(never)]
fn rust_afunix_find_socket_byinode(inode: *mut bindings::inode, ino: u64) -> Option<ARef<Sock>> {
    let g = BsdLocked::new(ino);
    // SAFETY: `g.0` is a valid bucket, locked.
    let mut node = unsafe { bindings::afunix_bsd_first(g.0) };
    // SAFETY: Linked sockets are live while the bucket is locked (release unlinks
    // them first); `node` is the `sk_bind_node` of each.
    while let Some(s) = unsafe { sock_of(node, bindings::AFUNIX_SK_BIND_NODE_OFFSET) } {
        if core::ptr::eq(s.inode_ptr(), inode) {
            return Some(ARef::from(s));
        }
        // SAFETY: `node` is a linked, live list node (above).
        node = unsafe { (*node).next };
    }
    None
}

/// Looks a socket up by the inode of its socket file.
pub(crate) fn find_by_inode(inode: *mut bindings::inode, ino: u64) -> Option<ARef<Sock>> {
    rust_afunix_find_socket_byinode(inode, ino)
}

/// Iteration over a netns table for `/proc/net/rust_afunix`, as AF_UNIX's
/// `unix_seq_*`: the seq_file position holds a bucket and a 1-based offset in it, and the
/// bucket of the socket being shown stays locked from one callback to the next.
pub(crate) mod seq {
    use super::*;

    const BUCKET_SPACE: u32 = 64 - (bindings::AFUNIX_HASH_BITS + 1) - 1;

    fn bucket(pos: i64) -> u64 {
        (pos as u64) >> BUCKET_SPACE
    }

    fn offset(pos: i64) -> u64 {
        (pos as u64) & ((1 << BUCKET_SPACE) - 1)
    }

    fn position(bucket: u64, offset: u64) -> i64 {
        ((bucket << BUCKET_SPACE) | offset) as i64
    }

    /// The `offset`-th socket of bucket `b` (locked), or NULL.
    ///
    /// # Safety
    ///
    /// `t` is a live table and bucket `b` (< `2 * HASH_SIZE`) is locked.
    unsafe fn from_bucket(
        t: *mut bindings::afunix_table,
        b: u64,
        offset: u64,
    ) -> *mut bindings::sock {
        let mut sk = core::ptr::null_mut();
        for _ in 0..offset {
            // SAFETY: `b` is in range, locked, and `sk` is NULL or a socket linked in it.
            sk = unsafe { bindings::afunix_table_next(t, b as u32, sk) };
            if sk.is_null() {
                break;
            }
        }
        sk
    }

    /// The socket at `pos`, or the first after it; its bucket is left locked.
    ///
    /// # Safety
    ///
    /// `t` is a live table; no bucket of it is locked by the caller.
    pub(crate) unsafe fn first(
        t: *mut bindings::afunix_table,
        pos: &mut i64,
    ) -> *mut bindings::sock {
        let mut b = bucket(*pos);
        while b < u64::from(2 * HASH_SIZE) {
            // SAFETY: `b` is in range; `t` is live.
            unsafe { bindings::afunix_table_lock(t, b as u32, false) };
            // SAFETY: Bucket `b` is locked.
            let sk = unsafe { from_bucket(t, b, offset(*pos)) };
            if !sk.is_null() {
                return sk;
            }
            // SAFETY: Locked above.
            unsafe { bindings::afunix_table_unlock(t, b as u32) };
            b += 1;
            *pos = position(b, 1);
        }
        core::ptr::null_mut()
    }

    /// The socket after `sk` (whose bucket is locked, and is unlocked when it is left).
    ///
    /// # Safety
    ///
    /// `sk` came from [`first`] or [`next`] with `pos`, and its bucket is still locked.
    pub(crate) unsafe fn next(
        t: *mut bindings::afunix_table,
        sk: *mut bindings::sock,
        pos: &mut i64,
    ) -> *mut bindings::sock {
        let b = bucket(*pos);
        // SAFETY: `sk` is linked in the locked bucket `b` (< `2 * HASH_SIZE`).
        let next = unsafe { bindings::afunix_table_next(t, b as u32, sk) };
        if !next.is_null() {
            return next;
        }
        // SAFETY: Bucket `b` was locked by `first`.
        unsafe { bindings::afunix_table_unlock(t, b as u32) };
        *pos = position(b + 1, 1);
        // SAFETY: No bucket is locked now.
        unsafe { first(t, pos) }
    }

    /// Ends an iteration: unlocks the bucket of `sk`, if any.
    ///
    /// # Safety
    ///
    /// `sk` is NULL or came from [`first`]/[`next`], its bucket still locked.
    pub(crate) unsafe fn stop(t: *mut bindings::afunix_table, sk: *mut bindings::sock) {
        if !sk.is_null() {
            // SAFETY: `sk` is live (its bucket is locked) and of this family.
            let b = Bucket::of(unsafe { Sock::from_raw(sk) });
            // SAFETY: That bucket is locked (safety requirements).
            unsafe { bindings::afunix_table_unlock(t, b.0) };
        }
    }
}
