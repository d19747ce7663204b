// SPDX-License-Identifier: GPL-2.0

//! Fds in flight, and the collector of the sockets that only cycles of fds in flight
//! keep alive.
//!
//! A socket of this family is *in flight* while its file is in an fd list of
//! `SCM_RIGHTS` queued (or about to be queued) on a socket of this family. Each such
//! reference counts in the socket's `inflight` ([`InflightList`]). A socket whose file
//! references are all in flight (`file_count == inflight`) is a *candidate*: no fd
//! table holds it. A candidate is garbage when every one of those references sits in
//! the queue of another garbage candidate (for a listener: of its embryos): then no
//! process can ever receive it, and no close can free the cycle.
//!
//! AF_UNIX (6.10+) keeps a graph of edges and groups it into strongly connected
//! components. This collector does one mark-and-sweep over a snapshot instead:
//!
//! 1. Under the collector's lock, the candidates are picked. A candidate whose queue
//!    holds no fds (a *leaf*: most sockets in flight, say the ones a program keeps
//!    parked in a queue) is left out: it reaches no other socket, so it cannot make
//!    one reachable, and when it is garbage it dies with the queue that holds it.
//!    The candidates move to the front of the list, where the later steps find them
//!    without walking the leaves again.
//! 2. Each candidate's queue (a listener's: its embryos') is walked once under its
//!    queue lock, and every reference to another candidate is recorded as an edge and
//!    counted as *internal* to the child.
//! 3. A candidate with more references in flight than internal ones is held from
//!    outside (an fd list queued on a non-candidate, or one not queued yet): it is
//!    reachable, and so is every candidate it reaches along the edges.
//! 4. The queues of the others are moved to a hit list, freed after the unlock: their
//!    fds leave flight and their files are put, which releases the cycle.
//!
//! Why the snapshot is sound: everything that adds a reference in flight ([`attach`]),
//! takes one out ([`detach`], [`release`]) or duplicates one ([`peek`]) takes the same
//! lock, so counts and lists do not change during a run. An skb's fds are counted
//! before it is queued and until after it is unlinked, so an edge the walk misses only
//! makes its child look held from outside (kept, never freed in error). A candidate
//! cannot gain an fd during the run: only a receive or a peek from a queue could give
//! it one, and a process can only read the queue of a socket it holds, which is not a
//! candidate and so is counted as outside. Duplicating under the lock is what makes
//! `MSG_PEEK` safe here (AF_UNIX's "Give up GC if MSG_PEEK intervened").
//!
//! The run's scratch space (candidates, edges, the work list) is kept from one run to
//! the next ([`Scratch`]), grown outside the lock to the counts read under it. Counts
//! that grew meanwhile (a sender streaming fds) make the run grow it to twice them and
//! retry: a run never gives up to senders, only to an allocation failure.
//!
//! Runs are queued on the module's workqueue when a socket of this family is released
//! while fds are in flight, or by a sender when more than 16000 sockets' references
//! are in flight; a user with 2024 (8 × 253) fds of this family in flight waits for a
//! running collection before sending more sockets (AF_UNIX's `wait_for_unix_gc()`).
//!
//! Per-user accounting: the fds a user has in flight on this family (AF_UNIX's
//! `user_struct::unix_inflight`, kept here for this family alone) are checked against
//! `RLIMIT_NOFILE` on each send of fds (`ETOOMANYREFS` unless `CAP_SYS_RESOURCE` or
//! `CAP_SYS_ADMIN`).
//!
//! Each collector sees only its own family's queues, so no cycle may go through both:
//! this family refuses to carry an AF_UNIX socket ([`crate::files::push_fd`]). AF_UNIX
//! may carry this family's sockets; such a reference counts as held from outside (a
//! socket file's count above its references in flight here) until AF_UNIX puts it.
//!
//! Safe code only: the raw lists and queues, and the slot that publishes the collector,
//! are in [`crate::api::inflight`]; the fd lists in [`crate::files`].

#![deny(unsafe_code)]

use crate::api::error::ETOOMANYREFS;
use crate::api::inflight::{
    empty, new_gc_lock, ArcSlot, InflightList, Published, SkbList, NOT_CANDIDATE,
};
use crate::api::sock::SkState;
use crate::api::sock::{flush_work, QueuedSkb, Skb, Sock};
use crate::api::sync::SpinLock;
use crate::files::{FdList, Fds, SCM_MAX_FD};
use crate::scm::{self, Kuid};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use kernel::alloc::{flags::__GFP_NOWARN, flags::GFP_KERNEL, flags::GFP_NOWAIT, KVVec};
use kernel::prelude::*;
use kernel::rbtree::{RBTree, RBTreeNodeReservation};
use kernel::sync::{new_mutex, Arc, ArcBorrow, Mutex};
use kernel::workqueue::{Work, WorkItem};

/// More sockets' references in flight than this start a collection from a sender
/// (AF_UNIX's `UNIX_INFLIGHT_TRIGGER_GC`).
const TRIGGER_GC: usize = 16000;

/// A user with this many fds in flight waits for a running collection before sending
/// sockets (AF_UNIX's `UNIX_INFLIGHT_SANE_USER`).
const SANE_USER: usize = SCM_MAX_FD * 8;

/// Users whose count of fds in flight fell to zero and whose entry is kept, so that
/// a user who sends one fd at a time does not allocate and free an entry per message.
const IDLE_USERS: usize = 16;

/// What the collector's lock protects.
pub(crate) struct GcState {
    /// The sockets in flight and their counts.
    list: InflightList,
    /// Fds in flight on this family, per sending user (by kuid); up to [`IDLE_USERS`]
    /// entries are zero.
    users: RBTree<u32, usize>,
    /// Entries of `users` that are zero.
    idle: usize,
    /// Sockets on `list`.
    nsocks: usize,
    /// References to sockets' files in flight (the sum of their `inflight`).
    total: usize,
}

impl GcState {
    /// Counts `fds`, sent by `uid`, as in flight; `node` is the user's entry if it has
    /// none yet (allocated before the lock).
    fn account(&mut self, fds: &Fds, uid: Kuid, node: RBTreeNodeReservation<u32, usize>) {
        // An empty list (none is attached today) makes no entry: a zero entry is idle.
        if !self.account_user(fds, uid, u64::MAX) && fds.len() != 0 {
            self.users.insert(node.into_node(uid.0, fds.len()));
            self.account_socks(fds);
        }
    }

    /// Counts `fds`, sent by `uid`, as in flight if the user has an entry and no more
    /// than `limit` fds in flight; `false` (nothing counted) if not.
    #[inline]
    fn account_user(&mut self, fds: &Fds, uid: Kuid, limit: u64) -> bool {
        let Some(n) = self.users.get_mut(&uid.0) else {
            return false;
        };
        if *n as u64 > limit {
            return false;
        }
        let was_idle = *n == 0 && fds.len() != 0;
        *n += fds.len();
        if was_idle {
            self.idle = self.idle.saturating_sub(1);
        }
        self.account_socks(fds);
        true
    }

    /// Counts the sockets of this family among `fds` as in flight.
    fn account_socks(&mut self, fds: &Fds) {
        if fds.count_socks() == 0 {
            return;
        }
        for sk in fds.socks() {
            if self.list.get(sk) {
                self.nsocks += 1;
            }
            self.total += 1;
        }
    }

    /// Counts `fds`, sent by `uid`, out of flight.
    fn unaccount(&mut self, fds: &Fds, uid: Kuid) {
        let socks = if fds.count_socks() == 0 {
            None
        } else {
            Some(fds.socks())
        };
        for sk in socks.into_iter().flatten() {
            if self.list.put(sk) {
                self.nsocks = self.nsocks.saturating_sub(1);
            }
            self.total = self.total.saturating_sub(1);
        }
        if let Some(n) = self.users.get_mut(&uid.0) {
            if *n == 0 {
                return;
            }
            *n = n.saturating_sub(fds.len());
            if *n == 0 {
                if self.idle < IDLE_USERS {
                    self.idle += 1;
                } else {
                    self.users.remove(&uid.0);
                }
            }
        }
    }

    fn user_inflight(&self, uid: Kuid) -> usize {
        self.users.get(&uid.0).copied().unwrap_or(0)
    }
}

/// The scratch space of a run, kept between runs (only [`Gc::collect`] takes it).
struct Scratch {
    cands: KVVec<Cand>,
    edges: KVVec<(u32, u32)>,
    work: KVVec<u32>,
}

/// Empties `v` and makes room in it for `n` entries without an allocation under the
/// lock; a vector far larger than needed (a past run with many more sockets in flight)
/// is given back first.
fn fit<T: Copy>(v: &mut KVVec<T>, n: usize) -> Result {
    empty(v);
    if v.capacity() > n.max(1024).saturating_mul(4) {
        *v = KVVec::new();
    }
    // A failure is handled (the run ends): no warning for a size kvmalloc refuses.
    v.reserve(n, GFP_KERNEL | __GFP_NOWARN)?;
    Ok(())
}

/// The collector: its lock and state, and its work item.
///
/// `scratch` and `state` in the lock order: see [`crate::api`], "Lock order".
#[pin_data]
pub(crate) struct Gc {
    #[pin]
    state: SpinLock<GcState>,
    /// The run's scratch space.
    #[pin]
    scratch: Mutex<Scratch>,
    #[pin]
    work: Work<Gc>,
    /// A run is queued or running (AF_UNIX's `gc_in_progress`).
    in_progress: AtomicBool,
    /// `GcState::total`, for reads without the lock.
    total: AtomicUsize,
}

kernel::impl_has_work! {
    impl HasWork<Gc> for Gc { self.work }
}

impl WorkItem for Gc {
    type Pointer = Arc<Gc>;

    fn run(gc: Arc<Gc>) {
        gc.in_progress.store(true, Ordering::Relaxed);
        gc.collect();
        gc.in_progress.store(false, Ordering::Release);
    }
}

/// The collector of the loaded module.
static GC: ArcSlot<Gc> = ArcSlot::new();

/// The module's reference to the collector, published while it lives; dropped after
/// the module's workqueue (on which runs are queued) is destroyed and every socket of
/// this family is gone.
pub(crate) struct GcHandle {
    _gc: Published<Gc>,
}

impl GcHandle {
    /// Makes the collector and publishes it.
    pub(crate) fn new() -> Result<GcHandle> {
        let state = GcState {
            list: InflightList::new()?,
            users: RBTree::new(),
            idle: 0,
            nsocks: 0,
            total: 0,
        };
        let gc = Arc::pin_init(
            pin_init!(Gc {
                state <- new_gc_lock(state),
                scratch <- new_mutex!(
                    Scratch {
                        cands: KVVec::new(),
                        edges: KVVec::new(),
                        work: KVVec::new(),
                    },
                    "rust_afunix:gc_scratch"
                ),
                work <- kernel::new_work!("rust_afunix:gc"),
                in_progress: AtomicBool::new(false),
                total: AtomicUsize::new(0),
            }),
            GFP_KERNEL,
        )?;
        Ok(GcHandle {
            _gc: GC.publish(gc)?,
        })
    }
}

/// The collector, while the module is loaded.
#[inline]
fn gc() -> Option<ArcBorrow<'static, Gc>> {
    GC.get()
}

/// Queues a run (AF_UNIX's `unix_gc()`).
#[cold]
#[inline(never)]
fn schedule(gc: ArcBorrow<'_, Gc>) {
    // No queue: the module is going, no socket is left.
    let Some(q) = crate::api::workqueue::queue() else {
        return;
    };
    gc.in_progress.store(true, Ordering::Relaxed);
    // Already queued: that run will do.
    let _ = q.enqueue(Arc::from(gc));
}

/// A socket of this family is released: collect if fds are in flight.
pub(crate) fn on_release() {
    if let Some(gc) = gc() {
        if gc.total.load(Ordering::Relaxed) != 0 {
            schedule(gc);
        }
    }
}

/// Before a send of `fds` (AF_UNIX's `wait_for_unix_gc()`): starts a collection when
/// too many sockets are in flight, and makes a user with too many fds in flight wait
/// for the running one before sending more sockets.
#[inline]
pub(crate) fn throttle(fds: Option<&Fds>) {
    let Some(gc) = gc() else {
        return;
    };
    if gc.total.load(Ordering::Relaxed) > TRIGGER_GC && !gc.in_progress.load(Ordering::Relaxed) {
        schedule(gc);
    }
    if let Some(fds) = fds {
        if fds.count_socks() != 0 {
            throttle_user(gc);
        }
    }
}

/// The sender passes sockets: waits for a running collection if its user has too many
/// fds in flight.
#[cold]
#[inline(never)]
fn throttle_user(gc: ArcBorrow<'_, Gc>) {
    let uid = scm::current_cred().uid;
    if gc.state.lock().user_inflight(uid) < SANE_USER {
        return;
    }
    if gc.in_progress.load(Ordering::Acquire) {
        flush_work(&gc.work);
    }
}

/// Attaches `fds` to `skb`, counted as in flight and charged to the caller's user
/// (`unix_attach_fds()`): `ETOOMANYREFS` when the user's fds in flight exceed its
/// `RLIMIT_NOFILE` without `CAP_SYS_RESOURCE` or `CAP_SYS_ADMIN`.
pub(crate) fn attach(skb: &mut Skb, fds: FdList) -> Result {
    let gc = gc().ok_or(EINVAL)?;
    let uid = scm::current_cred().uid;
    let limit = scm::rlimit_nofile();
    // The common case, in one lock: the user has an entry (fds in flight, or one of
    // the idle entries kept), under its limit (no allocation, no capability check).
    {
        let mut g = gc.state.lock();
        if g.account_user(&fds, uid, limit) {
            gc.total.store(g.total, Ordering::Relaxed);
            drop(g);
            skb.set_fds(fds, uid);
            return Ok(());
        }
    }
    // Over the limit (the capability check may sleep: not under the lock), or a user
    // without an entry (none in flight, none kept idle: the entry is allocated before
    // the lock).
    let node = RBTreeNodeReservation::new(GFP_KERNEL)?;
    let over = gc.state.lock().user_inflight(uid) as u64 > limit;
    if over && !scm::capable(scm::cap::SYS_RESOURCE) && !scm::capable(scm::cap::SYS_ADMIN) {
        return Err(ETOOMANYREFS.into());
    }
    {
        let mut g = gc.state.lock();
        g.account(&fds, uid, node);
        gc.total.store(g.total, Ordering::Relaxed);
    }
    skb.set_fds(fds, uid);
    Ok(())
}

/// Counts `fds`, sent by `uid`, out of flight (an skb's destructor, or a list taken
/// from an skb), before its files are put or installed.
fn unaccount(fds: &Fds, uid: Kuid) {
    if let Some(gc) = gc() {
        let mut g = gc.state.lock();
        g.unaccount(fds, uid);
        gc.total.store(g.total, Ordering::Relaxed);
    }
}

/// The destructor of an skb that still carries `fds`: out of flight, then put.
pub(crate) fn release(fds: FdList, uid: Kuid) {
    unaccount(&fds, uid);
    drop(fds);
}

/// Takes the fds of a received datagram (`unix_detach_fds()`), out of flight, to be
/// installed; `sk` is the receiving socket.
pub(crate) fn detach(skb: &mut Skb, sk: &Sock) -> Option<FdList> {
    let (fds, uid) = skb.take_fds(sk)?;
    unaccount(&fds, uid);
    Some(fds)
}

/// Takes the fds of a stream skb that stays queued (part of it is unread), out of
/// flight, to be installed.
pub(crate) fn detach_queued(skb: &mut QueuedSkb<'_>) -> Option<FdList> {
    skb.fds()?;
    let gc = gc()?;
    let mut g = gc.state.lock();
    let (fds, uid) = skb.take_fds(&mut g.list)?;
    g.unaccount(&fds, uid);
    gc.total.store(g.total, Ordering::Relaxed);
    Some(fds)
}

/// Duplicates `fds` for a `MSG_PEEK` (`unix_peek_fds()`): new references to the same
/// files, taken under the collector's lock so that a run sees either none of them or
/// all. `None` without memory (AF_UNIX then delivers no fds either).
pub(crate) fn peek(fds: &Fds) -> Option<FdList> {
    let new = FdList::with_capacity(fds.len()).ok()?;
    let gc = gc()?;
    let _g = gc.state.lock();
    Some(new.dup_of(fds))
}

/// One candidate of a run (12 bytes).
#[derive(Clone, Copy)]
struct Cand {
    /// References to its file in flight.
    inflight: u32,
    /// Those in the queues of candidates.
    internal: u32,
    /// Held from outside, directly or through other candidates.
    reachable: bool,
}

impl Gc {
    /// One collection: the scratch space is made large enough before the lock, for
    /// the counts read under it; a run that finds more than it has room for grows it
    /// and starts over, until it fits or an allocation fails.
    fn collect(&self) {
        let mut s = self.scratch.lock();
        let s = &mut *s;
        // Without memory the run ends, garbage left to a later run. AF_UNIX's run needs
        // none: it allocates at the send (an fd list's graph, the send fails ENOMEM).
        let Ok(hit) = SkbList::new() else {
            return;
        };
        // Sized from the counts read in a first, short hold of the lock: usually still
        // right when the lock is taken again for the run.
        let (mut n, mut e) = {
            let g = self.state.lock();
            (g.nsocks, g.total)
        };
        loop {
            if fit(&mut s.cands, n).is_err()
                || fit(&mut s.edges, e).is_err()
                || fit(&mut s.work, n).is_err()
            {
                return;
            }
            // The room there is (a past run's may be more than asked for).
            let room = s.cands.capacity().min(s.work.capacity());
            let room_e = s.edges.capacity();
            let mut g = self.state.lock();
            if g.nsocks <= room && g.total <= room_e {
                analyse(&mut g.list, &mut s.cands, &mut s.edges, &mut s.work, &hit);
                drop(g);
                // Frees the garbage's skbs: their fds leave flight and their files are
                // put.
                drop(hit);
                return;
            }
            // Outgrown while allocating: room for twice the counts seen, so each retry
            // at least doubles the room of `n` or `e`. kvmalloc refuses over INT_MAX
            // bytes: within about 60 retries it fits, or an allocation fails (the end).
            if g.nsocks > room {
                n = g.nsocks.saturating_mul(2);
            }
            if g.total > room_e {
                e = g.total.saturating_mul(2);
            }
        }
    }
}

/// Steps 1-4 of a run (see the module's documentation), under the collector's lock
/// (`list`); the vectors have room for every socket in flight and every reference in
/// flight. The queues of the garbage are moved to `hit`.
fn analyse(
    list: &mut InflightList,
    cands: &mut KVVec<Cand>,
    edges: &mut KVVec<(u32, u32)>,
    work: &mut KVVec<u32>,
    hit: &SkbList,
) {
    // 1. The candidates: fds in the queue (a listener's count walks its queue: such a
    // socket is taken as it is), and no reference outside flight. The queue's count is
    // in the socket, the file's count two pointers away: a leaf is told first. The
    // candidates move to the front of the list, so that the later steps walk only
    // them, not the leaves.
    let ncands = list.pick_front(|list, sk| {
        let inflight = list.inflight(sk);
        if (sk.state() != SkState::Listen && sk.queued_fds() == 0) || list.file_refs(sk) != inflight
        {
            list.set_index(sk, NOT_CANDIDATE);
            return false;
        }
        let c = Cand {
            inflight: u32::try_from(inflight).unwrap_or(u32::MAX),
            internal: 0,
            reachable: false,
        };
        let i = cands.len() as u32;
        if cands.push(c, GFP_NOWAIT).is_ok() {
            list.set_index(sk, i);
            true
        } else {
            list.set_index(sk, NOT_CANDIDATE);
            false
        }
    });
    let list: &InflightList = list;
    // 2. The references between candidates, from their queues.
    for sk in list.iter().take(ncands) {
        let from = list.index(sk);
        // The first `ncands` sockets are the candidates (step 1 moved them there);
        // checked anyway.
        if from == NOT_CANDIDATE {
            continue;
        }
        sk.scan_fds(list, |fds| {
            for child in fds.socks() {
                // Every socket in a queued list is in flight, so its index is this
                // run's (a leaf's is `NOT_CANDIDATE`); checked anyway.
                let to = list.index(child);
                if to == NOT_CANDIDATE || list.inflight(child) == 0 {
                    continue;
                }
                // Without room the edge is not recorded, nor counted internal: the
                // child then looks held from outside (kept).
                if edges.push((from, to), GFP_NOWAIT).is_ok() {
                    if let Some(c) = cands.get_mut(to as usize) {
                        c.internal = c.internal.saturating_add(1);
                    }
                }
            }
        });
    }
    // 3. Held from outside: more references in flight than in candidates' queues.
    // `work` has room for every candidate, each pushed once; were a push to fail, what
    // that candidate reaches would not be marked, so nothing is freed in that case.
    let mut complete = true;
    for (i, c) in cands.iter_mut().enumerate() {
        if c.inflight > c.internal {
            c.reachable = true;
            complete &= work.push(i as u32, GFP_NOWAIT).is_ok();
        }
    }
    // ... and what they reach.
    edges.sort_unstable();
    let mut next = 0;
    while let Some(&from) = work.get(next) {
        next += 1;
        let start = edges.partition_point(|&(f, _)| f < from);
        for &(f, to) in edges.get(start..).unwrap_or(&[]) {
            if f != from {
                break;
            }
            if let Some(c) = cands.get_mut(to as usize) {
                if !c.reachable {
                    c.reachable = true;
                    complete &= work.push(to, GFP_NOWAIT).is_ok();
                }
            }
        }
    }
    if !complete {
        return;
    }
    // 4. The rest is garbage: its queues go to the hit list.
    for sk in list.iter().take(ncands) {
        let i = list.index(sk);
        if cands.get(i as usize).is_some_and(|c| !c.reachable) {
            // A queue whose reader lock is held (a reader raced the analysis: not
            // garbage after all) stays, for the next run.
            let _ = sk.splice_queues(list, hit);
        }
    }
}
