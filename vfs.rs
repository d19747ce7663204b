// SPDX-License-Identifier: GPL-2.0

//! The file system side of pathname sockets: creating the socket inode on bind
//! (`unix_bind_bsd()`) and resolving a name on connect/send (`unix_find_bsd()`).
//!
//! Thin layer over `kern_path_create()`/`vfs_mknod()`/`kern_path()`; the names are
//! NUL-terminated pathnames of an [`Address`].

use crate::addr::Address;
use crate::bindings;
use crate::error::ECONNREFUSED;
use crate::sock::Sock;
use core::ffi::{c_int, c_uint};
use core::mem::MaybeUninit;
use core::ptr;
use kernel::error::{code::EINVAL, from_err_ptr, to_result, Error, Result};

/// The NUL-terminated pathname of a pathname address.
fn c_path(addr: &Address) -> Result<*const u8> {
    let name = addr.name();
    match (name.first(), name.last()) {
        (Some(&f), Some(0)) if f != 0 => Ok(name.as_ptr()),
        _ => Err(EINVAL),
    }
}

/// A path with references of its own to its mount and dentry (`path_get()`), put on
/// drop (`path_put()`).
///
/// # Invariants
///
/// `self.0.dentry` is not NULL, and `self.0` holds a reference to its mount and dentry.
pub(crate) struct HeldPath(bindings::path);

impl HeldPath {
    /// Takes new references to the path at `path`, unless its dentry is NULL.
    ///
    /// # Safety
    ///
    /// `path` is valid to read, and a path with a dentry is live (held by someone).
    pub(crate) unsafe fn get(path: *const bindings::path) -> Option<HeldPath> {
        // SAFETY: Valid to read (safety requirements).
        let p = unsafe { path.read() };
        if p.dentry.is_null() {
            return None;
        }
        // SAFETY: A live path (safety requirements).
        unsafe { bindings::path_get(&p) };
        // INVARIANT: The references were just taken.
        Some(HeldPath(p))
    }

    /// Moves the path at `path` and its references out, leaving an empty path (NULL
    /// mount and dentry); `None` if it was empty.
    ///
    /// # Safety
    ///
    /// `path` is valid to read and write, and a path with a dentry there holds its
    /// references, which the caller may take.
    pub(crate) unsafe fn take(path: *mut bindings::path) -> Option<HeldPath> {
        let empty = bindings::path {
            mnt: ptr::null_mut(),
            dentry: ptr::null_mut(),
        };
        // SAFETY: Valid (safety requirements).
        let p = unsafe { path.replace(empty) };
        // INVARIANT: The references move from `*path` (safety requirements).
        (!p.dentry.is_null()).then_some(HeldPath(p))
    }

    /// Gives the path with its references to the caller.
    pub(crate) fn into_raw(self) -> bindings::path {
        let p = self.0;
        core::mem::forget(self);
        p
    }

    /// Opens the path as an `O_PATH` file in a new close-on-exec fd of the calling task
    /// (as `unix_open_file()`); returns the fd.
    pub(crate) fn open_o_path(self) -> Result<i32> {
        // SAFETY: No requirements.
        let fd = unsafe { bindings::get_unused_fd_flags(bindings::O_CLOEXEC) };
        if fd < 0 {
            return Err(Error::from_errno(fd));
        }
        // CAST: `fd` is not negative.
        let ufd = fd as c_uint;
        // SAFETY: The path is held (type invariant); the caller's credentials are live.
        let f = from_err_ptr(unsafe {
            bindings::dentry_open(
                &self.0,
                bindings::O_PATH as c_int,
                bindings::afunix_current_cred(),
            )
        });
        match f {
            Err(e) => {
                // SAFETY: `fd` was reserved above and not installed.
                unsafe { bindings::put_unused_fd(ufd) };
                Err(e)
            }
            Ok(f) => {
                // SAFETY: `fd` was reserved above; the new file's reference moves into
                // the fd table.
                unsafe { bindings::fd_install(ufd, f) };
                Ok(fd)
            }
        }
    }
}

impl Drop for HeldPath {
    fn drop(&mut self) {
        // SAFETY: Held (type invariant).
        unsafe { bindings::afunix_path_put(&mut self.0) };
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
        // SAFETY: `sk` is a live socket with a `struct socket` (bind is a call on it),
        // whose inode lives as long; `current_umask` has no requirements.
        let mode = unsafe {
            let inode = bindings::afunix_sock_inode((*sk.as_ptr()).sk_socket);
            // CAST: `umode_t`, as C truncates `S_IFSOCK | (i_mode & ~umask)`.
            (bindings::S_IFSOCK
                | (u32::from((*inode).i_mode) & !(bindings::current_umask() as u32)))
                as u16
        };
        let mut parent = MaybeUninit::<bindings::path>::zeroed();
        // SAFETY: `name` is NUL-terminated; `parent` is written on success.
        let dentry = from_err_ptr(unsafe {
            bindings::kern_path_create(bindings::AT_FDCWD, name, parent.as_mut_ptr(), 0)
        })?;
        // SAFETY: Written by `kern_path_create` on success.
        let mut parent = unsafe { parent.assume_init() };
        // SAFETY: `parent` is held and `dentry` is its new, negative child, locked by
        // `kern_path_create`; the parent's dentry is positive (a directory).
        let err = unsafe {
            match bindings::afunix_security_path_mknod(&parent, dentry, mode, 0) {
                0 => bindings::vfs_mknod(
                    bindings::afunix_mnt_idmap(parent.mnt),
                    (*parent.dentry).d_inode,
                    dentry,
                    mode,
                    0,
                ),
                err => err,
            }
        };
        if let Err(e) = to_result(err) {
            // SAFETY: The pair came from `kern_path_create`.
            unsafe { bindings::afunix_mknod_done(&mut parent, dentry) };
            return Err(e);
        }
        // INVARIANT: Success: `parent` is held and `dentry` is the new inode's.
        Ok(NewSocketInode { parent, dentry })
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

    /// Records the path in `sk` (before `sk` enters the global pathname table).
    pub(crate) fn record_in(&mut self, sk: &Sock) {
        // SAFETY: The parent's mount and the new dentry are held (type invariant): new
        // references to them, for the socket.
        let path = unsafe {
            bindings::path {
                mnt: bindings::mntget(self.parent.mnt),
                dentry: bindings::afunix_dget(self.dentry),
            }
        };
        // INVARIANT: The references just taken, of a path with a dentry.
        let inode = self.inode();
        sk.set_path(HeldPath(path), inode, crate::hash::inode_key(inode));
    }

    /// Removes the inode again (the bind failed after the mknod).
    pub(crate) fn unlink(self) {
        let p = &self.parent;
        // SAFETY: The pair is live and the parent locked (type invariant); dropping
        // ends the creation. An error leaves the inode, as AF_UNIX.
        unsafe {
            bindings::vfs_unlink(
                bindings::afunix_mnt_idmap(p.mnt),
                (*p.dentry).d_inode,
                self.dentry,
                ptr::null_mut(),
            )
        };
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
/// The inode of `path` is a socket inode, `inode`.
pub(crate) struct SocketFile {
    path: HeldPath,
    inode: *mut bindings::inode,
}

impl SocketFile {
    /// Resolves the pathname of `addr` with the caller's cwd and root, following links
    /// (`unix_find_bsd()`); write permission needed, `ECONNREFUSED` if it is not a
    /// socket.
    pub(crate) fn lookup(addr: &Address) -> Result<SocketFile> {
        let name = c_path(addr)?;
        let mut path = MaybeUninit::<bindings::path>::zeroed();
        // SAFETY: `name` is NUL-terminated; `path` is written on success.
        to_result(unsafe {
            bindings::kern_path(name.cast(), bindings::LOOKUP_FOLLOW, path.as_mut_ptr())
        })?;
        // SAFETY: `kern_path` succeeded: `path` is written and held, with a dentry.
        // INVARIANT: The references move into the `HeldPath`.
        let path = HeldPath(unsafe { path.assume_init() });
        // SAFETY: The path is held.
        to_result(unsafe {
            bindings::afunix_path_permission(&path.0, bindings::MAY_WRITE as c_int)
        })?;
        // SAFETY: The path is held and its dentry positive (`kern_path` succeeded).
        let inode = unsafe { (*path.0.dentry).d_inode };
        // SAFETY: The inode lives while the path is held.
        if u32::from(unsafe { (*inode).i_mode }) & bindings::S_IFMT != bindings::S_IFSOCK {
            return Err(ECONNREFUSED.into());
        }
        // INVARIANT: A socket inode.
        Ok(SocketFile { path, inode })
    }

    /// The inode (compared, never followed by the caller).
    pub(crate) fn inode(&self) -> *mut bindings::inode {
        self.inode
    }

    /// `touch_atime()`: a successful connect or send marks the file accessed.
    pub(crate) fn touch_atime(&mut self) {
        // SAFETY: The path is held.
        unsafe { bindings::afunix_touch_atime(&mut self.path.0) };
    }
}
