// SPDX-License-Identifier: GPL-2.0

//! `struct proto_ops` from a `#[vtable]` trait: one trampoline per callback, generic
//! over the socket type, in the shape of `rust/kernel/net/phy.rs`.
//!
//! The protocol implements [`SocketOps`] once per socket type; [`proto_ops`] builds the
//! C table of an implementation. Optional callbacks (`accept`, `listen`,
//! `splice_read`) are chosen at compile time: without them the table points at the
//! kernel's `sock_no_*` functions (the socket core calls most members without a NULL
//! check) or, for `splice_read`, holds NULL (the core's copying fallback).

use crate::api::addr::{sun_addr_in, write_sockaddr};
use crate::api::addr::{SunAddr, UnixAddress};
use crate::api::bindings;
use crate::api::cmsg::SOL_SOCKET;
use crate::api::error::to_result;
use crate::api::kline::ARef;
use crate::api::sock::{Msg, MsgFlags, NewSocket, Pipe, Sock, Socket};
use crate::api::wait::PollMask;
use core::ffi::{c_int, c_uint};
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr;
use kernel::error::VTABLE_DEFAULT_ERROR;
use kernel::error::{from_result, Result};
use kernel::prelude::*;

/// What an ioctl returns: a value to write to the caller's int, or a result of its own.
pub(crate) enum IoctlAnswer {
    /// `put_user(value, (int __user *)arg)`.
    Int(i32),
    /// The call's return value (a new fd for `SIOCUNIXFILE`).
    Value(i32),
}

/// The operations of one socket type. Each callback gets the socket's `struct sock`
/// (set from creation until release); a callback on a socket without one fails with
/// `EINVAL` before reaching the trait.
#[vtable]
pub(crate) trait SocketOps {
    /// `release()`: the last close of the socket's file. The trampoline then drops
    /// the reference the `struct socket` held since creation (and orphans `sk`, if the
    /// protocol did not: `sk_socket` must not outlive the `struct socket`).
    fn release(sk: &Sock);
    /// `bind()`.
    fn bind(sk: &Sock, sun: &SunAddr) -> Result;
    /// `connect()`; `nonblock` from the file's `O_NONBLOCK`.
    fn connect(sock: &Socket, sk: &Sock, sun: &SunAddr, nonblock: bool) -> Result;
    /// `socketpair()` of two new sockets of this type.
    fn socketpair(a: &Sock, b: &Sock) -> Result;
    /// `accept()` on the listener `sk` of `listener`, into `newsock` (no `sk` yet).
    fn accept(_listener: &Socket, _sk: &Sock, _newsock: NewSocket<'_>, _nonblock: bool) -> Result {
        kernel::build_error!(VTABLE_DEFAULT_ERROR)
    }
    /// `getsockname()` (`peer` false) or `getpeername()`: `None` for an unnamed socket.
    fn getname(sk: &Sock, peer: bool) -> Result<Option<ARef<UnixAddress>>>;
    /// `poll()`: the mask, after the caller is queued on the socket; `requested` is the
    /// events the poller asks for.
    fn poll(sk: &Sock, requested: PollMask) -> PollMask;
    /// `ioctl()`: `None` for a command the socket core should try elsewhere
    /// (`ENOIOCTLCMD`).
    fn ioctl(sk: &Sock, cmd: u32) -> Option<Result<IoctlAnswer>>;
    /// `listen()`.
    fn listen(_sk: &Sock, _backlog: i32) -> Result {
        kernel::build_error!(VTABLE_DEFAULT_ERROR)
    }
    /// `shutdown()`, `how` as the caller passed it.
    fn shutdown(sk: &Sock, how: i32) -> Result;
    /// `sendmsg()`: returns the bytes sent.
    fn sendmsg(sock: &Socket, sk: &Sock, msg: &mut Msg, len: usize) -> Result<usize>;
    /// `recvmsg()`: returns the bytes received (or the datagram's length with
    /// `MSG_TRUNC`).
    fn recvmsg(
        sock: &Socket,
        sk: &Sock,
        msg: &mut Msg,
        len: usize,
        flags: MsgFlags,
    ) -> Result<usize>;
    /// `splice_read()`: `nonblock` from `O_NONBLOCK` or `SPLICE_F_NONBLOCK`,
    /// `has_offset` when the caller passed a non-zero offset.
    fn splice_read(
        _sock: &Socket,
        _sk: &Sock,
        _pipe: &Pipe,
        _len: usize,
        _nonblock: bool,
        _has_offset: bool,
    ) -> Result<usize> {
        kernel::build_error!(VTABLE_DEFAULT_ERROR)
    }
    /// The `scm_fds:` line of `/proc/<pid>/fdinfo/<fd>`.
    fn fdinfo_fds(sk: &Sock) -> u32;
    /// `setsockopt(SOL_SOCKET, optname)` of an option the family takes itself; `None`
    /// for the others, which go to the socket core (`sock_setsockopt`). The family's
    /// sockets have `SOCK_CUSTOM_SOCKOPT`, so every `SOL_SOCKET` option comes here
    /// first; other levels fail with `EOPNOTSUPP`, as on AF_UNIX (no `setsockopt`).
    fn sol_socket_option(sk: &Sock, optname: i32, opt: &SockOpt) -> Option<Result>;
}

/// The value of a `setsockopt` call (a `sockptr_t` and its length).
///
/// # Invariants
///
/// `val` and `len` are those of the running `setsockopt` call, as the socket core
/// passed them: a user pointer, or a kernel buffer of at least `len` bytes (the core's
/// or the cgroup BPF hook's). Only [`Adapter::setsockopt`] makes one (the fields are
/// private), and it lives only during that call.
pub(crate) struct SockOpt {
    val: bindings::sockptr_t,
    len: c_uint,
}

impl SockOpt {
    /// The option's length as the caller passed it.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The option as an int, as `sk_setsockopt()` reads it: `EINVAL` if shorter than
    /// an int, `EFAULT` if it cannot be read.
    pub(crate) fn int(&self) -> Result<i32> {
        if (self.len as usize) < core::mem::size_of::<c_int>() {
            return Err(EINVAL);
        }
        let mut v: c_int = 0;
        // SAFETY: `v` has room for an int. By the type invariant `val` is the running
        // call's buffer: a user pointer (read with a fault check) or a kernel buffer
        // of at least `len` bytes, and `len` is at least an int (checked above).
        let left = unsafe {
            bindings::afunix_copy_from_sockptr(
                ptr::addr_of_mut!(v).cast(),
                self.val,
                core::mem::size_of::<c_int>(),
            )
        };
        if left != 0 {
            return Err(EFAULT);
        }
        Ok(v)
    }
}

/// `SO_PASSCRED`, `SO_PASSSEC` and `SO_PASSPIDFD`, which the core's `sk_setsockopt` sets
/// for AF_UNIX (and netlink, bluetooth) only since 6.16: the family sets them itself.
#[cfg(kline_7_3)]
fn pass_flag_option(sk: &Sock, optname: c_int, opt: &SockOpt) -> Option<Result> {
    let bit = match u32::try_from(optname).ok()? {
        bindings::SO_PASSCRED => bindings::AFUNIX_PASS_CRED,
        bindings::SO_PASSSEC => bindings::AFUNIX_PASS_SEC,
        bindings::SO_PASSPIDFD => bindings::AFUNIX_PASS_PIDFD,
        _ => return None,
    };
    Some(opt.int().and_then(|v| {
        // The core's `sk_setsockopt` answers so without LSM socket hooks.
        if bit == bindings::AFUNIX_PASS_SEC && bindings::AFUNIX_HAS_SECURITY_NETWORK == 0 {
            return Err(crate::api::error::EOPNOTSUPP.into());
        }
        // SAFETY: `sk` is live; the call takes the socket's lock itself.
        unsafe { bindings::afunix_sk_set_pass_flag(sk.as_ptr(), bit, v != 0) };
        Ok(())
    }))
}

/// Looks up the `struct sock` of a socket in a callback (it is set until release).
fn sk_of(sock: &Socket) -> Result<&Sock> {
    sock.sk().ok_or(EINVAL)
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
        if let Some(sk) = sock.sk() {
            T::release(sk);
            sk.orphan_from(sock);
            // Freed at its last reference, as AF_UNIX's, if no lookup can reach it
            // without a lock.
            sk.release_rcu();
        }
        // `sock->sk = NULL` only after the orphan, as `unix_release()`: a sender that
        // saw `sk_socket` under the state lock may give the LSM `sk_socket->sk`.
        drop(sock.take_sk());
        0
    }

    /// # Safety
    ///
    /// Only called by the socket core, with two new sockets of this family and type.
    unsafe extern "C" fn socketpair(a: *mut bindings::socket, b: *mut bindings::socket) -> c_int {
        from_result(|| {
            // SAFETY: The core passes two live sockets of this family.
            let (a, b) = unsafe { (Socket::from_raw(a), Socket::from_raw(b)) };
            T::socketpair(sk_of(a)?, sk_of(b)?)?;
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
            let sk = sk_of(sock)?;
            let a = T::getname(sk, peer != 0)?;
            // SAFETY: `addr` is a `struct sockaddr_storage` of the core.
            count(unsafe { write_sockaddr(addr, a.as_deref().map(|u| &**u), sk.as_unix()) })
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
        // SAFETY: Arguments of a `poll` call: `sock_poll_wait(file, sock, wait)` queues
        // the caller on the socket's wait queue.
        unsafe { bindings::afunix_poll_wait(file, sock, wait) };
        // SAFETY: As above; `poll_requested_events(wait)` reads the table, if any.
        let requested = unsafe { bindings::afunix_poll_requested(wait) };
        // SAFETY: The core passes a live socket of this family.
        let sock = unsafe { Socket::from_raw(sock) };
        sock.sk()
            .map_or(0, |sk| T::poll(sk, PollMask::from_raw(requested)).raw())
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family and an
    /// address of `len` bytes in a `struct sockaddr_storage`.
    unsafe extern "C" fn bind(
        sock: *mut bindings::socket,
        addr: *mut OpsSockaddr,
        len: c_int,
    ) -> c_int {
        from_result(|| {
            let mut slot = MaybeUninit::uninit();
            // SAFETY: The core passes a live socket and a 128-byte address buffer.
            let (sock, sun) = unsafe { (Socket::from_raw(sock), raw_addr(&mut slot, addr, len)) };
            T::bind(sk_of(sock)?, sun)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// As for `bind`.
    unsafe extern "C" fn connect(
        sock: *mut bindings::socket,
        addr: *mut OpsSockaddr,
        len: c_int,
        flags: c_int,
    ) -> c_int {
        from_result(|| {
            let mut slot = MaybeUninit::uninit();
            // SAFETY: The core passes a live socket and a 128-byte address buffer.
            let (sock, sun) = unsafe { (Socket::from_raw(sock), raw_addr(&mut slot, addr, len)) };
            T::connect(sock, sk_of(sock)?, sun, flags & O_NONBLOCK != 0)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family.
    unsafe extern "C" fn listen(sock: *mut bindings::socket, backlog: c_int) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family.
            let sock = unsafe { Socket::from_raw(sock) };
            T::listen(sk_of(sock)?, backlog)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live listening socket of this family, a
    /// new socket without `sk`, and the call's arguments.
    unsafe extern "C" fn accept(
        sock: *mut bindings::socket,
        newsock: *mut bindings::socket,
        arg: *mut bindings::proto_accept_arg,
    ) -> c_int {
        from_result(|| {
            // SAFETY: Arguments of an `accept` call, valid for the call; `newsock` is its
            // new socket, without `sk`, lent once.
            let (sock, newsock, flags) = unsafe {
                (
                    Socket::from_raw(sock),
                    NewSocket::new(Socket::from_raw(newsock)),
                    (*arg).flags,
                )
            };
            T::accept(sock, sk_of(sock)?, newsock, flags & O_NONBLOCK != 0)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family and the
    /// ioctl's command and argument.
    unsafe extern "C" fn ioctl(
        sock: *mut bindings::socket,
        cmd: core::ffi::c_uint,
        arg: usize,
    ) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family.
            let sock = unsafe { Socket::from_raw(sock) };
            match T::ioctl(sk_of(sock)?, cmd) {
                None => Err(kernel::error::Error::from_errno(
                    -(bindings::AFUNIX_ENOIOCTLCMD as i32),
                )),
                Some(Ok(IoctlAnswer::Int(v))) => {
                    put_user_int(arg, v)?;
                    Ok(0)
                }
                Some(Ok(IoctlAnswer::Value(v))) => Ok(v),
                Some(Err(e)) => Err(e),
            }
        })
    }

    /// `compat_ioctl()` (`unix_compat_ioctl()`): a 32-bit caller's ioctl, the same
    /// commands with the argument made a pointer (`compat_ptr()`).
    ///
    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family and the
    /// ioctl's command and argument.
    #[cfg(CONFIG_COMPAT)]
    unsafe extern "C" fn compat_ioctl(
        sock: *mut bindings::socket,
        cmd: core::ffi::c_uint,
        arg: usize,
    ) -> c_int {
        // SAFETY: `compat_ptr()` only converts the value.
        let arg = unsafe { bindings::afunix_compat_arg(arg) };
        // SAFETY: The caller's guarantees are `ioctl`'s.
        unsafe { Self::ioctl(sock, cmd, arg) }
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family and the
    /// option buffer of a `setsockopt` call.
    unsafe extern "C" fn setsockopt(
        sock: *mut bindings::socket,
        level: c_int,
        optname: c_int,
        optval: bindings::sockptr_t,
        optlen: c_uint,
    ) -> c_int {
        from_result(|| {
            if level != SOL_SOCKET {
                return Err(crate::api::error::EOPNOTSUPP.into());
            }
            // SAFETY: The core passes a live socket of this family.
            let s = unsafe { Socket::from_raw(sock) };
            let opt = SockOpt {
                val: optval,
                len: optlen,
            };
            if let Some(r) = T::sol_socket_option(sk_of(s)?, optname, &opt) {
                r?;
                return Ok(0);
            }
            #[cfg(kline_7_3)]
            if let Some(r) = pass_flag_option(sk_of(s)?, optname, &opt) {
                r?;
                return Ok(0);
            }
            // SAFETY: The arguments of this call, handed on unchanged.
            to_result(unsafe { bindings::sock_setsockopt(sock, level, optname, optval, optlen) })?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the socket core, with a live socket of this family.
    unsafe extern "C" fn shutdown(sock: *mut bindings::socket, how: c_int) -> c_int {
        from_result(|| {
            // SAFETY: The core passes a live socket of this family.
            let sock = unsafe { Socket::from_raw(sock) };
            T::shutdown(sk_of(sock)?, how)?;
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
            count(T::sendmsg(sock, sk_of(sock)?, &mut msg, len)?)
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
            let sk = sk_of(sock)?;
            if sk.as_unix() {
                msg.names_as_unix();
            }
            count(T::recvmsg(
                sock,
                sk,
                &mut msg,
                len,
                MsgFlags::from_raw(flags as u32),
            )?)
        })
    }

    /// # Safety
    ///
    /// Only called by the core, with a live socket of this family, the call's offset
    /// pointer and pipe.
    unsafe extern "C" fn splice_read(
        sock: *mut bindings::socket,
        ppos: *mut bindings::loff_t,
        pipe: *mut bindings::pipe_inode_info,
        len: usize,
        flags: core::ffi::c_uint,
    ) -> isize {
        // SAFETY: The core passes a live socket of this family, whose file is set (a
        // splice goes through it), a valid offset pointer and the pipe of the call.
        let (sock, has_offset, nonblock, pipe) = unsafe {
            let nonblock = (*(*sock).file).f_flags & bindings::O_NONBLOCK != 0
                || flags & bindings::AFUNIX_SPLICE_F_NONBLOCK != 0;
            (
                Socket::from_raw(sock),
                !ppos.is_null() && *ppos != 0,
                nonblock,
                Pipe::from_raw(pipe, flags),
            )
        };
        let r =
            sk_of(sock).and_then(|sk| T::splice_read(sock, sk, &pipe, len, nonblock, has_offset));
        match r {
            Ok(n) => n as isize,
            Err(e) => e.to_errno() as isize,
        }
    }

    /// # Safety
    ///
    /// Only called by the core, with the seq_file being shown and a live socket of this
    /// family.
    unsafe extern "C" fn show_fdinfo(m: *mut bindings::seq_file, sock: *mut bindings::socket) {
        // SAFETY: The core passes a live socket of this family.
        let sock = unsafe { Socket::from_raw(sock) };
        let Some(sk) = sock.sk() else {
            return;
        };
        let n: core::ffi::c_uint = T::fdinfo_fds(sk);
        // (7.3's kernel::seq_print! would write this one line on 7.3 alone: see api/seq.rs.)
        // SAFETY: `m` is the seq_file being shown; the argument matches the format.
        unsafe { bindings::seq_printf(m, c"scm_fds: %u\n".to_bytes_with_nul().as_ptr().cast(), n) };
    }
}

/// `O_NONBLOCK`, in the flags of connect and accept.
const O_NONBLOCK: c_int = bindings::O_NONBLOCK as c_int;

/// The address of `proto_ops.bind` and `.connect`: `struct sockaddr_unsized` since 6.19.
#[cfg(kline_6_12)]
type OpsSockaddr = bindings::sockaddr;
#[cfg(kline_7_3)]
type OpsSockaddr = bindings::sockaddr_unsized;

/// Copies the address of a bind or connect into `slot`.
///
/// # Safety
///
/// `addr` is a `struct sockaddr_storage` of the socket core holding `len` bytes.
unsafe fn raw_addr(
    slot: &mut MaybeUninit<SunAddr>,
    addr: *mut OpsSockaddr,
    len: c_int,
) -> &SunAddr {
    let len = usize::try_from(len).unwrap_or(0);
    // SAFETY: `addr` has 128 readable bytes; at most 110 are read.
    unsafe { sun_addr_in(slot, addr.cast(), len) }
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
        bind: Some(Adapter::<T>::bind),
        connect: Some(Adapter::<T>::connect),
        socketpair: Some(Adapter::<T>::socketpair),
        accept: Some(if T::HAS_ACCEPT {
            Adapter::<T>::accept
        } else {
            bindings::sock_no_accept
        }),
        getname: Some(Adapter::<T>::getname),
        poll: Some(Adapter::<T>::poll),
        ioctl: Some(Adapter::<T>::ioctl),
        #[cfg(CONFIG_COMPAT)]
        compat_ioctl: Some(Adapter::<T>::compat_ioctl),
        listen: Some(if T::HAS_LISTEN {
            Adapter::<T>::listen
        } else {
            bindings::sock_no_listen
        }),
        shutdown: Some(Adapter::<T>::shutdown),
        setsockopt: Some(Adapter::<T>::setsockopt),
        sendmsg: Some(Adapter::<T>::sendmsg),
        recvmsg: Some(Adapter::<T>::recvmsg),
        mmap: Some(bindings::sock_no_mmap),
        // `SO_PEEK_OFF`: the core's `WRITE_ONCE`, no lock, as AF_UNIX's ops.
        set_peek_off: Some(bindings::sk_set_peek_off),
        show_fdinfo: Some(Adapter::<T>::show_fdinfo),
        splice_read: if T::HAS_SPLICE_READ {
            Some(Adapter::<T>::splice_read)
        } else {
            None
        },
        ..Default::default()
    }
}

/// Writes an int to a user pointer of an ioctl (`put_user`).
pub(crate) fn put_user_int(arg: usize, val: i32) -> Result {
    // SAFETY: `put_user` checks the user address; `arg` is the ioctl's argument.
    to_result(unsafe { bindings::afunix_put_int(arg as kernel::ffi::c_ulong, val) })
}
