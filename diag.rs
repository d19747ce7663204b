// SPDX-License-Identifier: GPL-2.0

//! sock_diag for the family: `SOCK_DIAG_BY_FAMILY` requests of `NETLINK_SOCK_DIAG`
//! with `sdiag_family` the module's family number, answered in the formats of
//! `net/unix/diag.c` (`include/uapi/linux/unix_diag.h`): a dump of the requester's netns
//! filtered by `udiag_states`, or one socket by inode number and cookie (`ENOENT`,
//! `ESTALE`), with the attributes in AF_UNIX's order: `UNIX_DIAG_NAME`, `VFS`, `PEER`,
//! `ICONS`, `RQLEN`, `MEMINFO`, `SHUTDOWN`, `UID`. `udiag_family` in replies is the
//! module's family (the shim rewrites it for AF_UNIX programs such as `ss -x`).
//!
//! [`UnixDiag`] is the family's [`SockDiag`] handler (the crate root registers
//! [`sock_diag::handler`] of it) and the [`NetlinkDump`] of its dumps; the netlink
//! messages are written with `api::netlink`; the sockets of the netns table are walked
//! with the `/proc` walk's cursor ([`seq`]).

#![deny(unsafe_code)]

use crate::api::error::EMSGSIZE;
use crate::api::kline::ARef;
use crate::api::netlink::{DumpCb, DumpSkb, DumpStatus, NetlinkDump};
use crate::api::netlink::{NlMsgBuilder, NlSkb, ReplySkb, UserNs, NLM_F_MULTI};
use crate::api::sock::{SkState, Sock};
use crate::api::sock_diag::{self, attr, show, DiagRequest, SockDiag, UnixDiagMsg, UnixDiagReq};
use crate::hash::{seq, NetTable};
use core::ffi::c_int;
use kernel::error::{
    code::{EINVAL, ENOENT},
    Result,
};
use kernel::prelude::vtable;

/// The family's sock_diag handler and dump.
pub(crate) struct UnixDiag;

/// Puts the header and `struct unix_diag_msg` of a reply for `sk` into `skb`, or
/// `EMSGSIZE` if the skb is full.
fn start<'s>(
    skb: &'s mut NlSkb<'_>,
    to: &Dest<'_>,
    sk: &Sock,
    ino: u32,
) -> Result<NlMsgBuilder<'s>> {
    skb.put_msg(
        to.portid,
        to.seq,
        sock_diag::SOCK_DIAG_BY_FAMILY,
        to.flags,
        || {
            UnixDiagMsg::new(
                crate::api::param::family() as u8,
                sk.sk_type() as u8,
                sk.state().raw(),
                ino,
                sk.diag_cookie(),
            )
        },
    )
}

/// The attributes of `sk` that `req` asks for, in AF_UNIX's order (`sk_diag_fill`).
fn attributes(
    r: &mut NlMsgBuilder<'_>,
    sk: &Sock,
    req: &UnixDiagReq,
    user_ns: UserNs<'_>,
) -> Result {
    if req.shows(show::NAME) {
        if let Some(a) = sk.addr_ref() {
            r.put(attr::NAME, a.name())?;
        }
    }
    if req.shows(show::VFS) {
        if let Some((ino, dev)) = sk.vfs_ino_dev() {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&ino.to_ne_bytes());
            b[4..].copy_from_slice(&dev.to_ne_bytes());
            r.put(attr::VFS, &b)?;
        }
    }
    if req.shows(show::PEER) {
        let peer = sk.lock().peer().map(ARef::from);
        if let Some(p) = peer {
            r.put_u32(attr::PEER, p.i_ino() as u32)?;
        }
    }
    if req.shows(show::ICONS) && sk.state() == SkState::Listen {
        sk.with_embryo_peers(|n, peers| r.put_words(attr::ICONS, n, peers))?;
    }
    if req.shows(show::RQLEN) {
        let (rq, wq) = if sk.state() == SkState::Listen {
            (sk.rcvq_len(), sk.max_ack_backlog())
        } else {
            (sk.inq_len() as u32, sk.outq_len() as u32)
        };
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&rq.to_ne_bytes());
        b[4..].copy_from_slice(&wq.to_ne_bytes());
        r.put(attr::RQLEN, &b)?;
    }
    if req.shows(show::MEMINFO) {
        r.put_meminfo(sk, attr::MEMINFO)?;
    }
    r.put(attr::SHUTDOWN, &[sk.shutdown().raw()])?;
    if req.shows(show::UID) {
        r.put_u32(attr::UID, user_ns.uid_of(sk))?;
    }
    Ok(())
}

/// Whom a reply goes to: the requester's user namespace (for uids), its netlink port,
/// the request's sequence number, and the message flags.
#[derive(Clone, Copy)]
struct Dest<'a> {
    user_ns: UserNs<'a>,
    portid: u32,
    seq: u32,
    flags: u16,
}

/// Writes the reply for `sk` (of socket inode `ino`) into `skb`; on `EMSGSIZE` the skb
/// is left as it was.
fn fill(skb: &mut NlSkb<'_>, sk: &Sock, req: &UnixDiagReq, to: &Dest<'_>, ino: u32) -> Result {
    let mut r = start(skb, to, sk, ino)?;
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

/// Calls `f` on the sockets of `t` from position `pos` on (the `/proc` walk's
/// positions), `pos` following, until `f` returns `Some`: that is returned, with `pos`
/// the position of the socket it was called on. `f` runs under the socket's bucket lock:
/// it must not sleep.
fn walk<R>(t: &NetTable, pos: &mut i64, mut f: impl FnMut(&Sock) -> Option<R>) -> Option<R> {
    let mut cur = seq::first(t, pos);
    while let Some(c) = cur {
        if let Some(r) = f(c.sock()) {
            // The bucket is unlocked when `c` goes.
            return Some(r);
        }
        *pos += 1;
        cur = seq::next(c, pos);
    }
    None
}

/// The dump (`unix_diag_dump`): every socket of the requester's netns in a state of
/// `udiag_states` and with a socket inode, from the position in `cb->args[0]` (a
/// position of the `/proc` walk: the socket where the last skb filled up).
impl NetlinkDump for UnixDiag {
    fn dump(skb: &mut DumpSkb<'_>, cb: &mut DumpCb<'_>) -> Result<DumpStatus> {
        // Checked by `SockDiag::dump` before the dump started.
        let req = UnixDiagReq::of(cb.request())?;
        let t = NetTable::of(skb.net());
        let to = Dest {
            user_ns: skb.user_ns(),
            portid: cb.request_portid(),
            seq: cb.request().seq(),
            flags: NLM_F_MULTI,
        };
        let pos = &mut cb.args()[0];
        match *pos {
            // The walk's first position: bucket 0, first socket.
            0 => *pos = 1,
            // The walk is over (see below).
            i64::MAX => return Ok(DumpStatus::Done),
            _ => {}
        }
        let full = walk(&t, pos, |sk| {
            let wanted = req.states & (1u32 << (sk.state().raw() & 31)) != 0;
            let ino = if wanted { sk.i_ino() as u32 } else { 0 };
            // Full: the next skb starts at this socket (`pos` is its position).
            (ino != 0 && fill(&mut skb.writer(), sk, &req, &to, ino).is_err()).then_some(())
        });
        if full.is_none() {
            // The walk is over: later calls find nothing.
            *pos = i64::MAX;
        }
        Ok(DumpStatus::More)
    }
}

/// The socket of the netns with socket inode `ino`, with a reference
/// (`unix_lookup_by_ino`).
fn lookup_by_ino(t: &NetTable, ino: u32) -> Option<ARef<Sock>> {
    let mut pos = 1;
    walk(t, &mut pos, |sk| {
        (sk.i_ino() == u64::from(ino)).then(|| ARef::from(sk))
    })
}

/// One socket, by inode number and cookie (`unix_diag_get_exact`).
fn get_exact(request: &DiagRequest<'_>, req: &UnixDiagReq) -> Result {
    if req.ino == 0 {
        return Err(EINVAL);
    }
    let t = NetTable::of(request.net());
    let sk = lookup_by_ino(&t, req.ino).ok_or(ENOENT)?;
    sk.check_diag_cookie(&req.cookie)?;
    let to = Dest {
        user_ns: request.user_ns(),
        portid: request.portid(),
        seq: request.msg().seq(),
        flags: 0,
    };
    // As AF_UNIX: room for the message and 256 bytes of attributes, growing by 256 up to
    // a page.
    let mut extra = 256usize;
    loop {
        // No lock is held: the allocation may sleep.
        let mut rep = ReplySkb::new(core::mem::size_of::<UnixDiagMsg>() + extra)?;
        let r = fill(&mut rep.writer(), &sk, req, &to, req.ino);
        match r {
            // Consumed even on failure.
            Ok(()) => return request.unicast(rep),
            Err(_) => {
                drop(rep);
                extra += 256;
                if extra >= kernel::page::PAGE_SIZE {
                    // As AF_UNIX: the fill's error.
                    return Err(EMSGSIZE.into());
                }
            }
        }
    }
}

#[vtable]
impl SockDiag for UnixDiag {
    /// A `SOCK_DIAG_BY_FAMILY` request for the family: a dump, or one socket.
    fn dump(request: &DiagRequest<'_>) -> Result<c_int> {
        let req = UnixDiagReq::of(request.msg())?;
        if request.msg().is_dump() {
            return Ok(request.start_dump::<UnixDiag>());
        }
        get_exact(request, &req)?;
        Ok(0)
    }
}
