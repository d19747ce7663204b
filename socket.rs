// SPDX-License-Identifier: GPL-2.0

//! `struct proto_ops` from a safe trait: one trampoline per callback, generic over the
//! socket type, in the shape of the PHY and blk-mq abstractions.
//!
//! Callbacks this family does not implement yet point at the kernel's `sock_no_*`
//! functions: the socket core calls most `proto_ops` members without a NULL check.

use crate::bindings;
use crate::proto;
use crate::sock::{Msg, Socket};
use crate::wakeup;
use core::ffi::c_int;
use core::marker::PhantomData;
use kernel::error::{from_result, Result};

/// The operations of one socket type.
pub(crate) trait SocketOps {
    /// `sendmsg()`: returns the bytes sent.
    fn sendmsg(sock: &Socket, msg: &mut Msg, len: usize) -> Result<usize>;
    /// `recvmsg()`: returns the bytes received (or the datagram's length with
    /// `MSG_TRUNC`).
    fn recvmsg(sock: &Socket, msg: &mut Msg, len: usize, flags: u32) -> Result<usize>;
    /// `poll()`: the mask, after the caller is queued on the socket; `requested` is the
    /// events the poller asks for.
    fn poll(sock: &Socket, requested: u32) -> u32;
}

/// Looks up the `struct sock` of a socket in a callback (it is set until release).
fn sk_of(sock: &Socket) -> Result<&crate::sock::Sock> {
    sock.sk().ok_or(kernel::error::code::EINVAL)
}

/// `SOCK_STREAM`.
pub(crate) struct Stream;

impl SocketOps for Stream {
    fn sendmsg(sock: &Socket, msg: &mut Msg, len: usize) -> Result<usize> {
        proto::stream_sendmsg(sk_of(sock)?, msg, len)
    }
    fn recvmsg(sock: &Socket, msg: &mut Msg, len: usize, flags: u32) -> Result<usize> {
        proto::stream_recvmsg(sk_of(sock)?, msg, len, flags)
    }
    fn poll(sock: &Socket, _requested: u32) -> u32 {
        sock.sk().map_or(0, proto::stream_poll)
    }
}

/// `SOCK_DGRAM`.
pub(crate) struct Dgram;

impl SocketOps for Dgram {
    fn sendmsg(sock: &Socket, msg: &mut Msg, len: usize) -> Result<usize> {
        proto::dgram_sendmsg(sk_of(sock)?, msg, len)
    }
    fn recvmsg(sock: &Socket, msg: &mut Msg, len: usize, flags: u32) -> Result<usize> {
        proto::dgram_recvmsg(sk_of(sock)?, msg, len, flags)
    }
    fn poll(sock: &Socket, requested: u32) -> u32 {
        sock.sk().map_or(0, |sk| proto::dgram_poll(sk, requested))
    }
}

/// `SOCK_SEQPACKET`: the datagram code plus connection checks.
pub(crate) struct Seqpacket;

impl SocketOps for Seqpacket {
    fn sendmsg(sock: &Socket, msg: &mut Msg, len: usize) -> Result<usize> {
        proto::seqpacket_sendmsg(sk_of(sock)?, msg, len)
    }
    fn recvmsg(sock: &Socket, msg: &mut Msg, len: usize, flags: u32) -> Result<usize> {
        proto::seqpacket_recvmsg(sk_of(sock)?, msg, len, flags)
    }
    fn poll(sock: &Socket, requested: u32) -> u32 {
        sock.sk().map_or(0, |sk| proto::dgram_poll(sk, requested))
    }
}

/// The trampolines of `T`'s `proto_ops`.
struct Adapter<T: SocketOps>(PhantomData<T>);

/// Converts a byte count to the `c_int` a callback returns.
fn count(n: usize) -> Result<c_int> {
    // The socket core caps a call at `MAX_RW_COUNT`, so this does not fail in practice.
    c_int::try_from(n).map_err(|_| kernel::error::code::EINVAL)
}

impl<T: SocketOps> Adapter<T> {
    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family.
    unsafe extern "C" fn release(sock: *mut bindings::socket) -> c_int {
        // SAFETY: The core passes a live socket of this family.
        let sock = unsafe { Socket::from_raw(sock) };
        if let Some(sk) = sock.take_sk() {
            proto::release(sk);
        }
        0
    }

    /// # Safety
    ///
    /// Only called by the socket core, with two new sockets of this family and type.
    unsafe extern "C" fn socketpair(a: *mut bindings::socket, b: *mut bindings::socket) -> c_int {
        from_result(|| {
            // SAFETY: The core passes two live sockets of this family.
            let (a, b) = unsafe { (Socket::from_raw(a), Socket::from_raw(b)) };
            proto::socketpair(sk_of(a)?, sk_of(b)?)?;
            a.set_connected();
            b.set_connected();
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family and a buffer
    /// of `sizeof(struct sockaddr_storage)` bytes.
    unsafe extern "C" fn getname(
        sock: *mut bindings::socket,
        addr: *mut bindings::sockaddr,
        peer: c_int,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family.
            let sock = unsafe { Socket::from_raw(sock) };
            let len = proto::getname_len(sk_of(sock)?, peer != 0)?;
            // SAFETY: `addr` has room for a `struct sockaddr_un` (sockaddr_storage).
            unsafe {
                let sun = addr.cast::<bindings::sockaddr_un>();
                (*sun).sun_family = crate::family() as u16;
                (*sun).sun_path[0] = 0;
            }
            count(len)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with the arguments of a poll of a live socket.
    unsafe extern "C" fn poll(
        file: *mut bindings::file,
        sock: *mut bindings::socket,
        wait: *mut bindings::poll_table,
    ) -> bindings::__poll_t {
        // SAFETY: Arguments of a `poll` call.
        unsafe { wakeup::poll_wait(file, sock, wait) };
        // SAFETY: As above.
        let requested = unsafe { wakeup::poll_requested(wait) };
        // SAFETY: The core passes a live socket of this family.
        let sock = unsafe { Socket::from_raw(sock) };
        T::poll(sock, requested)
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family.
    unsafe extern "C" fn shutdown(sock: *mut bindings::socket, how: c_int) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family.
            let sock = unsafe { Socket::from_raw(sock) };
            proto::shutdown(sk_of(sock)?, how)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket and its message header.
    unsafe extern "C" fn sendmsg(
        sock: *mut bindings::socket,
        msg: *mut bindings::msghdr,
        len: usize,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family and the call's
            // message header, valid for the call.
            let (sock, mut msg) = unsafe { (Socket::from_raw(sock), Msg::from_raw(msg)?) };
            count(T::sendmsg(sock, &mut msg, len)?)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket and its message header.
    unsafe extern "C" fn recvmsg(
        sock: *mut bindings::socket,
        msg: *mut bindings::msghdr,
        len: usize,
        flags: c_int,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family and the call's
            // message header, valid for the call.
            let (sock, mut msg) = unsafe { (Socket::from_raw(sock), Msg::from_raw(msg)?) };
            count(T::recvmsg(sock, &mut msg, len, flags as u32)?)
        })
    }
}

/// Builds the `proto_ops` of `T` for the family number `family`.
pub(crate) fn proto_ops<T: SocketOps>(
    family: c_int,
    owner: *mut bindings::module,
) -> bindings::proto_ops {
    bindings::proto_ops {
        family,
        owner,
        release: Some(Adapter::<T>::release),
        bind: Some(bindings::sock_no_bind),
        connect: Some(bindings::sock_no_connect),
        socketpair: Some(Adapter::<T>::socketpair),
        accept: Some(bindings::sock_no_accept),
        getname: Some(Adapter::<T>::getname),
        poll: Some(Adapter::<T>::poll),
        ioctl: Some(bindings::sock_no_ioctl),
        listen: Some(bindings::sock_no_listen),
        shutdown: Some(Adapter::<T>::shutdown),
        sendmsg: Some(Adapter::<T>::sendmsg),
        recvmsg: Some(Adapter::<T>::recvmsg),
        mmap: Some(bindings::sock_no_mmap),
        ..Default::default()
    }
}
