// SPDX-License-Identifier: GPL-2.0

//! Skbs: owned (`Skb`), borrowed (`SkbView`), the module's control block (`SkbCb`),
//! the destructor of the module's data skbs, and the skb size limits.

use super::*;

/// The module's part of an skb's control block (`skb->cb`).
#[repr(C)]
pub(crate) struct SkbCb {
    /// Bytes of a stream skb already read (AF_UNIX's `UNIXCB(skb).consumed`).
    pub(crate) consumed: kernel::ffi::c_uint,
    /// The skb carries an embryo to its listener, and the embryo's reference.
    pub(crate) embryo: bool,
    /// The sender's credentials (AF_UNIX's `UNIXCB(skb).pid`): a reference to a pid,
    /// or NULL for an skb without credentials; put by the skb's destructor.
    pub(crate) pid: *mut bindings::pid,
    /// With `pid`, the credentials' user (`INVALID_UID` without credentials).
    pub(crate) uid: bindings::kuid_t,
    /// With `pid`, the credentials' group (`INVALID_GID` without credentials).
    pub(crate) gid: bindings::kgid_t,
    /// The files of `SCM_RIGHTS` (AF_UNIX's `UNIXCB(skb).fp`): an fd list in flight,
    /// accounted by [`crate::gc`], or NULL. Read by the collector under its lock and
    /// the queue's lock; taken from a queued skb only under both the reader lock and
    /// the collector's lock.
    pub(crate) fp: *mut bindings::scm_fp_list,
    /// With `fp`, the sending user, whose count of fds in flight includes them.
    pub(crate) fp_uid: bindings::kuid_t,
    /// The sender's LSM security id (AF_UNIX's `UNIXCB(skb).secid`), 0 without one.
    pub(crate) secid: u32,
    /// Coalesced writes may be appended to the skb, which one made
    /// ([`Skb::alloc_from_bytes`]): linear, without fds, not the out-of-band byte (both
    /// are boundaries a read stops at). Set before the skb is queued; cleared by its
    /// reader under the state lock ([`QueuedSkb::close_to_appends`]).
    pub(crate) open: bool,
}

// The module's part must fit in the skb's control block.
const _: () = assert!(core::mem::size_of::<SkbCb>() <= bindings::AFUNIX_SKB_CB_SIZE as usize);

/// An skb owned by the module: freed on drop unless handed on.
///
/// # Invariants
///
/// `self.0` is a valid skb that this value owns.
pub(crate) struct Skb(NonNull<bindings::sk_buff>);

impl Skb {
    /// # Safety
    ///
    /// The caller must own `ptr` and give it up.
    pub(in crate::api) unsafe fn from_raw(ptr: NonNull<bindings::sk_buff>) -> Skb {
        // INVARIANT: Ownership comes from the caller.
        Skb(ptr)
    }

    /// An skb of `head` linear and `data_len` fragment bytes (none of them in use yet),
    /// charged to `sk`'s send buffer, waiting for room unless `nonblock`
    /// (`sock_alloc_send_pskb()`), with the module's destructor of kind `D`.
    pub(super) fn alloc_charged<D: SkbDestructor>(
        sk: &Sock,
        head: usize,
        data_len: usize,
        nonblock: bool,
        order: i32,
    ) -> Result<Skb> {
        let mut err: c_int = 0;
        // SAFETY: `sk` is a live socket; `err` is a valid out pointer.
        let skb = unsafe {
            bindings::sock_alloc_send_pskb(
                sk.as_ptr(),
                head as kernel::ffi::c_ulong,
                data_len as kernel::ffi::c_ulong,
                nonblock.into(),
                &mut err,
                order,
            )
        };
        let Some(skb) = NonNull::new(skb) else {
            return Err(Error::from_errno(if err < 0 { err } else { -12 }));
        };
        // SAFETY: `sock_alloc_send_pskb` returned a new skb that we own.
        let skb = unsafe { Skb::from_raw(skb) };
        // SAFETY: Its `cb` is zeroed (no credentials yet);
        // `skb_wfree` is `sock_wfree` (set by the allocation, charging it to `sk`) after putting the credentials, as AF_UNIX's `unix_wfree`.
        unsafe {
            (*skb.0.as_ptr())
                .__bindgen_anon_3
                .__bindgen_anon_1
                .destructor = Some(skb_wfree::<D>);
        }
        Ok(skb)
    }

    /// Allocates an skb charged to `sk`'s send buffer, with `len` bytes of which
    /// `data_len` in page fragments, waiting for room unless `nonblock`
    /// (`sock_alloc_send_pskb()`); then calls `prepare` on it (credentials and fds, as
    /// AF_UNIX's `unix_scm_to_skb()` before the copy) and copies `len` bytes from `msg`
    /// into it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn alloc_from_msg<D: SkbDestructor>(
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        data_len: usize,
        nonblock: bool,
        order: i32,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<Skb> {
        let head = len
            .checked_sub(data_len)
            .ok_or_else(|| Error::from(EMSGSIZE))?;
        let mut skb = Self::alloc_charged::<D>(sk, head, data_len, nonblock, order)?;
        let p = skb.0.as_ptr();
        // SAFETY: The skb has `head` bytes of tailroom and `data_len` bytes of frags, as
        // AF_UNIX lays them out (`skb_put` + `data_len`/`len`).
        unsafe {
            bindings::skb_put(p, head as u32);
            (*p).data_len = data_len as u32;
            (*p).len = len as u32;
        }
        prepare(&mut skb)?;
        let iter = msg.iter();
        // SAFETY: `p` has room for `len` bytes; `iter` is the message's iterator.
        to_result(unsafe { bindings::skb_copy_datagram_from_iter(p, 0, iter, len as c_int) })?;
        Ok(skb)
    }

    /// Allocates a linear skb charged to `sk`'s send buffer, waiting for room unless
    /// `nonblock`, calls `prepare` on it, and copies `data` into it: a stream write
    /// already copied from the caller (`net.rust_afunix.stream_coalesce`), to which
    /// later ones may be appended (`open`).
    pub(crate) fn alloc_from_bytes<D: SkbDestructor>(
        sk: &Sock,
        data: &[u8],
        nonblock: bool,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<Skb> {
        let n = u32::try_from(data.len()).map_err(|_| Error::from(EMSGSIZE))?;
        let mut skb = Self::alloc_charged::<D>(sk, data.len(), 0, nonblock, 0)?;
        prepare(&mut skb)?;
        // SAFETY: The skb has `n` bytes of tail room (allocated so); `data` is `n`
        // readable bytes. Not queued yet: its `cb` is ours alone.
        unsafe {
            bindings::afunix_skb_put_data(skb.0.as_ptr(), data.as_ptr().cast(), n);
            (*skb.view().cb()).open = true;
        }
        Ok(skb)
    }

    /// Allocates an skb with no data charged to `sk`'s send buffer, waiting for room
    /// unless `nonblock` (`sock_alloc_send_pskb(sk, 0, 0, ..)`); calls `prepare` on it;
    /// then takes up to `len` bytes of the pages of `msg`'s iterator as its fragments,
    /// without copying (`skb_splice_from_iter()`, for `MSG_SPLICE_PAGES`), and charges
    /// them to `sk`. Returns the skb and the bytes it took (at least one).
    pub(crate) fn alloc_spliced<D: SkbDestructor>(
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        nonblock: bool,
        prepare: impl FnOnce(&mut Skb) -> Result,
    ) -> Result<(Skb, usize)> {
        let mut skb = Self::alloc_charged::<D>(sk, 0, 0, nonblock, 0)?;
        let p = skb.0.as_ptr();
        // SAFETY: Our new skb. The spliced pages need no checksum
        // (`CHECKSUM_UNNECESSARY`, as AF_UNIX).
        unsafe { bindings::afunix_skb_set_csum_unnecessary(p) };
        prepare(&mut skb)?;
        let len = isize::try_from(len).map_err(|_| Error::from(EMSGSIZE))?;
        #[cfg(kline_6_12)]
        // SAFETY: `p` is our skb; `msg.iter()` is the message's iterator; `skb_splice_from_iter`
        // takes page references into the skb's fragments and grows its `len`,
        // `data_len` and `truesize` by what it took.
        let n = unsafe {
            bindings::skb_splice_from_iter(p, msg.iter(), len, (*sk.as_ptr()).sk_allocation)
        };
        // 6.19 dropped the unused allocation flags.
        #[cfg(kline_7_3)]
        // SAFETY: As above.
        let n = unsafe { bindings::skb_splice_from_iter(p, msg.iter(), len) };
        if n < 0 {
            return Err(Error::from_errno(n as c_int));
        }
        if n == 0 {
            // Nothing left in the iterator: `len` was more than it held.
            return Err(kernel::error::code::EINVAL);
        }
        // The skb's `truesize` grew by `n`: so does the charge `sock_wfree` takes back.
        // SAFETY: `sk` is a live socket.
        unsafe { bindings::afunix_wmem_charge(sk.as_ptr(), n as u32) };
        Ok((skb, n as usize))
    }

    /// The one-byte skb that carries `embryo` to a listener, charged to the embryo
    /// (`sock_wmalloc(newsk, 1, 0, GFP_KERNEL)`).
    pub(super) fn embryo_carrier(embryo: &Sock) -> Result<Skb> {
        // SAFETY: `embryo` is a live socket; process context, no locks held.
        let skb = unsafe { bindings::afunix_embryo_skb(embryo.as_ptr()) };
        let skb = NonNull::new(skb).ok_or(kernel::error::code::ENOMEM)?;
        // SAFETY: A new skb that we own.
        Ok(unsafe { Skb::from_raw(skb) })
    }

    /// Takes the embryo reference out of a carrier skb (see `Sock::queue_embryo`).
    pub(super) fn take_embryo(&self) -> Option<ARef<Sock>> {
        let cb = self.view().cb();
        // SAFETY: We own the skb; `cb` is the module's.
        unsafe {
            if !(*cb).embryo {
                return None;
            }
            // SAFETY: A carrier skb is charged to its embryo (`skb->sk`, never NULL
            // for one), and `queue_embryo` moved a reference to it into the skb.
            let sk = NonNull::new(bindings::afunix_skb_sock(self.0.as_ptr()))?;
            (*cb).embryo = false;
            // Off its listener's queue (set by `queue_embryo`).
            let u = sk.as_ptr().cast::<UnixSock>();
            ptr::addr_of_mut!((*u).unix.listener).write_volatile(ptr::null_mut());
            Some(ARef::from_raw(sk.cast()))
        }
    }

    /// `__skb_wait_for_more_packets()`: sleeps until something is queued after `mark`,
    /// an error, the end of the stream, a signal or the end of `*timeo`. `Ok(true)`: try
    /// again; `Ok(false)`: end of file (receive side shut down).
    pub(crate) fn wait_for_more(sk: &Sock, timeo: &mut isize, mark: &QueueMark) -> Result<bool> {
        let mut err: c_int = 0;
        let p = sk.as_ptr();
        // SAFETY: `sk` is live and no lock is held; `mark.0` is only compared.
        let r = unsafe {
            bindings::__skb_wait_for_more_packets(
                p,
                bindings::afunix_rcvq(p),
                &mut err,
                timeo,
                mark.0,
            )
        };
        if r == 0 {
            Ok(true)
        } else if err < 0 {
            Err(Error::from_errno(err))
        } else {
            Ok(false)
        }
    }

    /// Attaches credentials to a data skb of [`Skb::alloc_from_msg`] (AF_UNIX's
    /// `unix_scm_to_skb()`), with a pid reference of its own, put by its destructor.
    pub(crate) fn set_creds(&mut self, creds: &Creds) {
        let pid = creds.pid.clone().map_or(ptr::null_mut(), Pid::into_raw);
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`. The
        // old pid, if any, was a reference the skb held (put here, as it is replaced).
        unsafe {
            let old = core::mem::replace(&mut (*cb).pid, pid);
            (*cb).uid = bindings::kuid_t { val: creds.uid.0 };
            (*cb).gid = bindings::kgid_t { val: creds.gid.0 };
            // A new skb has none: no call (`put_pid` of NULL does nothing).
            if !old.is_null() {
                bindings::put_pid(old);
            }
        }
    }

    /// Stamps the skb with the time of day (`__net_timestamp()`), for a receiver with
    /// `SO_TIMESTAMP`.
    pub(crate) fn net_timestamp(&mut self) {
        // SAFETY: We own the skb; its `tstamp` is written before it is queued.
        unsafe { bindings::afunix_net_timestamp(self.view().as_ptr()) };
    }

    /// Records the sender's security id (`unix_get_secdata()`).
    pub(crate) fn set_secid(&mut self, secid: u32) {
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`.
        unsafe { (*self.view().cb()).secid = secid };
    }

    /// A shared view of the skb.
    pub(crate) fn view(&self) -> &SkbView {
        // SAFETY: `self.0` is valid while `self` lives.
        unsafe { SkbView::from_raw(self.0.as_ptr()) }
    }

    /// Frees a datagram after a receive (`skb_free_datagram()`).
    pub(crate) fn free_datagram(self, sk: &Sock) {
        let p = self.into_raw();
        // SAFETY: We own `p`, and `sk` is the socket it was received on.
        unsafe { bindings::skb_free_datagram(sk.as_ptr(), p) };
    }

    /// Frees the skb as dropped on close (`SKB_DROP_REASON_SOCKET_CLOSE`).
    pub(super) fn drop_on_close(self) {
        let p = self.into_raw();
        // SAFETY: We own `p`.
        unsafe {
            bindings::sk_skb_reason_drop(
                ptr::null_mut(),
                p,
                bindings::skb_drop_reason_SKB_DROP_REASON_SOCKET_CLOSE,
            )
        };
    }

    pub(super) fn into_raw(self) -> *mut bindings::sk_buff {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl Drop for Skb {
    fn drop(&mut self) {
        // SAFETY: We own the skb (type invariant).
        unsafe {
            bindings::sk_skb_reason_drop(
                ptr::null_mut(),
                self.0.as_ptr(),
                bindings::skb_drop_reason_SKB_DROP_REASON_NOT_SPECIFIED,
            )
        };
    }
}

/// What the destructor of a data skb does with the files of `SCM_RIGHTS` it carries.
pub(crate) trait SkbDestructor {
    /// Takes the files `fds` (sent by `uid`) out of flight and puts them
    /// (`unix_destruct_scm()`); from the skb's destructor, in any context the last
    /// `kfree_skb` of an skb runs in.
    fn release_fds(fds: FdList, uid: Kuid);
}

/// The destructor of the module's data skbs (AF_UNIX's `unix_wfree()`): puts the pid
/// reference of the credentials and hands the files of `SCM_RIGHTS` to `D`, then gives
/// the memory back to the sending socket (`sock_wfree()`, which calls its
/// `sk_write_space`).
///
/// # Safety
///
/// Called by the core only, as the destructor of an skb of [`Skb::alloc_from_msg`],
/// [`Skb::alloc_from_bytes`] or [`Skb::alloc_spliced`] whose last reference is gone.
pub(super) unsafe extern "C" fn skb_wfree<D: SkbDestructor>(skb: *mut bindings::sk_buff) {
    // SAFETY: `skb` is being freed, so no one else uses its `cb`, the module's; a
    // non-NULL pid is a reference the skb held. The skb is charged to its sender
    // (`sock_alloc_send_pskb`), which `sock_wfree` releases.
    let fds = unsafe {
        let cb = SkbView::from_raw(skb).cb();
        let pid = core::mem::replace(&mut (*cb).pid, ptr::null_mut());
        if !pid.is_null() {
            bindings::put_pid(pid);
        }
        let fp = core::mem::replace(&mut (*cb).fp, ptr::null_mut());
        // SAFETY: A non-NULL `fp` is a list in flight that the skb owned.
        NonNull::new(fp).map(|fp| (FdList::from_raw(fp), Kuid((*cb).fp_uid.val)))
    };
    // Out of flight before its files are put (`unix_destruct_scm()`).
    if let Some((fds, uid)) = fds {
        D::release_fds(fds, uid);
    }
    // SAFETY: The skb is charged to its sender (see above).
    unsafe { bindings::sock_wfree(skb) };
}

/// The last skb of a receive queue that a reader saw: only compared, never followed.
pub(crate) struct QueueMark(pub(super) *mut bindings::sk_buff);

/// A borrowed skb.
#[repr(transparent)]
pub(crate) struct SkbView(Opaque<bindings::sk_buff>);

impl SkbView {
    /// # Safety
    ///
    /// `ptr` must be a valid skb for `'a`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut bindings::sk_buff) -> &'a SkbView {
        // CAST: `SkbView` is `repr(transparent)` over `struct sk_buff`.
        // SAFETY: Validity for `'a` is guaranteed by the caller.
        unsafe { &*ptr.cast() }
    }

    pub(crate) fn as_ptr(&self) -> *mut bindings::sk_buff {
        self.0.get()
    }

    /// The skb's length in bytes. Once the skb is queued, only a coalesced stream write
    /// changes it, growing it after writing the bytes ([`StateGuard::append_to_tail`]):
    /// read with acquire, the bytes below it are written.
    pub(crate) fn len(&self) -> u32 {
        // SAFETY: The skb is valid; `len` is only written atomically (release) once it
        // is queued.
        unsafe {
            AtomicU32::from_ptr(ptr::addr_of_mut!((*self.as_ptr()).len)).load(Ordering::Acquire)
        }
    }

    pub(in crate::api) fn cb(&self) -> *mut SkbCb {
        // SAFETY: The skb is valid.
        let cb = unsafe { ptr::addr_of_mut!((*self.as_ptr()).cb) };
        // CAST: `cb` (48 bytes, 8-aligned) holds the module's `SkbCb`.
        cb.cast()
    }

    /// The address of the socket that sent this skb (`unix_copy_addr(msg, skb->sk)`).
    ///
    /// The sender's memory and address live at least as long as the skb: the skb is
    /// charged to it, and its destructor (which frees the address) waits for its
    /// charged skbs.
    pub(crate) fn sender_addr(&self) -> Option<&Address> {
        // SAFETY: The skb is valid; a data skb of this family is charged to its
        // sender, a socket of this family (see above). Only the `addr` field is read,
        // atomically, as `Sock::addr_ref` does.
        unsafe {
            let sk = bindings::afunix_skb_sock(self.as_ptr());
            if sk.is_null() {
                return None;
            }
            let u = sk.cast::<UnixSock>();
            let slot = AtomicPtr::<UnixAddress>::from_ptr(ptr::addr_of_mut!((*u).unix.addr).cast());
            slot.load(Ordering::Acquire).as_ref().map(|a| &**a)
        }
    }

    /// The credentials the skb carries (AF_UNIX's `UNIXCB(skb).pid/uid/gid`), with a
    /// pid reference of their own.
    pub(crate) fn creds(&self) -> Creds {
        let cb = self.cb();
        // SAFETY: `cb` is the module's; its credentials are written only while one
        // owner holds the skb unqueued (`Skb::set_creds`), before it is queued under
        // the receiver's locks that the reader took to find it (`IoGuard::peek`, the
        // queue lock of a datagram receive), and by the destructor, which cannot run
        // while this view exists. A non-NULL pid is held by the skb.
        unsafe {
            Creds {
                pid: Pid::get((*cb).pid),
                uid: Kuid((*cb).uid.val),
                gid: Kgid((*cb).gid.val),
            }
        }
    }

    /// Whether the skb carries credentials (a pid).
    pub(crate) fn creds_present(&self) -> bool {
        // SAFETY: As in `creds`; the pid is only compared to NULL.
        unsafe { !(*self.cb()).pid.is_null() }
    }

    /// Whether the skb carries the same credentials as `creds` (`unix_skb_scm_eq()`:
    /// the same `struct pid`, uid and gid).
    pub(crate) fn same_creds(&self, creds: &Creds) -> bool {
        let cb = self.cb();
        // SAFETY: As in `creds`; the pid is only compared.
        unsafe {
            same_pid(creds.pid.as_ref(), (*cb).pid)
                && (*cb).uid.val == creds.uid.0
                && (*cb).gid.val == creds.gid.0
        }
    }

    /// Puts the skb's timestamp into `m`, a receive by `sk`, as `SO_TIMESTAMP*` asks
    /// (`__sock_recv_timestamp()`: `SCM_TIMESTAMP`, `SCM_TIMESTAMPNS` or
    /// `SCM_TIMESTAMPING`).
    pub(crate) fn recv_timestamp(&self, sk: &Sock, m: &mut Msg) {
        // SAFETY: `m` is a valid message (type invariant of `Msg`); `sk` is the live
        // socket the skb was received on, and the skb is valid while `self` is.
        unsafe { bindings::__sock_recv_timestamp(m.as_ptr(), sk.as_ptr(), self.as_ptr()) };
    }

    /// The sender's security id (`unix_set_secdata()`); set before the skb is queued.
    pub(crate) fn secid(&self) -> u32 {
        // SAFETY: `cb` is the module's; `secid` is written only before queueing.
        unsafe { (*self.cb()).secid }
    }

    /// `consumed` of the module's `cb`: written by the reader (under the reader lock),
    /// read also by `SIOCINQ` under the queue lock only, so atomic.
    pub(super) fn consumed_slot(&self) -> &AtomicU32 {
        // SAFETY: `cb` is the module's, zeroed at allocation; `consumed` is an aligned
        // `u32` accessed only atomically once the skb is queued.
        unsafe { AtomicU32::from_ptr(ptr::addr_of_mut!((*self.cb()).consumed)) }
    }

    /// Bytes of a stream skb already read.
    pub(crate) fn consumed(&self) -> u32 {
        self.consumed_slot().load(Ordering::Relaxed)
    }

    /// Unread bytes of a stream skb.
    pub(crate) fn unread(&self) -> u32 {
        self.len().saturating_sub(self.consumed())
    }

    /// Moves up to `len` bytes from `offset` into `pipe` (`skb_splice_bits()`): the
    /// bytes moved. That routine reads the skb's length: a stream reader closes the skb
    /// to appends first ([`QueuedSkb::close_to_appends`]).
    pub(crate) fn splice_to(
        &self,
        sk: &Sock,
        offset: u32,
        pipe: &Pipe,
        len: usize,
    ) -> Result<usize> {
        let len = self.check_range(offset, len)?;
        // SAFETY: The skb is valid and holds `offset + len` bytes (checked); `sk` is a
        // live socket; `pipe` is the pipe of the current `splice_read` call.
        let r = unsafe {
            bindings::skb_splice_bits(
                self.as_ptr(),
                sk.as_ptr(),
                offset,
                pipe.ptr,
                len,
                pipe.flags,
            )
        };
        to_result(r.min(0))?;
        Ok(r as usize)
    }

    /// Copies `len` bytes from `offset` into `msg` (`skb_copy_datagram_msg()`).
    pub(crate) fn copy_to_msg(&self, offset: u32, msg: &mut Msg, len: usize) -> Result {
        let len = self.check_range(offset, len)?;
        let iter = msg.iter();
        let p = self.as_ptr();
        // SAFETY: The skb is valid and holds `offset + len` bytes (checked against its
        // published length), both below `i32::MAX`. `open` is written after the skb is
        // queued only by the holder of its reader lock, the one caller that copies from a
        // queued stream skb ([`QueuedSkb::close_to_appends`]).
        to_result(unsafe {
            // An append may write `len` meanwhile, which `skb_copy_datagram_iter()`
            // reads: an open skb, linear, is copied without reading it (and without
            // that routine's tracepoint, which modules cannot fire).
            if (*self.cb()).open {
                bindings::afunix_skb_copy_linear(p, offset as c_int, iter, len as c_int)
            } else {
                bindings::skb_copy_datagram_iter(p, offset as c_int, iter, len as c_int)
            }
        })
    }

    /// `len` as a `u32`, if the `len` bytes from `offset` are within the skb's published
    /// length and its offsets fit C's `int`; else `EFAULT`, as a bad copy would give.
    fn check_range(&self, offset: u32, len: usize) -> Result<u32> {
        let len = u32::try_from(len).map_err(|_| kernel::error::code::EFAULT)?;
        let end = offset.checked_add(len).ok_or(kernel::error::code::EFAULT)?;
        if end > self.len() || end > i32::MAX as u32 {
            return Err(kernel::error::code::EFAULT);
        }
        Ok(len)
    }
}

/// The pipe of a `splice_read` call, and its splice flags.
pub(crate) struct Pipe {
    ptr: *mut bindings::pipe_inode_info,
    flags: u32,
}

impl Pipe {
    /// # Safety
    ///
    /// `ptr` is the pipe of the current `proto_ops::splice_read` call, valid for the
    /// lifetime of the returned value.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::pipe_inode_info, flags: u32) -> Pipe {
        Pipe { ptr, flags }
    }
}

/// AF_UNIX's `UNIX_SKB_FRAGS_SZ` (`PAGE_SIZE << get_order(32768)`): the paged part of
/// one stream skb at most, 32 KiB rounded up to whole pages in a power of two.
pub(super) const STREAM_FRAGS_SIZE: usize = {
    let page = bindings::AFUNIX_PAGE_SIZE as usize;
    page << 32768usize
        .div_ceil(page)
        .next_power_of_two()
        .trailing_zeros()
};

/// `SKB_MAX_ALLOC`, `SKB_MAX_HEAD(0)` and AF_UNIX's `UNIX_SKB_FRAGS_SZ`.
pub(crate) fn skb_limits() -> (usize, usize, usize) {
    // SAFETY: No requirements.
    unsafe {
        (
            bindings::afunix_skb_max_alloc() as usize,
            bindings::afunix_skb_max_head0() as usize,
            STREAM_FRAGS_SIZE,
        )
    }
}

/// `SCM_RIGHTS` on skbs (the collector's list of sockets in flight, and its walk of
/// their queues, are in [`crate::api::inflight`]).
impl Skb {
    /// Attaches an fd list sent by `uid` to a data skb of [`Skb::alloc_from_msg`], not
    /// queued yet (AF_UNIX's `unix_attach_fds()`); the list must be accounted as in
    /// flight (by the collector) before, and is put by the skb's destructor unless
    /// taken back.
    pub(crate) fn set_fds(&mut self, fds: FdList, uid: Kuid) {
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is not queued: no one else reads its `cb`.
        // A data skb of `alloc_from_msg` starts with a NULL `fp`.
        unsafe {
            (*cb).fp = fds.into_raw();
            (*cb).fp_uid = bindings::kuid_t { val: uid.0 };
        }
    }

    /// Takes the fd list out of an skb this value owns (unlinked: the collector cannot
    /// see it), with its sender, and counts the fds out of `sk`'s `scm_fds:` (`sk` is
    /// the socket it was queued on).
    pub(crate) fn take_fds(&mut self, sk: &Sock) -> Option<(FdList, Kuid)> {
        let cb = self.view().cb();
        // SAFETY: We own the skb and it is off every queue; a non-NULL `fp` is a list
        // of `FdList::into_raw` that the skb owned.
        let (fp, uid) = unsafe {
            let fp = NonNull::new(core::mem::replace(&mut (*cb).fp, ptr::null_mut()))?;
            (FdList::from_raw(fp), Kuid((*cb).fp_uid.val))
        };
        sk.nr_fds().fetch_sub(fp.len() as u32, Ordering::Relaxed);
        Some((fp, uid))
    }
}

impl SkbView {
    /// The fd list the skb carries, if any.
    ///
    /// Its holder must keep the list from being taken meanwhile: it owns the skb
    /// unqueued, holds a peeked datagram with the reader lock, is the reader of a
    /// queued stream skb, or is the collector (under its lock and the queue's lock).
    pub(crate) fn fds(&self) -> Option<&Fds> {
        // SAFETY: `cb` is the module's; a non-NULL `fp` is a list the skb owns, which
        // stays while the skb is borrowed (see above).
        unsafe { NonNull::new((*self.cb()).fp).map(|p| Fds::from_raw(p.as_ptr())) }
    }

    /// The embryo a carrier skb (of a listener's queue) brings, borrowed with it.
    pub(in crate::api) fn embryo(&self) -> Option<&Sock> {
        // SAFETY: `cb` is the module's. A carrier holds a reference to its embryo,
        // which is `skb->sk` (see `Skb::take_embryo`), for as long as it is queued.
        unsafe {
            if !(*self.cb()).embryo {
                return None;
            }
            let sk = bindings::afunix_skb_sock(self.as_ptr());
            (!sk.is_null()).then(|| Sock::from_raw(sk))
        }
    }
}
