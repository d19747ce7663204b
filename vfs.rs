// SPDX-License-Identifier: GPL-2.0

//! The file system side of pathname sockets, as 6.12 does it: creating the socket inode
//! on bind (`unix_bind_bsd()`) and resolving a name on connect/send (`unix_find_bsd()`).
//!
//! A bind creates the NUL-terminated pathname of its [`Address`]; a connect or send
//! resolves the caller's validated name (a `CStr` into its address). The path and inode
//! operations are [`crate::api::vfs`]'s.

#![deny(unsafe_code)]

use crate::api::addr::Address;
use crate::api::error::ECONNREFUSED;
use crate::api::sock::Sock;
use crate::api::vfs::{current_umask, HeldPath, MAY_WRITE, S_IFSOCK};
pub(crate) use crate::api::vfs::{NewSocketInode, SocketFile};
use kernel::error::{code::EINVAL, Result};
use kernel::str::CStr;

/// The NUL-terminated pathname of a pathname address.
fn c_path(addr: &Address) -> Result<&CStr> {
    let name = addr.name();
    match (name.first(), name.last()) {
        // A pathname address ends at its first NUL (`UnixAddress::of`).
        (Some(&f), Some(0)) if f != 0 => CStr::from_bytes_with_nul(name).map_err(|_| EINVAL),
        _ => Err(EINVAL),
    }
}

impl NewSocketInode {
    /// Creates the socket inode of `sk` named by `addr`, relative to the caller's cwd,
    /// with the socket's mode under the caller's umask. `EEXIST` (the name is taken)
    /// is the caller's to turn into `EADDRINUSE`.
    pub(crate) fn create(sk: &Sock, addr: &Address) -> Result<NewSocketInode> {
        let name = c_path(addr)?;
        // Bind is a call on the socket: it has its `struct socket`.
        let i_mode = sk.socket_inode_mode().ok_or(EINVAL)?;
        // CAST: `umode_t`, as C truncates `S_IFSOCK | (i_mode & ~umask)`.
        let mode = (S_IFSOCK | (u32::from(i_mode) & !current_umask())) as u16;
        NewSocketInode::mknod(name, mode)
    }
}

impl SocketFile {
    /// Resolves the pathname `name` with the caller's cwd and root, following links
    /// (`unix_find_bsd()`); write permission needed, `ECONNREFUSED` if it is not a
    /// socket.
    pub(crate) fn lookup(name: &CStr) -> Result<SocketFile> {
        let path = HeldPath::lookup_follow(name)?;
        path.permission(MAY_WRITE)?;
        SocketFile::of_path(path).ok_or_else(|| ECONNREFUSED.into())
    }
}
