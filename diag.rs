// SPDX-License-Identifier: GPL-2.0

//! sock_diag for the family: `SOCK_DIAG_BY_FAMILY` requests of `NETLINK_SOCK_DIAG`
//! with `sdiag_family` the module's family number, answered in the formats of
//! `net/unix/diag.c` (`include/uapi/linux/unix_diag.h`): a dump of the requester's netns
//! filtered by `udiag_states`, or one socket by inode number and cookie (`ENOENT`,
//! `ESTALE`), with the attributes in AF_UNIX's order: `UNIX_DIAG_NAME`, `VFS`, `PEER`,
//! `ICONS`, `RQLEN`, `MEMINFO`, `SHUTDOWN`, `UID`. `udiag_family` in replies is the
//! module's family (the shim rewrites it for AF_UNIX programs such as `ss -x`).
//!
//! [`Reply`] wraps the netlink message being built (the unsafe layer); what to put in it
//! is [`fill`], in safe Rust. The handler is registered with the family (crate root).

use crate::bindings;
use crate::error::EMSGSIZE;
use crate::hash::{seq, NetTable};
use crate::sock::{state, Sock};
use core::ffi::{c_int, c_long, c_void};
use core::ptr::{self, NonNull};
use kernel::error::{
    code::{EINVAL, ENOENT, ENOMEM},
    from_result, Error, Result,
};
use kernel::types::ARef;

/// `struct unix_diag_req`, read from a request (validated length).
#[derive(Clone, Copy)]
struct Request {
    states: u32,
    ino: u32,
    show: u32,
    cookie: [u32; 2],
}

impl Request {
    /// The request of a `SOCK_DIAG_BY_FAMILY` message, or `EINVAL` if it is too short.
    ///
    /// # Safety
    ///
    /// `nlh` is a netlink message of `nlmsg_len` bytes.
    unsafe fn of(nlh: *const bindings::nlmsghdr) -> Result<Request> {
        // SAFETY: A message header (safety requirements).
        let len = unsafe { bindings::afunix_nlmsg_len(nlh) };
        if len < core::mem::size_of::<bindings::unix_diag_req>() as c_int {
            return Err(EINVAL);
        }
        // SAFETY: The payload holds a whole request (checked), maybe unaligned.
        let r = unsafe {
            bindings::afunix_nlmsg_data(nlh)
                .cast::<bindings::unix_diag_req>()
                .read_unaligned()
        };
        Ok(Request {
            states: r.udiag_states,
            ino: r.udiag_ino,
            show: r.udiag_show,
            cookie: r.udiag_cookie,
        })
    }

    fn shows(&self, what: u32) -> bool {
        self.show & what != 0
    }
}

/// A netlink message being written into a reply skb.
///
/// # Invariants
///
/// `skb` is a netlink skb owned by the caller for `'a`, and `nlh` the header of the
/// message last put into it, not yet ended or cancelled.
struct Reply<'a> {
    skb: *mut bindings::sk_buff,
    nlh: NonNull<bindings::nlmsghdr>,
    _skb: core::marker::PhantomData<&'a mut bindings::sk_buff>,
}

impl Reply<'_> {
    /// Puts the header and `struct unix_diag_msg` of a reply for `sk` into `skb`, or
    /// `EMSGSIZE` if the skb is full.
    ///
    /// # Safety
    ///
    /// `skb` is a netlink skb the caller may write for `'a`.
    unsafe fn start<'a>(
        skb: *mut bindings::sk_buff,
        portid: u32,
        seq: u32,
        flags: u32,
        sk: &Sock,
        ino: u32,
    ) -> Result<Reply<'a>> {
        let size = core::mem::size_of::<bindings::unix_diag_msg>();
        // SAFETY: A writable netlink skb (safety requirements).
        let nlh = unsafe {
            bindings::afunix_nlmsg_put(
                skb,
                portid,
                seq,
                bindings::SOCK_DIAG_BY_FAMILY as c_int,
                size as c_int,
                flags as c_int,
            )
        };
        let nlh = NonNull::new(nlh).ok_or(Error::from(EMSGSIZE))?;
        let mut msg = bindings::unix_diag_msg {
            udiag_family: crate::family() as u8,
            udiag_type: sk.sk_type() as u8,
            udiag_state: sk.state(),
            pad: 0,
            udiag_ino: ino,
            udiag_cookie: [0; 2],
        };
        // SAFETY: `sk` is a live socket; the cookie is two words.
        unsafe { bindings::sock_diag_save_cookie(sk.as_ptr(), msg.udiag_cookie.as_mut_ptr()) };
        // SAFETY: `nlmsg_put` reserved `size` bytes of payload, maybe unaligned.
        unsafe {
            bindings::afunix_nlmsg_data(nlh.as_ptr())
                .cast::<bindings::unix_diag_msg>()
                .write_unaligned(msg)
        };
        // INVARIANT: The message just put.
        Ok(Reply {
            skb,
            nlh,
            _skb: core::marker::PhantomData,
        })
    }

    /// Appends attribute `ty` with `data`; `EMSGSIZE` if it does not fit.
    fn put(&mut self, ty: u32, data: &[u8]) -> Result {
        // SAFETY: The skb is writable (type invariant); `data` is readable.
        let r = unsafe {
            bindings::nla_put(
                self.skb,
                ty as c_int,
                data.len() as c_int,
                data.as_ptr().cast::<c_void>(),
            )
        };
        if r < 0 {
            return Err(EMSGSIZE.into());
        }
        Ok(())
    }

    fn put_u32(&mut self, ty: u32, v: u32) -> Result {
        self.put(ty, &v.to_ne_bytes())
    }

    /// Appends attribute `ty` with `n` 32-bit words from `words` (0 for those it lacks).
    fn put_words(&mut self, ty: u32, n: u32, words: &mut dyn Iterator<Item = u32>) -> Result {
        let len = n.checked_mul(4).ok_or(Error::from(EMSGSIZE))?;
        // SAFETY: The skb is writable (type invariant).
        let attr = unsafe { bindings::nla_reserve(self.skb, ty as c_int, len as c_int) };
        if attr.is_null() {
            return Err(EMSGSIZE.into());
        }
        // SAFETY: `nla_reserve` reserved `len` bytes of payload after the header.
        let data = unsafe { bindings::afunix_nla_data(attr).cast::<u8>() };
        for i in 0..n as usize {
            let w = words.next().unwrap_or(0).to_ne_bytes();
            // SAFETY: Word `i` of the `n` reserved ones, maybe unaligned.
            unsafe { ptr::copy_nonoverlapping(w.as_ptr(), data.add(4 * i), 4) };
        }
        Ok(())
    }

    /// `sock_diag_put_meminfo()`: the socket's memory counters as attribute `ty`.
    fn put_meminfo(&mut self, sk: &Sock, ty: u32) -> Result {
        // SAFETY: The skb is writable (type invariant); `sk` is live.
        if unsafe { bindings::sock_diag_put_meminfo(sk.as_ptr(), self.skb, ty as c_int) } != 0 {
            return Err(EMSGSIZE.into());
        }
        Ok(())
    }

    /// Ends the message.
    fn end(self) {
        // SAFETY: The message last put (type invariant), ended once (`self` goes).
        unsafe { bindings::afunix_nlmsg_end(self.skb, self.nlh.as_ptr()) };
    }

    /// Removes the message from the skb.
    fn cancel(self) {
        // SAFETY: As in `end`.
        unsafe { bindings::afunix_nlmsg_cancel(self.skb, self.nlh.as_ptr()) };
    }
}

/// The attributes of `sk` that `req` asks for, in AF_UNIX's order (`sk_diag_fill`).
fn attributes(r: &mut Reply<'_>, sk: &Sock, req: &Request, user_ns: UserNs) -> Result {
    if req.shows(bindings::UDIAG_SHOW_NAME) {
        if let Some(a) = sk.addr_ref() {
            r.put(bindings::UNIX_DIAG_NAME, a.name())?;
        }
    }
    if req.shows(bindings::UDIAG_SHOW_VFS) {
        if let Some((ino, dev)) = sk.vfs_ino_dev() {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&ino.to_ne_bytes());
            b[4..].copy_from_slice(&dev.to_ne_bytes());
            r.put(bindings::UNIX_DIAG_VFS, &b)?;
        }
    }
    if req.shows(bindings::UDIAG_SHOW_PEER) {
        let peer = sk.lock().peer().map(ARef::from);
        if let Some(p) = peer {
            r.put_u32(bindings::UNIX_DIAG_PEER, p.i_ino() as u32)?;
        }
    }
    if req.shows(bindings::UDIAG_SHOW_ICONS) && sk.state() == state::LISTEN {
        sk.with_embryo_peers(|n, peers| r.put_words(bindings::UNIX_DIAG_ICONS, n, peers))?;
    }
    if req.shows(bindings::UDIAG_SHOW_RQLEN) {
        let (rq, wq) = if sk.state() == state::LISTEN {
            (sk.rcvq_len(), sk.max_ack_backlog())
        } else {
            (sk.inq_len() as u32, sk.outq_len() as u32)
        };
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&rq.to_ne_bytes());
        b[4..].copy_from_slice(&wq.to_ne_bytes());
        r.put(bindings::UNIX_DIAG_RQLEN, &b)?;
    }
    if req.shows(bindings::UDIAG_SHOW_MEMINFO) {
        r.put_meminfo(sk, bindings::UNIX_DIAG_MEMINFO)?;
    }
    r.put(bindings::UNIX_DIAG_SHUTDOWN, &[sk.shutdown()])?;
    if req.shows(bindings::UDIAG_SHOW_UID) {
        r.put_u32(bindings::UNIX_DIAG_UID, user_ns.uid_of(sk))?;
    }
    Ok(())
}

/// Whom a reply goes to: the requester's user namespace (for uids), its netlink port,
/// the request's sequence number, and the message flags.
#[derive(Clone, Copy)]
struct Dest {
    user_ns: UserNs,
    portid: u32,
    seq: u32,
    flags: u32,
}

/// Writes the reply for `sk` (of socket inode `ino`) into `skb`; on `EMSGSIZE` the skb
/// is left as it was.
///
/// # Safety
///
/// `skb` is a netlink skb the caller may write.
unsafe fn fill(
    skb: *mut bindings::sk_buff,
    sk: &Sock,
    req: &Request,
    to: Dest,
    ino: u32,
) -> Result {
    // SAFETY: Writable (safety requirements).
    let mut r = unsafe { Reply::start(skb, to.portid, to.seq, to.flags, sk, ino) }?;
    match attributes(&mut r, sk, req, to.user_ns) {
        Ok(()) => {
            r.end();
            Ok(())
        }
        Err(e) => {
            r.cancel();
            Err(e)
        }
    }
}

/// The user namespace uids are shown in (the requester's).
///
/// # Invariants
///
/// A live user namespace, for as long as the request is handled.
#[derive(Clone, Copy)]
struct UserNs(*mut bindings::user_namespace);

impl UserNs {
    /// `from_kuid_munged(ns, sock_i_uid(sk))`.
    fn uid_of(self, sk: &Sock) -> u32 {
        // SAFETY: `sk` is live; the namespace is live (type invariant).
        unsafe { bindings::from_kuid_munged(self.0, bindings::sock_i_uid(sk.as_ptr())) }
    }
}

/// The table of the netns of a netlink skb's socket.
///
/// # Safety
///
/// `skb` is a netlink skb with its socket, which holds its netns.
unsafe fn table_of_skb<'a>(skb: *const bindings::sk_buff) -> &'a NetTable {
    // SAFETY: The socket's netns is live while the request is handled, and it has a
    // table while the module (whose handler this is) is loaded.
    unsafe { crate::netns::table_of(bindings::afunix_skb_net(skb)) }
}

/// The dump (`unix_diag_dump`): every socket of the requester's netns in a state of
/// `udiag_states` and with a socket inode, from the position in `cb->args[0]` (a
/// position of the `/proc` walk: the socket where the last skb filled up).
///
/// # Safety
///
/// A netlink dump callback: `skb` is the skb to fill, `cb` the dump's callback.
unsafe extern "C" fn dump(
    skb: *mut bindings::sk_buff,
    cb: *mut bindings::netlink_callback,
) -> c_int {
    // SAFETY: The dump's callback and its request (checked when the dump started).
    let (args, nlh, in_skb) = unsafe {
        (
            bindings::afunix_cb_args(cb),
            bindings::afunix_cb_nlh(cb),
            bindings::afunix_cb_skb(cb),
        )
    };
    // SAFETY: Checked by `handler_dump` before the dump started.
    let Ok(req) = (unsafe { Request::of(nlh) }) else {
        return EINVAL.to_errno();
    };
    // SAFETY: `skb` is the dump's skb, with the requester's socket; `in_skb` the request.
    let (t, to) = unsafe {
        (
            table_of_skb(skb),
            Dest {
                // INVARIANT: The dump's socket holds its user namespace.
                user_ns: UserNs(bindings::afunix_skb_user_ns(skb)),
                portid: bindings::afunix_netlink_portid(in_skb),
                seq: (*nlh).nlmsg_seq,
                flags: bindings::NLM_F_MULTI,
            },
        )
    };
    // SAFETY: `args` is the callback's six words.
    let pos = unsafe { &mut *args.cast::<i64>() };
    match *pos {
        // The walk's first position: bucket 0, first socket.
        0 => *pos = 1,
        // The walk is over (see below).
        i64::MAX => return 0,
        _ => {}
    }
    let mut cur = seq::first(t, pos);
    while let Some(c) = cur {
        let sk = c.sock();
        let wanted = req.states & (1u32 << (sk.state() & 31)) != 0;
        let ino = if wanted { sk.i_ino() as u32 } else { 0 };
        if ino != 0 {
            // SAFETY: `skb` is the dump's skb.
            let r = unsafe { fill(skb, sk, &req, to, ino) };
            if r.is_err() {
                // Full: the next skb starts at this socket (`pos` is its position).
                drop(c);
                // SAFETY: The dump's skb.
                return unsafe { bindings::afunix_skb_len(skb) };
            }
        }
        *pos += 1;
        cur = seq::next(c, pos);
    }
    // The walk is over: later calls find nothing.
    *pos = i64::MAX;
    // SAFETY: The dump's skb.
    unsafe { bindings::afunix_skb_len(skb) }
}

/// The socket of the netns with socket inode `ino`, with a reference
/// (`unix_lookup_by_ino`).
fn lookup_by_ino(t: &NetTable, ino: u32) -> Option<ARef<Sock>> {
    let mut pos = 1;
    let mut cur = seq::first(t, &mut pos);
    while let Some(c) = cur {
        if c.sock().i_ino() == u64::from(ino) {
            // The bucket is unlocked when `c` goes, after the reference is taken.
            return Some(ARef::from(c.sock()));
        }
        pos += 1;
        cur = seq::next(c, &mut pos);
    }
    None
}

/// One socket, by inode number and cookie (`unix_diag_get_exact`).
///
/// # Safety
///
/// `in_skb` is the request's skb and `nlh` its message.
unsafe fn get_exact(
    in_skb: *mut bindings::sk_buff,
    nlh: *const bindings::nlmsghdr,
    req: &Request,
) -> Result {
    if req.ino == 0 {
        return Err(EINVAL);
    }
    // SAFETY: The request's skb, with the requester's socket.
    let t = unsafe { table_of_skb(in_skb) };
    let sk = lookup_by_ino(t, req.ino).ok_or(ENOENT)?;
    // SAFETY: `sk` is live; the cookie is two words.
    let err = unsafe { bindings::sock_diag_check_cookie(sk.as_ptr(), req.cookie.as_ptr()) };
    if err != 0 {
        return Err(Error::from_errno(err));
    }
    // SAFETY: The request's skb and message (safety requirements).
    let to = unsafe {
        Dest {
            // INVARIANT: The requester's socket holds its user namespace.
            user_ns: UserNs(bindings::afunix_netlink_user_ns(in_skb)),
            portid: bindings::afunix_netlink_portid(in_skb),
            seq: (*nlh).nlmsg_seq,
            flags: 0,
        }
    };
    // As AF_UNIX: room for the message and 256 bytes of attributes, growing by 256 up to
    // a page.
    let mut extra = 256usize;
    loop {
        // SAFETY: Allocates (may sleep: no lock is held).
        let rep = unsafe {
            bindings::afunix_nlmsg_new(core::mem::size_of::<bindings::unix_diag_msg>() + extra)
        };
        if rep.is_null() {
            return Err(ENOMEM);
        }
        // SAFETY: `rep` is a new netlink skb, this function's.
        match unsafe { fill(rep, &sk, req, to, req.ino) } {
            Ok(()) => {
                // SAFETY: `rep` goes to the requester (consumed even on failure).
                let r = unsafe { bindings::afunix_diag_unicast(in_skb, rep) };
                return kernel::error::to_result(r);
            }
            Err(_) => {
                // SAFETY: `rep` is this function's, unsent.
                unsafe { bindings::afunix_nlmsg_free(rep) };
                extra += 256;
                if extra >= kernel::page::PAGE_SIZE {
                    // As AF_UNIX: the fill's error.
                    return Err(EMSGSIZE.into());
                }
            }
        }
    }
}

/// `sock_diag_handler::dump`: a `SOCK_DIAG_BY_FAMILY` request for the family.
///
/// # Safety
///
/// Called by the sock_diag core with the request's skb and message.
unsafe extern "C" fn handler_dump(
    skb: *mut bindings::sk_buff,
    nlh: *mut bindings::nlmsghdr,
) -> c_int {
    from_result(|| {
        // SAFETY: The request's message (safety requirements).
        let req = unsafe { Request::of(nlh) }?;
        // SAFETY: As above.
        if u32::from(unsafe { (*nlh).nlmsg_flags }) & bindings::NLM_F_DUMP != 0 {
            // SAFETY: The request's skb and message; `dump` is a dump callback.
            return Ok(unsafe { bindings::afunix_diag_dump_start(skb, nlh, Some(dump)) });
        }
        // SAFETY: As above.
        unsafe { get_exact(skb, nlh, &req) }?;
        Ok(0)
    })
}

/// The family's sock_diag handler, registered from the crate root.
pub(crate) fn handler(family: u8, owner: *mut bindings::module) -> bindings::sock_diag_handler {
    bindings::sock_diag_handler {
        owner,
        family,
        dump: Some(handler_dump),
        get_info: None,
        destroy: None,
    }
}

// The callback's words (`long args[6]`) are read as `i64` positions.
const _: () = assert!(core::mem::size_of::<c_long>() == core::mem::size_of::<i64>());
