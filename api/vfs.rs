// SPDX-License-Identifier: GPL-2.0

//! The file system of pathname sockets: held paths, the creation of a socket inode
//! (`kern_path_create()`, the LSM's `security_path_mknod()`, `vfs_mknod()`), the
//! lookup of a name (`kern_path()`, `path_permission()`), and the `O_PATH` file of a
//! socket's path.
//!
//! Which names, modes and permissions bind and connect use, and their errnos, are the
//! protocol layer's.

use crate::api::bindings;
use crate::api::error::to_result;
use core::ffi::{c_int, c_uint};
use core::mem::MaybeUninit;
use core::ptr;
use kernel::error::{from_err_ptr, Error, Result};
use kernel::str::CStr;
// 7.3's `CStr` is core's, with the kernel's methods in an extension trait.
#[cfg(kline_7_3)]
use kernel::str::CStrExt as _;

/// `S_IFSOCK`: the file type of a socket inode.
pub(crate) const S_IFSOCK: u32 = bindings::S_IFSOCK;

/// `MAY_WRITE`: write permission, for [`HeldPath::permission`].
pub(crate) const MAY_WRITE: i32 = bindings::MAY_WRITE as i32;

/// `current_umask()`: the calling task's umask.
#[inline]
pub(crate) fn current_umask() -> u32 {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_current_umask() as u32 }
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
        if p.dentry.is_null() {
            return None;
        }
        // INVARIANT: The references move from `*path` (safety requirements). (Not
        // `then_some`, which would build and drop an empty `HeldPath`: a `path_put`.)
        Some(HeldPath(p))
    }

    /// Resolves `name` with the caller's cwd and root, following links
    /// (`kern_path(name, LOOKUP_FOLLOW)`).
    pub(crate) fn lookup_follow(name: &CStr) -> Result<HeldPath> {
        let mut path = MaybeUninit::<bindings::path>::zeroed();
        // SAFETY: `name` is NUL-terminated; `path` is written on success.
        to_result(unsafe {
            bindings::kern_path(
                name.as_char_ptr(),
                bindings::AFUNIX_LOOKUP_FOLLOW,
                path.as_mut_ptr(),
            )
        })?;
        // SAFETY: `kern_path` succeeded: `path` is written and held, with a dentry.
        // INVARIANT: The references move into the `HeldPath`.
        Ok(HeldPath(unsafe { path.assume_init() }))
    }

    /// `path_permission()`: whether the caller may access the inode as `mask` asks
    /// (`MAY_*` bits), with the LSM's say.
    pub(crate) fn permission(&self, mask: i32) -> Result {
        // SAFETY: The path is held (type invariant).
        to_result(unsafe { bindings::afunix_path_permission(&self.0, mask as c_int) })
    }

    /// The inode (compared, never followed by the caller); NULL for a negative dentry.
    pub(crate) fn inode(&self) -> *mut bindings::inode {
        // SAFETY: The dentry is held (type invariant).
        unsafe { (*self.0.dentry).d_inode }
    }

    /// Whether the inode is a socket inode.
    pub(crate) fn is_socket(&self) -> bool {
        let inode = self.inode();
        // SAFETY: The inode of a held dentry lives while the path is held.
        !inode.is_null()
            && u32::from(unsafe { (*inode).i_mode }) & bindings::S_IFMT == bindings::S_IFSOCK
    }

    /// `touch_atime()`: marks the file accessed.
    pub(crate) fn touch_atime(&mut self) {
        // SAFETY: The path is held (type invariant).
        unsafe { bindings::afunix_touch_atime(&mut self.0) };
    }

    /// Gives the path with its references to the caller.
    pub(crate) fn into_raw(self) -> bindings::path {
        let p = self.0;
        core::mem::forget(self);
        p
    }

    /// Opens the path as an `O_PATH` file in a new close-on-exec fd of the calling task
    /// (as `unix_open_file()`); returns the fd.
    // 7.3's kernel::fs::file::FileDescriptorReservation: not used: 6.12 lacks it, and it
    // would replace one local reserve/put/install triple on one line only.
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
    /// Creates the inode `name`, relative to the caller's cwd, with `mode` (file type
    /// and permissions): `kern_path_create()`, then `security_path_mknod()` and
    /// `vfs_mknod()`. `EEXIST` when the name is taken.
    pub(crate) fn mknod(name: &CStr, mode: u16) -> Result<NewSocketInode> {
        let mut parent = MaybeUninit::<bindings::path>::zeroed();
        // SAFETY: `name` is NUL-terminated; `parent` is written on success.
        let dentry = from_err_ptr(unsafe {
            bindings::afunix_path_create(name.as_char_ptr(), parent.as_mut_ptr())
        })?;
        // SAFETY: Written by `afunix_path_create` (`kern_path_create`) on success.
        let mut parent = unsafe { parent.assume_init() };
        // SAFETY: `parent` is held and `dentry` is its new, negative child, locked by
        // `kern_path_create`; the parent's dentry is positive (a directory).
        let err = unsafe {
            match bindings::afunix_security_path_mknod(&parent, dentry, mode, 0) {
                0 => bindings::afunix_vfs_mknod(
                    bindings::afunix_mnt_idmap(parent.mnt),
                    (*parent.dentry).d_inode,
                    dentry,
                    mode,
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
        #[cfg(kline_6_12)]
        // SAFETY: The inode is live while its dentry is held.
        let ino = unsafe { (*self.inode()).i_ino as u64 };
        // 7.3's `i_ino` is a u64.
        #[cfg(kline_7_3)]
        // SAFETY: As above.
        let ino = unsafe { (*self.inode()).i_ino };
        ino
    }

    /// The new inode's path, with references of its own (for the socket).
    pub(crate) fn path(&self) -> HeldPath {
        // SAFETY: The parent's mount and the new dentry are held (type invariant): new
        // references to them, for the socket.
        let path = unsafe {
            bindings::path {
                mnt: bindings::mntget(self.parent.mnt),
                dentry: bindings::afunix_dget(self.dentry),
            }
        };
        // INVARIANT: The references just taken, of a path with a dentry.
        HeldPath(path)
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
    /// The socket inode of `path`; `None` if its inode is not a socket's.
    pub(crate) fn of_path(path: HeldPath) -> Option<SocketFile> {
        if !path.is_socket() {
            return None;
        }
        let inode = path.inode();
        // INVARIANT: A socket inode.
        Some(SocketFile { path, inode })
    }

    /// The inode (compared, never followed by the caller).
    pub(crate) fn inode(&self) -> *mut bindings::inode {
        self.inode
    }

    /// `touch_atime()`: a successful connect or send marks the file accessed.
    pub(crate) fn touch_atime(&mut self) {
        self.path.touch_atime();
    }

    /// The held path, for an LSM hook.
    pub(in crate::api) fn path_ptr(&self) -> *const bindings::path {
        &self.path.0
    }
}
