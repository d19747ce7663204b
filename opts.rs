// SPDX-License-Identifier: GPL-2.0

//! The socket options upstream AF_UNIX added after 6.12, as bits of the socket's option
//! byte ([`Sock::proto_opts`]): `SO_PASSRIGHTS` (6.16's `sk_scm_rights`: the socket
//! accepts `SCM_RIGHTS`, on by default; read by senders under the receiver's state
//! lock), `SO_INQ` (6.17's `recvmsg_inq`: `SCM_INQ` on every successful stream
//! receive; read by the socket's own receives) and `SO_RIGHTS_NOTRUNC` (7.3's
//! `scm_rights_notrunc`: read by the socket's own receives).

#![deny(unsafe_code)]

use crate::api::sock::Sock;
use core::sync::atomic::Ordering;

/// `SO_PASSRIGHTS`.
const PASS_RIGHTS: u8 = 1;
/// `SO_INQ`.
const RECVMSG_INQ: u8 = 2;
/// `SO_RIGHTS_NOTRUNC`.
const RIGHTS_NOTRUNC: u8 = 4;

/// The options of a socket of this family.
pub(crate) trait SockOpts {
    /// The defaults of a new socket (before anyone else sees it).
    fn init_opts(&self);
    /// An embryo's options, at connect: `SO_PASSRIGHTS` (6.16) and `SO_RIGHTS_NOTRUNC`
    /// (7.3) are `listener`'s, the others the defaults (no one else sets them: the
    /// embryo has no `struct socket`).
    fn inherit_opts(&self, listener: &Sock);
    /// Whether the socket accepts `SCM_RIGHTS` (`SO_PASSRIGHTS`).
    fn pass_rights(&self) -> bool;
    /// Sets `SO_PASSRIGHTS`.
    fn set_pass_rights(&self, on: bool);
    /// Whether each receive reports the bytes left (`SO_INQ`, off by default).
    fn recvmsg_inq(&self) -> bool;
    /// Sets `SO_INQ`.
    fn set_recvmsg_inq(&self, on: bool);
    /// Whether an fd the LSM refuses keeps its `SCM_RIGHTS` slot (`SO_RIGHTS_NOTRUNC`).
    fn rights_notrunc(&self) -> bool;
    /// Sets `SO_RIGHTS_NOTRUNC`.
    fn set_rights_notrunc(&self, on: bool);
}

fn opt(sk: &Sock, bit: u8) -> bool {
    sk.proto_opts().load(Ordering::Relaxed) & bit != 0
}

fn set_opt(sk: &Sock, bit: u8, on: bool) {
    if on {
        sk.proto_opts().fetch_or(bit, Ordering::Relaxed);
    } else {
        sk.proto_opts().fetch_and(!bit, Ordering::Relaxed);
    }
}

impl SockOpts for Sock {
    fn init_opts(&self) {
        self.proto_opts().store(PASS_RIGHTS, Ordering::Relaxed);
    }

    fn inherit_opts(&self, listener: &Sock) {
        let inherited = listener.proto_opts().load(Ordering::Relaxed);
        self.proto_opts().store(
            inherited & (PASS_RIGHTS | RIGHTS_NOTRUNC),
            Ordering::Relaxed,
        );
    }

    fn pass_rights(&self) -> bool {
        opt(self, PASS_RIGHTS)
    }

    fn set_pass_rights(&self, on: bool) {
        set_opt(self, PASS_RIGHTS, on);
    }

    fn recvmsg_inq(&self) -> bool {
        opt(self, RECVMSG_INQ)
    }

    fn set_recvmsg_inq(&self, on: bool) {
        set_opt(self, RECVMSG_INQ, on);
    }

    fn rights_notrunc(&self) -> bool {
        opt(self, RIGHTS_NOTRUNC)
    }

    fn set_rights_notrunc(&self, on: bool) {
        set_opt(self, RIGHTS_NOTRUNC, on);
    }
}
