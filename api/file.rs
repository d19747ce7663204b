// SPDX-License-Identifier: GPL-2.0

//! Files and the fd lists of `SCM_RIGHTS`: a reference to an open file, an fd list (the
//! kernel's `struct scm_fp_list`, so that `scm_detach_fds()` can install it), the
//! sockets of this family among its files, and the installation of a received list
//! into the caller's fd table.
//!
//! What a list may hold, what a receive reports without it and the accounting of lists
//! in flight are the protocol layer's.

use crate::api::bindings;
use crate::api::msg::Msg;
use crate::api::param;
use core::ptr::{self, NonNull};
use kernel::error::{code::ENOMEM, Result};
use kernel::types::Opaque;

/// `SCM_MAX_FD`: the files of one list at most.
pub(crate) const SCM_MAX_FD: usize = bindings::AFUNIX_SCM_MAX_FD as usize;

/// A reference to an open file, put on drop (`fput()`).
// 7.3's kernel::fs::LocalFile: not used: its fget() refuses O_PATH fds, which SCM_RIGHTS
// passes (scm_fp_copy()'s fget_raw()); the files then move into a C scm_fp_list.
///
/// # Invariants
///
/// `self.0` is a file on which this value owns one reference.
pub(crate) struct File(NonNull<bindings::file>);

impl File {
    /// `fget_raw(fd)`: the calling task's open file `fd`, `O_PATH` files included;
    /// `None` if `fd` is not open.
    pub(crate) fn get_raw(fd: u32) -> Option<File> {
        // SAFETY: Looks the fd up in the caller's table; a file found is held.
        let file = unsafe { bindings::fget_raw(fd) };
        // INVARIANT: `fget_raw` took the reference this value owns.
        NonNull::new(file).map(File)
    }

    /// Whether the file is an io_uring instance: `io_is_uring_fops()` is not exported,
    /// but an io_uring file is the anonymous inode named `[io_uring]`, and only io_uring
    /// makes one of that name.
    pub(crate) fn is_io_uring(&self) -> bool {
        let file = self.0.as_ptr();
        // SAFETY: A held file (type invariant) has its mode, inode, superblock and
        // dentry, whose name is stable for an anonymous inode file (it cannot be
        // renamed).
        unsafe {
            // An `O_PATH` file of an io_uring instance is not one (`empty_fops`).
            if (*file).f_mode & bindings::AFUNIX_FMODE_PATH != 0 {
                return false;
            }
            let inode = (*file).f_inode;
            if (*(*inode).i_sb).s_magic as u64 != u64::from(bindings::AFUNIX_ANON_INODE_FS_MAGIC) {
                return false;
            }
            let dentry = bindings::afunix_file_dentry(file);
            let mut len = 0;
            let name = bindings::afunix_dentry_name(dentry, &mut len);
            core::slice::from_raw_parts(name, len as usize) == b"[io_uring]"
        }
    }

    /// Whether the file is a socket of AF_UNIX, as the kernel's collector tells its own
    /// (`unix_get_socket()`): a socket file whose ops are `PF_UNIX`'s. An `O_PATH` file
    /// of a socket is not one (`sock_from_file()` sees `empty_fops`).
    pub(crate) fn is_af_unix_socket(&self) -> bool {
        // SAFETY: A held file (type invariant) has its inode; `sock_from_file` returns
        // its socket, which lives while the file does, or NULL for another kind of file.
        unsafe {
            if !has_socket_inode(self.0.as_ptr()) {
                return false;
            }
            let sock = bindings::sock_from_file(self.0.as_ptr());
            if sock.is_null() {
                return false;
            }
            // `READ_ONCE(sock->ops)`, as `unix_get_socket()`.
            let ops = ptr::read_volatile(ptr::addr_of!((*sock).ops));
            !ops.is_null() && (*ops).family == bindings::PF_UNIX as i32
        }
    }

    /// Gives the reference up to the caller.
    fn into_raw(self) -> *mut bindings::file {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl Drop for File {
    fn drop(&mut self) {
        // SAFETY: The reference this value owns (type invariant).
        unsafe { bindings::fput(self.0.as_ptr()) };
    }
}

/// The bytes of a `struct scm_fp_list` before its slots: all of it a borrow covers
/// (a list has only the slots it was allocated with, [`FdList::with_capacity`]).
const FPL_HEADER: usize = core::mem::offset_of!(bindings::scm_fp_list, fp);

/// The files of one message, borrowed.
///
/// # Invariants
///
/// The list is valid while borrowed, and its first `count` slots hold files it holds a
/// reference to; `count` and `count_unix` change only through an owning [`FdList`].
#[repr(transparent)]
pub(crate) struct Fds(Opaque<[u8; FPL_HEADER]>);

impl Fds {
    /// # Safety
    ///
    /// `ptr` is a valid list for `'a` whose first `count` files are held by it.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::scm_fp_list) -> &'a Fds {
        // CAST: `Fds` is `repr(transparent)` over the list's header bytes.
        // SAFETY: Valid for `'a` (safety requirements).
        unsafe { &*ptr.cast() }
    }

    fn as_ptr(&self) -> *mut bindings::scm_fp_list {
        self.0.get().cast()
    }

    /// The number of files.
    pub(crate) fn len(&self) -> usize {
        // SAFETY: A valid list; `count` changes only through `&mut FdList`.
        usize::try_from(unsafe { (*self.as_ptr()).count }).unwrap_or(0)
    }

    /// How many of the files are sockets of this family (`count_unix`).
    pub(crate) fn count_socks(&self) -> usize {
        // SAFETY: As in `len`.
        usize::try_from(unsafe { (*self.as_ptr()).count_unix }).unwrap_or(0)
    }

    pub(super) fn file(&self, i: usize) -> *mut bindings::file {
        if i >= self.len() {
            return ptr::null_mut();
        }
        // SAFETY: A valid list whose first `count` slots (`i` is one) hold files; the
        // slot is read through a raw pointer (the slots past `count` are not
        // initialised).
        unsafe { slot(self.as_ptr(), i).read() }
    }
}

/// The address of slot `i` of a list's `fp` array, without a reference to the array.
///
/// # Safety
///
/// `p` is a valid list and `i` is below its `max`, the slots allocated.
unsafe fn slot(p: *mut bindings::scm_fp_list, i: usize) -> *mut *mut bindings::file {
    // SAFETY: The allocation has `max` slots and `i` is below (safety requirements).
    unsafe {
        ptr::addr_of_mut!((*p).fp)
            .cast::<*mut bindings::file>()
            .add(i)
    }
}

/// An fd list this value owns: a `struct scm_fp_list` (kmalloc'd) and a reference to
/// each of its files.
///
/// # Invariants
///
/// `self.0` is a list from `afunix_fpl_alloc` with `max` slots (1 to `SCM_MAX_FD`), its
/// other header fields zeroed; its first `count` files are references it owns;
/// `count_unix` of them are sockets of this family.
pub(crate) struct FdList(NonNull<bindings::scm_fp_list>);

// SAFETY: The list is plain memory and file references, usable from any thread.
unsafe impl Send for FdList {}

impl FdList {
    /// An empty list with room for `n` files (at least one, at most `SCM_MAX_FD`).
    /// `scm_fp_copy()` always allocates `SCM_MAX_FD` slots (2 KiB, from the 4 KiB
    /// kmalloc cache, which a message of one fd then takes and frees); a list sized to
    /// its files comes from the small caches.
    pub(crate) fn with_capacity(n: usize) -> Result<FdList> {
        let max = n.clamp(1, SCM_MAX_FD);
        // SAFETY: No requirements; process context (sendmsg, recvmsg).
        let p = NonNull::new(unsafe { bindings::afunix_fpl_alloc(max as u32) }).ok_or(ENOMEM)?;
        // SAFETY: Just allocated, the header and `max` slots: the header (every field
        // before `fp`: counts, AF_UNIX's collector fields, `user`) is zeroed, as
        // `scm_fp_copy()` sets it, with `max` the slots allocated; the slots are written
        // as files are added.
        unsafe {
            ptr::write_bytes(
                p.as_ptr().cast::<u8>(),
                0,
                core::mem::offset_of!(bindings::scm_fp_list, fp),
            );
            // CAST: `max <= SCM_MAX_FD` (253) fits `short`.
            (*p.as_ptr()).max = max as i16;
        }
        // INVARIANT: An empty list with `max` slots.
        Ok(FdList(p))
    }

    /// The slots allocated (`max`).
    fn capacity(&self) -> usize {
        // SAFETY: A valid list (type invariant); `max` is set once, at allocation.
        usize::try_from(unsafe { (*self.0.as_ptr()).max }).unwrap_or(0)
    }

    /// Adds `file` to the list, counting it in `count_unix` if it is a socket of this
    /// family; gives it back when the list is full (its capacity).
    pub(crate) fn push(&mut self, file: File) -> core::result::Result<(), File> {
        if self.len() >= self.capacity() {
            return Err(file);
        }
        let file = file.into_raw();
        let p = self.0.as_ptr();
        // SAFETY: The list has a free slot (checked above); the reference moves into
        // it. The socket check borrows the file, now held by the list.
        unsafe {
            let n = (*p).count as usize;
            slot(p, n).write(file);
            (*p).count += 1;
            if !family_sk_of_file(file).is_null() {
                (*p).count_unix += 1;
            }
        }
        // INVARIANT: The first `count` slots still hold references the list owns.
        Ok(())
    }

    /// A copy of `src` that holds a reference of its own to each file (AF_UNIX's
    /// `scm_fp_dup()`, for `MSG_PEEK`), made in `self`, an empty list of at least
    /// `src.len()` slots (with fewer, the first files that fit). Takes no lock and does
    /// not allocate: it may run under a spinlock.
    pub(crate) fn dup_of(self, src: &Fds) -> FdList {
        debug_assert!(src.len() <= self.capacity());
        let n = src.len().min(self.capacity());
        let p = self.0.as_ptr();
        // SAFETY: `self` is empty with at least `n` slots; `src` holds each of its
        // files, so taking another reference is valid.
        unsafe {
            for i in 0..n {
                slot(p, i).write(bindings::afunix_get_file(src.file(i)));
            }
            (*p).count = n as i16;
            (*p).count_unix = if n == src.len() {
                (*src.as_ptr()).count_unix
            } else {
                (0..n)
                    .filter(|&i| !family_sk_of_file(src.file(i)).is_null())
                    .count() as i16
            };
        }
        self
    }

    /// Gives the list up, to be stored in an skb's control block.
    pub(crate) fn into_raw(self) -> *mut bindings::scm_fp_list {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }

    /// Takes back a list given up by [`FdList::into_raw`].
    ///
    /// # Safety
    ///
    /// `ptr` came from `into_raw` and is not used by anyone else from now on.
    pub(crate) unsafe fn from_raw(ptr: NonNull<bindings::scm_fp_list>) -> FdList {
        // INVARIANT: A list of `into_raw` (safety requirements).
        FdList(ptr)
    }

    /// Installs the files in the caller's fd table and reports them in an
    /// `SCM_RIGHTS` control message (`scm_detach_fds()`: `MSG_CMSG_CLOEXEC`, and
    /// `MSG_CTRUNC` with the files that do not fit dropped). With `notrunc`
    /// (`SO_RIGHTS_NOTRUNC`, 7.3 only: the option is refused on 6.12), a file the LSM
    /// refuses keeps its slot, holding `-errno`, where it would end the list. Gives the
    /// list back, untouched, for a kernel caller's control buffer, which
    /// `scm_detach_fds()` refuses.
    pub(crate) fn install(self, m: &mut Msg, notrunc: bool) -> core::result::Result<(), FdList> {
        if !m.control_is_user() {
            return Err(self);
        }
        // SAFETY: A zeroed `scm_cookie` is an empty one.
        let mut scm: bindings::scm_cookie = unsafe { core::mem::zeroed() };
        scm.fp = self.into_raw();
        // SAFETY: `m` is the live msghdr of a receive with a user control buffer; the
        // list (a kmalloc'd `scm_fp_list` holding its files) is handed over:
        // `scm_detach_fds` installs what fits and frees the list (`__scm_destroy`).
        #[cfg(kline_6_12)]
        // SAFETY: As above.
        unsafe {
            let _ = notrunc;
            bindings::scm_detach_fds(m.as_ptr(), &mut scm)
        };
        #[cfg(kline_7_3)]
        // SAFETY: As above.
        unsafe {
            bindings::scm_detach_fds(m.as_ptr(), &mut scm, notrunc)
        };
        Ok(())
    }
}

impl core::ops::Deref for FdList {
    type Target = Fds;

    fn deref(&self) -> &Fds {
        // SAFETY: A valid list (type invariant), borrowed with `self`.
        unsafe { Fds::from_raw(self.0.as_ptr()) }
    }
}

impl Drop for FdList {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: This is the drop: the list is not used after.
        unsafe { self.put_all() };
    }
}

impl FdList {
    /// Puts the files and frees the list: the drop, out of line.
    ///
    /// # Safety
    ///
    /// Called once, from `drop`: `self` is not used after.
    #[cold]
    #[inline(never)]
    unsafe fn put_all(&mut self) {
        let n = self.len();
        // SAFETY: The list owns a reference to each of its first `count` files (type
        // invariant), put here in reverse order as `__scm_destroy()`; then the list,
        // from kmalloc, is freed (not used after: safety requirements).
        unsafe {
            for i in (0..n).rev() {
                bindings::fput(self.file(i));
            }
            bindings::kfree(self.0.as_ptr().cast());
        }
    }
}

/// Whether `file`'s inode is a socket's (`S_ISSOCK`), read in place: the cheap test
/// before `sock_from_file()` (a call) for each fd of a message.
///
/// # Safety
///
/// `file` is a held file.
unsafe fn has_socket_inode(file: *mut bindings::file) -> bool {
    // SAFETY: A held file has its inode (`file_inode()`). Its file type bits are fixed;
    // `fchmod` may write the others meanwhile, so the read is volatile (`READ_ONCE`).
    let mode = unsafe { ptr::addr_of!((*(*file).f_inode).i_mode).read_volatile() };
    u32::from(mode) & bindings::S_IFMT == bindings::S_IFSOCK
}

/// The socket of this family behind `file`, as `unix_get_socket()` finds an AF_UNIX
/// one: a socket file (an `O_PATH` file has other file operations) whose `proto_ops`
/// are of this family and which still has its `struct sock`; NULL if it is none.
///
/// # Safety
///
/// `file` is NULL or a held file (its socket and `struct sock` live as long as it).
pub(super) unsafe fn family_sk_of_file(file: *mut bindings::file) -> *mut bindings::sock {
    if file.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `file` is held (safety requirements); `sock_from_file` checks its file
    // operations. A socket's `ops` and `sk` are set at creation and cleared only at
    // release, which cannot come while the file is held.
    unsafe {
        if !has_socket_inode(file) {
            return ptr::null_mut();
        }
        let sock = bindings::sock_from_file(file);
        if sock.is_null() {
            return ptr::null_mut();
        }
        let ops = ptr::addr_of!((*sock).ops).read_volatile();
        let sk = (*sock).sk;
        if ops.is_null() || (*ops).family != param::family() {
            return ptr::null_mut();
        }
        sk
    }
}

/// `get_max_files()`.
pub(crate) fn max_files() -> u64 {
    // SAFETY: Reads a global; no requirements.
    unsafe { bindings::get_max_files() as u64 }
}
