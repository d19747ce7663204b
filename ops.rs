// SPDX-License-Identifier: GPL-2.0

//! The family's operations: which protocol function serves each callback of the
//! family ([`FamilyOps`]) and of each socket type ([`SocketOps`]). The crate root
//! registers these types; [`crate::api::family`] and [`crate::api::socket`] turn them
//! into the C tables.

#![deny(unsafe_code)]

use crate::api::addr::{SunAddr, UnixAddress};
use crate::api::family::{Create, FamilyOps};
use crate::api::kline::ARef;
use crate::api::sock::{Msg, MsgFlags, NewSocket, Pipe, Sock, Socket, SpaceSock};
use crate::api::socket::{IoctlAnswer, SockOpt, SocketOps};
use crate::api::wait::PollMask;
use crate::names;
use crate::proto;
use crate::wakeup;
use crate::{connect, dgram, stream};
use kernel::error::Result;
use kernel::prelude::*;

/// The family: socket creation and the sockets' own hooks.
pub(crate) struct Family;

impl FamilyOps for Family {
    type Wake = wakeup::Wakeup;
    fn check_create(ty: u16, protocol: i32) -> Result<Create> {
        proto::check_create(ty, protocol)
    }
    fn account_new() -> Result {
        proto::account_new_socket()
    }
    fn unaccount() {
        proto::unaccount_socket()
    }
    fn init_new(sk: &Sock) {
        proto::init_new(sk)
    }
    // Inlined into its trampoline: one call less per freed skb.
    #[inline(always)]
    fn write_space(sk: &SpaceSock<'_>) {
        wakeup::write_space(sk)
    }
}

/// The callbacks served by the same protocol function for every socket type (the
/// optional ones, which `#[vtable]` must see, are written out in each `impl`).
macro_rules! same_for_every_type {
    () => {
        fn release(sk: &Sock) {
            proto::release_sock(sk, false)
        }
        fn bind(sk: &Sock, sun: &SunAddr) -> Result {
            names::rust_afunix_bind(sk, sun)
        }
        fn socketpair(a: &Sock, b: &Sock) -> Result {
            proto::socketpair(a, b)
        }
        fn getname(sk: &Sock, peer: bool) -> Result<Option<ARef<UnixAddress>>> {
            proto::getname(sk, peer)
        }
        fn ioctl(sk: &Sock, cmd: u32) -> Option<Result<IoctlAnswer>> {
            proto::ioctl(sk, cmd)
        }
        fn shutdown(sk: &Sock, how: i32) -> Result {
            proto::shutdown(sk, how)
        }
        fn fdinfo_fds(sk: &Sock) -> u32 {
            proto::fdinfo_fds(sk)
        }
        fn sol_socket_option(sk: &Sock, optname: i32, opt: &SockOpt) -> Option<Result> {
            proto::sol_socket_option(sk, optname, opt)
        }
    };
}

/// `SOCK_STREAM`.
pub(crate) struct Stream;

#[vtable]
impl SocketOps for Stream {
    same_for_every_type!();
    // One function with its trampoline (`connect::stream_connect`).
    #[inline(always)]
    fn connect(_sock: &Socket, sk: &Sock, sun: &SunAddr, nonblock: bool) -> Result {
        connect::stream_connect(sk, sun, nonblock)
    }
    fn accept(listener: &Socket, sk: &Sock, newsock: NewSocket<'_>, nonblock: bool) -> Result {
        connect::accept(listener, sk, newsock, nonblock)
    }
    fn poll(sk: &Sock, _requested: PollMask) -> PollMask {
        stream::stream_poll(sk)
    }
    fn listen(sk: &Sock, backlog: i32) -> Result {
        proto::listen(sk, backlog)
    }
    // One function with its trampoline: a call less per write.
    #[inline(always)]
    fn sendmsg(sock: &Socket, sk: &Sock, msg: &mut Msg, len: usize) -> Result<usize> {
        stream::stream_sendmsg(sock, sk, msg, len)
    }
    fn recvmsg(
        sock: &Socket,
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        flags: MsgFlags,
    ) -> Result<usize> {
        stream::stream_recvmsg(sock, sk, msg, len, flags)
    }
    fn splice_read(
        sock: &Socket,
        sk: &Sock,
        pipe: &Pipe,
        len: usize,
        nonblock: bool,
        has_offset: bool,
    ) -> Result<usize> {
        stream::stream_splice_read(sock, sk, pipe, len, nonblock, has_offset)
    }
}

/// `SOCK_DGRAM`: no `listen`/`accept`, the core's copying `splice_read`.
pub(crate) struct Dgram;

#[vtable]
impl SocketOps for Dgram {
    same_for_every_type!();
    fn connect(sock: &Socket, sk: &Sock, sun: &SunAddr, _nonblock: bool) -> Result {
        connect::dgram_connect(sock, sk, sun)
    }
    fn poll(sk: &Sock, requested: PollMask) -> PollMask {
        dgram::dgram_poll(sk, requested)
    }
    fn sendmsg(sock: &Socket, sk: &Sock, msg: &mut Msg, len: usize) -> Result<usize> {
        dgram::dgram_sendmsg(sock, sk, msg, len)
    }
    fn recvmsg(
        sock: &Socket,
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        flags: MsgFlags,
    ) -> Result<usize> {
        dgram::dgram_recvmsg(sock, sk, msg, len, flags)
    }
}

/// `SOCK_SEQPACKET`: the datagram code plus connection checks; the core's copying
/// `splice_read`.
pub(crate) struct Seqpacket;

#[vtable]
impl SocketOps for Seqpacket {
    same_for_every_type!();
    // One function with its trampoline (`connect::stream_connect`).
    #[inline(always)]
    fn connect(_sock: &Socket, sk: &Sock, sun: &SunAddr, nonblock: bool) -> Result {
        connect::stream_connect(sk, sun, nonblock)
    }
    fn accept(listener: &Socket, sk: &Sock, newsock: NewSocket<'_>, nonblock: bool) -> Result {
        connect::accept(listener, sk, newsock, nonblock)
    }
    fn poll(sk: &Sock, requested: PollMask) -> PollMask {
        dgram::dgram_poll(sk, requested)
    }
    fn listen(sk: &Sock, backlog: i32) -> Result {
        proto::listen(sk, backlog)
    }
    fn sendmsg(sock: &Socket, sk: &Sock, msg: &mut Msg, len: usize) -> Result<usize> {
        dgram::seqpacket_sendmsg(sock, sk, msg, len)
    }
    fn recvmsg(
        sock: &Socket,
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        flags: MsgFlags,
    ) -> Result<usize> {
        dgram::seqpacket_recvmsg(sock, sk, msg, len, flags)
    }
}
