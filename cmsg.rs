// SPDX-License-Identifier: GPL-2.0

//! Control messages and credentials, as 6.12 does them for AF_UNIX: the `SOL_SOCKET`
//! messages of a send (`__scm_send()` of `net/core/scm.c`, with the credential checks
//! of [`crate::scm`]), the credentials an skb carries (`unix_scm_to_skb()`,
//! `maybe_add_creds()`), the sender's LSM security id (`unix_get_peersec_dgram()`),
//! and the `SCM_CREDENTIALS` and `SCM_SECURITY` messages of a receive
//! (`__scm_recv_common()`, `scm_passec()` of `include/net/scm.h`).
//!
//! The C API is reached through [`crate::api`]. The files of `SCM_RIGHTS` are collected
//! here into an [`FdList`] ([`crate::files`] checks each fd); [`crate::gc`] attaches
//! them to the skb and counts them in flight.

#![deny(unsafe_code)]

use crate::api::cmsg::{CMSGHDR, COMPAT_CMSGHDR, SCM_CREDENTIALS, SCM_RIGHTS, SOL_SOCKET};
use crate::api::cred::{self, Creds, Kgid, Kuid, Pid};
use crate::api::file::{FdList, SCM_MAX_FD};
use crate::api::lsm;
use crate::api::sock::{Msg, MsgFlags, Skb, SkbView, Sock, Socket, StateGuard};
use crate::opts::SockOpts;
use crate::{files, scm};
use kernel::error::{code::*, Result};

/// `sizeof(struct ucred)`: pid, uid, gid.
const UCRED: usize = 12;
/// `sizeof(int)`: an fd of `SCM_RIGHTS`.
const FD: usize = 4;
/// `sizeof(size_t)`: `cmsg_len`.
const SIZE_T: usize = core::mem::size_of::<usize>();

/// `CMSG_ALIGN()`: up to a multiple of `sizeof(long)`.
fn cmsg_align(len: usize) -> usize {
    (len + SIZE_T - 1) & !(SIZE_T - 1)
}

/// A `struct cmsghdr` and its data, read from a control buffer.
struct Cmsg<'a> {
    level: i32,
    ty: i32,
    /// `cmsg_len`: header and data.
    len: usize,
    /// The data: `cmsg_len - sizeof(struct cmsghdr)` bytes.
    data: &'a [u8],
}

/// Reads `N` bytes at `off`; `None` past the end.
fn bytes<const N: usize>(buf: &[u8], off: usize) -> Option<[u8; N]> {
    buf.get(off..off.checked_add(N)?)?.try_into().ok()
}

fn read_u32(buf: &[u8], off: usize) -> Option<u32> {
    bytes::<4>(buf, off).map(u32::from_ne_bytes)
}

/// The walk of `for_each_cmsghdr()`, with the `CMSG_OK()` check of `__scm_send()`:
/// `EINVAL` for a header whose `cmsg_len` is below the header's size or beyond the
/// buffer.
struct CmsgIter<'a> {
    buf: &'a [u8],
    /// The next header's offset, `None` at the end.
    off: Option<usize>,
}

impl<'a> CmsgIter<'a> {
    fn new(buf: &'a [u8]) -> Self {
        // `CMSG_FIRSTHDR()`: none if the buffer cannot hold a header.
        let off = (buf.len() >= CMSGHDR).then_some(0);
        CmsgIter { buf, off }
    }
}

impl CmsgIter<'_> {
    /// No header follows the last one returned.
    fn at_end(&self) -> bool {
        self.off.is_none()
    }
}

impl<'a> Iterator for CmsgIter<'a> {
    type Item = Result<Cmsg<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let off = self.off?;
        let buf = self.buf;
        let rest = buf.len().saturating_sub(off);
        let len = bytes::<SIZE_T>(buf, off).map(usize::from_ne_bytes);
        let level = read_u32(buf, off + SIZE_T);
        let ty = read_u32(buf, off + SIZE_T + 4);
        let (Some(len), Some(level), Some(ty)) = (len, level, ty) else {
            // Cannot happen: `off + CMSGHDR <= buf.len()` (the stepping checks it).
            self.off = None;
            return Some(Err(EINVAL));
        };
        // `CMSG_OK()`.
        if len < CMSGHDR || len > rest {
            self.off = None;
            return Some(Err(EINVAL));
        }
        // `__cmsg_nxthdr()`: the next header must fit whole.
        let next = off + cmsg_align(len);
        self.off = next
            .checked_add(CMSGHDR)
            .filter(|&end| end <= buf.len())
            .map(|_| next);
        let data = buf.get(off + CMSGHDR..off + len).unwrap_or(&[]);
        Some(Ok(Cmsg {
            level: level as i32,
            ty: ty as i32,
            len,
            data,
        }))
    }
}

/// The credentials of a send: those of its `SCM_CREDENTIALS` message, else none
/// (`scm_send()` without `forcecreds`: no pid, invalid uid and gid).
fn no_creds() -> Creds {
    Creds {
        pid: None,
        uid: Kuid::INVALID,
        gid: Kgid::INVALID,
    }
}

/// What the control messages of a send carry (AF_UNIX's `struct scm_cookie`).
pub(crate) struct SendScm {
    /// The credentials claimed (none: no pid, invalid ids).
    pub(crate) creds: Creds,
    /// The files of `SCM_RIGHTS`, if any.
    pub(crate) fds: Option<FdList>,
    /// The sender's LSM security id, for `SCM_SECURITY` (0 without one).
    pub(crate) secid: u32,
}

/// Parses the control messages of a send by `sk` (`scm_send()`): the sender's security
/// id, the credentials the message claims, checked, and the files it passes. Levels other than `SOL_SOCKET` are
/// skipped; `EINVAL` for a malformed header, an unknown `SOL_SOCKET` type, a wrong
/// `SCM_CREDENTIALS` length, more than `SCM_MAX_FD` fds or an io_uring fd;
/// `EPERM`/`ESRCH` for credentials the caller may not claim or an unknown pid; `EBADF`
/// for an fd that is not open.
#[inline]
pub(crate) fn scm_send(sock: &Socket, m: &Msg) -> Result<SendScm> {
    let secid = lsm::peersec_dgram(sock);
    match m.control()? {
        None => Ok(SendScm {
            creds: no_creds(),
            fds: None,
            secid,
        }),
        Some(buf) => scm_parse(buf, secid),
    }
}

/// The control messages of a send, parsed (see [`scm_send`]); out of the path of a
/// send without them.
#[cold]
#[inline(never)]
fn scm_parse(buf: &[u8], secid: u32) -> Result<SendScm> {
    let mut creds = no_creds();
    let mut fds: Option<FdList> = None;
    let mut cmsgs = CmsgIter::new(buf);
    while let Some(c) = cmsgs.next() {
        let c = c?;
        if c.level != SOL_SOCKET {
            continue;
        }
        match c.ty {
            SCM_RIGHTS => {
                // `scm_fp_copy()`: an empty list passes nothing; at most SCM_MAX_FD in
                // all.
                let num = (c.len - CMSGHDR) / FD;
                if num == 0 {
                    continue;
                }
                if num > SCM_MAX_FD {
                    return Err(EINVAL);
                }
                // The list is sized to this message's fds when no other message
                // follows, else made for `SCM_MAX_FD` (as `scm_fp_copy()` always).
                let list = match &mut fds {
                    Some(l) => l,
                    None => fds.insert(FdList::with_capacity(if cmsgs.at_end() {
                        num
                    } else {
                        SCM_MAX_FD
                    })?),
                };
                if list.len() + num > SCM_MAX_FD {
                    return Err(EINVAL);
                }
                for i in 0..num {
                    let fd = read_u32(c.data, i * FD).map_or(-1, |fd| fd as i32);
                    files::push_fd(list, fd)?;
                }
            }
            SCM_CREDENTIALS => {
                if c.len != CMSGHDR + UCRED {
                    return Err(EINVAL);
                }
                let (Some(pid), Some(uid), Some(gid)) = (
                    read_u32(c.data, 0),
                    read_u32(c.data, 4),
                    read_u32(c.data, 8),
                ) else {
                    return Err(EINVAL);
                };
                let pid = pid as i32;
                let (uid, gid) = scm::check_creds(pid, uid, gid)?;
                // (`is_none_or` is newer than 6.12's minimum Rust; 7.3's clippy
                // refuses the negated `is_some_and`.)
                let same = matches!(creds.pid.as_ref(), Some(p) if p.vnr() == pid);
                if !same {
                    creds.pid = Some(Pid::find(pid).ok_or(ESRCH)?);
                }
                creds.uid = uid;
                creds.gid = gid;
            }
            _ => return Err(EINVAL),
        }
    }
    Ok(SendScm { creds, fds, secid })
}

/// `unix_passcred_enabled()`: the sender or the receiver asks for credentials, or the
/// receiver is an embryo (not accepted yet: it may inherit `SO_PASSCRED`).
/// `other` is the receiver, whose state lock the caller holds.
#[inline]
fn passcred_enabled(sk: &Sock, other: &Sock) -> bool {
    sk.passcred() || !other.has_socket() || other.passcred()
}

/// `maybe_add_creds()`: an skb without credentials gets the sender's own when either
/// end asks for them. Under the receiver's state lock, just before queueing.
#[inline]
pub(crate) fn maybe_add_creds(skb: &mut Skb, sk: &Sock, other: &StateGuard<'_>) {
    if passcred_enabled(sk, other.sock()) && !skb.view().creds_present() {
        add_own_creds(skb);
    }
}

/// The sender's own credentials on `skb`.
#[cold]
#[inline(never)]
fn add_own_creds(skb: &mut Skb) {
    skb.set_creds(&own_creds());
}

/// The caller's own credentials: its process, user and group.
fn own_creds() -> Creds {
    let ids = cred::current_cred();
    Creds {
        pid: Pid::current_tgid(),
        uid: ids.uid,
        gid: ids.gid,
    }
}

/// Whether `tail`, a queued skb of `sk`'s, carries the credentials that a new skb of a
/// write of `creds` would carry once queued on `other` (`maybe_add_creds()` gives one
/// without credentials the sender's own when either end asks for them); the caller
/// holds `other`'s state lock.
pub(crate) fn same_creds_as_new(tail: &SkbView, creds: &Creds, sk: &Sock, other: &Sock) -> bool {
    if creds.pid.is_none() && passcred_enabled(sk, other) {
        tail.same_creds(&own_creds())
    } else {
        tail.same_creds(creds)
    }
}

/// The credentials a receive reports (the `pid` and `creds` of AF_UNIX's
/// `struct scm_cookie` on receive).
pub(crate) struct RecvCreds {
    creds: Creds,
    /// The pid's number in the receiver's pid namespace, 0 if invisible or none.
    nr: i32,
    /// The sender's security id (`scm->secid`).
    secid: u32,
}

impl RecvCreds {
    /// None yet: the zeroed cookie of a stream read (`memset(&scm, 0, ..)`), which a
    /// read that copies nothing reports as pid 0, uid 0, gid 0.
    pub(crate) fn zeroed() -> Self {
        RecvCreds {
            creds: Creds {
                pid: None,
                uid: Kuid(0),
                gid: Kgid(0),
            },
            nr: 0,
            secid: 0,
        }
    }

    /// Those of `skb` (`scm_set_cred(&scm, UNIXCB(skb).pid, ..)`): an skb without
    /// credentials gives pid 0 and the invalid ids (the overflow ids once translated).
    pub(crate) fn of(skb: &SkbView) -> Self {
        let creds = skb.creds();
        let nr = creds.pid.as_ref().map_or(0, Pid::vnr);
        RecvCreds {
            creds,
            nr,
            secid: skb.secid(),
        }
    }

    /// Whether `skb` carries the same credentials and security id (`unix_skb_scm_eq()`).
    pub(crate) fn same_as(&self, skb: &SkbView) -> bool {
        skb.same_creds(&self.creds) && skb.secid() == self.secid
    }
}

/// The control messages of a receive (`scm_recv_unix()`): `SCM_CREDENTIALS` with the
/// credentials translated into the receiver's namespaces when it has `SO_PASSCRED`,
/// then the files of `SCM_RIGHTS`, installed; `MSG_CTRUNC` when it asks for
/// credentials or is passed files but gave no control buffer (the files are then
/// closed).
#[inline]
pub(crate) fn scm_recv(
    sock: &Socket,
    sk: &Sock,
    m: &mut Msg,
    scm: &RecvCreds,
    fds: Option<FdList>,
) {
    // Nothing to report and nothing to flag: no files, and the receiver asks for
    // neither credentials nor a security context (one load of the socket's flags).
    if fds.is_none() && !sk.passcred_or_sec() {
        return;
    }
    scm_recv_slow(sock, sk, m, scm, fds);
}

/// [`scm_recv`] with something to report or flag.
#[cold]
#[inline(never)]
fn scm_recv_slow(sock: &Socket, sk: &Sock, m: &mut Msg, scm: &RecvCreds, fds: Option<FdList>) {
    if !m.has_control() {
        if sk.passcred() || sk.passsec() || fds.is_some() {
            m.add_flags(MsgFlags::CTRUNC);
        }
        return;
    }
    if sk.passcred_only() {
        let mut ucred = [0u8; UCRED];
        let uid = cred::from_kuid_munged(scm.creds.uid);
        let gid = cred::from_kgid_munged(scm.creds.gid);
        for (i, v) in [scm.nr as u32, uid, gid].into_iter().enumerate() {
            if let Some(dst) = ucred.get_mut(4 * i..4 * i + 4) {
                dst.copy_from_slice(&v.to_ne_bytes());
            }
        }
        m.put_cmsg(SOL_SOCKET, SCM_CREDENTIALS, &ucred);
    }
    if sk.passsec() {
        lsm::put_secctx(sock, m, scm.secid);
    }
    if let Some(fds) = fds {
        files::install(fds, m, sk.rights_notrunc());
    }
    // `scm_pidfd_recv()`: `SCM_PIDFD` cannot be made from a module (`pidfd_prepare` is
    // not exported); only its truncation flag is reproduced.
    if sk.passpidfd() {
        // `MSG_CMSG_COMPAT` is 0 in a kernel without `CONFIG_COMPAT`.
        #[allow(clippy::bad_bit_mask)]
        let compat = m.flags().has(MsgFlags::CMSG_COMPAT);
        let hdr = if compat { COMPAT_CMSGHDR } else { CMSGHDR };
        if m.controllen() < hdr + FD {
            m.add_flags(MsgFlags::CTRUNC);
        }
    }
}
