// SPDX-License-Identifier: GPL-2.0

//! The file system side of pathname sockets: creating the socket inode on bind
//! (`unix_bind_bsd()`) and resolving a name on connect/send (`unix_find_bsd()`).
//!
//! Thin layer over `kern_path_create()`/`vfs_mknod()`/`kern_path()`; the names are
//! NUL-terminated pathnames of an [`Address`].

use crate::addr::Address;
use crate::bindings;
use crate::sock::Sock;
use core::mem::MaybeUninit;
use kernel::error::{code::EINVAL, Error, Result};

/// The NUL-terminated pathname of a pathname address.
fn c_path(addr: &Address) -> Result<*const u8> {
    let name = addr.name();
    match (name.first(), name.last()) {
        (Some(&f), Some(0)) if f != 0 => Ok(name.as_ptr()),
        _ => Err(EINVAL),
    }
}

/// A socket inode just created by `bind`, with its parent directory held.
///
/// # Invariants
///
/// `dentry` is the new, positive dentry of a `vfs_mknod` in `parent`, and the pair
/// came from `kern_path_create` (ended by `done_path_create` on drop).
pub(crate) struct NewSocketInode {
    parent: bindings::path,
    dentry: *mut bindings::dentry,
}

impl NewSocketInode {
    /// Creates the socket inode of `sk` named by `addr`, relative to the caller's cwd,
    /// with the socket's mode under the caller's umask. `EEXIST` (the name is taken)
    /// is the caller's to turn into `EADDRINUSE`.
    pub(crate) fn create(sk: &Sock, addr: &Address) -> Result<NewSocketInode> {
        let name = c_path(addr)?.cast();
        let mut parent = MaybeUninit::<bindings::path>::zeroed();
        let out = parent.as_mut_ptr();
        // SAFETY: `sk` is a live socket with a `struct socket` (bind); `name` is
        // NUL-terminated; `out` is written on success.
        let dentry = unsafe { bindings::afunix_mknod(sk.as_ptr(), name, out) };
        let e = dentry as isize;
        if (-4095..0).contains(&e) {
            return Err(Error::from_errno(e as i32));
        }
        // INVARIANT: Success: `parent` is held and `dentry` is the new inode's.
        Ok(NewSocketInode {
            // SAFETY: Written by `afunix_mknod` on success.
            parent: unsafe { parent.assume_init() },
            dentry,
        })
    }

    /// The new inode (compared, never followed by the caller).
    pub(crate) fn inode(&self) -> *mut bindings::inode {
        // SAFETY: `dentry` is positive (type invariant).
        unsafe { (*self.dentry).d_inode }
    }

    /// The new inode's number.
    pub(crate) fn ino(&self) -> u64 {
        // SAFETY: The inode is live while its dentry is held.
        unsafe { (*self.inode()).i_ino as u64 }
    }

    /// Records the path in `sk` (before `sk` is published in any table).
    pub(crate) fn record_in(&mut self, sk: &Sock) {
        // SAFETY: `sk` is a live socket of this family, bound by the caller under its
        // bind lock; the helper takes references of its own.
        unsafe { bindings::afunix_set_path(sk.as_ptr(), &mut self.parent, self.dentry) };
    }

    /// Removes the inode again (the bind failed after the mknod).
    pub(crate) fn unlink(mut self) {
        // SAFETY: The pair is live (type invariant); dropping ends the creation.
        unsafe { bindings::afunix_mknod_unlink(&mut self.parent, self.dentry) };
    }
}

impl Drop for NewSocketInode {
    fn drop(&mut self) {
        // SAFETY: The pair came from `kern_path_create` (type invariant).
        unsafe { bindings::afunix_mknod_done(&mut self.parent, self.dentry) };
    }
}

/// A socket inode found by name, held.
///
/// # Invariants
///
/// `path` is held and its inode is a socket inode, `inode`.
pub(crate) struct SocketFile {
    path: bindings::path,
    inode: *mut bindings::inode,
}

impl SocketFile {
    /// Resolves the pathname of `addr` (following links; write permission needed);
    /// `ECONNREFUSED` if it is not a socket.
    pub(crate) fn lookup(addr: &Address) -> Result<SocketFile> {
        let name = c_path(addr)?;
        let mut path = MaybeUninit::<bindings::path>::zeroed();
        let mut inode = core::ptr::null_mut();
        // SAFETY: `name` is NUL-terminated; the out pointers are valid.
        let r = unsafe {
            bindings::afunix_lookup_socket_inode(name.cast(), path.as_mut_ptr(), &mut inode)
        };
        kernel::error::to_result(r)?;
        // INVARIANT: Success: held, and a socket inode.
        Ok(SocketFile {
            // SAFETY: Written on success.
            path: unsafe { path.assume_init() },
            inode,
        })
    }

    /// The inode (compared, never followed by the caller).
    pub(crate) fn inode(&self) -> *mut bindings::inode {
        self.inode
    }

    /// The inode's number.
    pub(crate) fn ino(&self) -> u64 {
        // SAFETY: The inode is live while the path is held.
        unsafe { (*self.inode).i_ino as u64 }
    }

    /// `touch_atime()`: a successful connect or send marks the file accessed.
    pub(crate) fn touch_atime(&mut self) {
        // SAFETY: The path is held (type invariant).
        unsafe { bindings::afunix_touch_atime(&mut self.path) };
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::afunix_path_put(&mut self.path) };
    }
}
