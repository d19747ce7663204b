// SPDX-License-Identifier: GPL-2.0

//! Credentials: references to `struct pid`, the calling task's credentials,
//! capabilities and `RLIMIT_NOFILE`, and uid/gid translation between user namespaces.
//!
//! The protocol layer decides with these (which credentials a task may claim, which a
//! receive reports); the credentials an skb carries are in [`crate::api::sock`].
//!
//! 7.3's `kernel::cred`: not used: `Credential` gives `euid` and the secid only, and
//! `task::Kuid` converts with `from_kuid`, not `from_kuid_munged` (no `Kgid` at all).

use crate::api::bindings;
use core::ffi::c_int;
use core::ptr::NonNull;

/// A reference to a `struct pid`.
///
/// # Invariants
///
/// `self.0` is a `struct pid` on which this value owns one reference.
pub(crate) struct Pid(NonNull<bindings::pid>);

// SAFETY: References to a `struct pid` are taken and put from any thread; the fields
// read through it (`pid_vnr`) do not change.
unsafe impl Send for Pid {}
// SAFETY: As above: `&Pid` only reads.
unsafe impl Sync for Pid {}

impl Pid {
    /// Takes a new reference to `ptr` (`get_pid()`); `None` for NULL.
    ///
    /// # Safety
    ///
    /// `ptr` is NULL or a `struct pid` on which the caller holds a reference for the
    /// duration of the call.
    pub(crate) unsafe fn get(ptr: *mut bindings::pid) -> Option<Pid> {
        // SAFETY: `ptr` is live (safety requirements); `get_pid` accepts NULL.
        let p = unsafe { bindings::afunix_get_pid(ptr) };
        // INVARIANT: `get_pid` took the reference this value owns.
        NonNull::new(p).map(Pid)
    }

    /// The calling task's thread-group pid, `get_pid(task_tgid(current))`.
    pub(crate) fn current_tgid() -> Option<Pid> {
        // SAFETY: `task_tgid(current)` is the running task's own pid, live while it
        // runs.
        unsafe { Pid::get(bindings::afunix_current_tgid()) }
    }

    /// `find_get_pid(nr)`: the pid numbered `nr` in the caller's pid namespace.
    pub(crate) fn find(nr: i32) -> Option<Pid> {
        // SAFETY: No requirements; the result holds a reference (or is NULL).
        let p = unsafe { bindings::find_get_pid(nr) };
        // INVARIANT: `find_get_pid` took the reference this value owns.
        NonNull::new(p).map(Pid)
    }

    /// `pid_vnr()`: the number in the caller's pid namespace, 0 if it is not visible
    /// there.
    pub(crate) fn vnr(&self) -> i32 {
        // SAFETY: `self.0` is a live pid (type invariant).
        unsafe { bindings::pid_vnr(self.0.as_ptr()) }
    }

    /// The raw pointer, to compare or to store with [`Pid::into_raw`]'s reference.
    pub(crate) fn as_ptr(&self) -> *mut bindings::pid {
        self.0.as_ptr()
    }

    /// Gives up the reference to the caller (to store it; freed by `put_pid`).
    pub(crate) fn into_raw(self) -> *mut bindings::pid {
        let p = self.0.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl Clone for Pid {
    fn clone(&self) -> Pid {
        // SAFETY: `self` holds a reference (type invariant); `get_pid` takes another.
        unsafe { bindings::afunix_get_pid(self.0.as_ptr()) };
        // INVARIANT: The reference just taken.
        Pid(self.0)
    }
}

impl Drop for Pid {
    fn drop(&mut self) {
        // SAFETY: The reference this value owns (type invariant).
        unsafe { bindings::put_pid(self.0.as_ptr()) };
    }
}

/// Whether two optional pids are the same `struct pid` (AF_UNIX compares pointers).
pub(crate) fn same_pid(a: Option<&Pid>, b: *mut bindings::pid) -> bool {
    a.map_or(core::ptr::null_mut(), Pid::as_ptr) == b
}

/// A `kuid_t`: a user id in the kernel's global space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Kuid(pub(crate) u32);

/// A `kgid_t`: a group id in the kernel's global space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Kgid(pub(crate) u32);

impl Kuid {
    /// `INVALID_UID`.
    pub(crate) const INVALID: Kuid = Kuid(u32::MAX);

    /// `uid_valid()`.
    pub(crate) fn is_valid(self) -> bool {
        self != Self::INVALID
    }
}

impl Kgid {
    /// `INVALID_GID`.
    pub(crate) const INVALID: Kgid = Kgid(u32::MAX);

    /// `gid_valid()`.
    pub(crate) fn is_valid(self) -> bool {
        self != Self::INVALID
    }
}

/// Credentials as an skb carries them (AF_UNIX's `UNIXCB(skb).pid/uid/gid`, and the
/// `pid`/`creds` of a `struct scm_cookie`).
pub(crate) struct Creds {
    /// The sender's pid, with a reference; `None` for no credentials.
    pub(crate) pid: Option<Pid>,
    /// The sender's user.
    pub(crate) uid: Kuid,
    /// The sender's group.
    pub(crate) gid: Kgid,
}

/// A snapshot of the calling task's ids (`current_cred()`).
pub(crate) struct CurrentCred {
    /// `uid`.
    pub(crate) uid: Kuid,
    /// `euid`.
    pub(crate) euid: Kuid,
    /// `suid`.
    pub(crate) suid: Kuid,
    /// `gid`.
    pub(crate) gid: Kgid,
    /// `egid`.
    pub(crate) egid: Kgid,
    /// `sgid`.
    pub(crate) sgid: Kgid,
}

/// The calling task's ids.
pub(crate) fn current_cred() -> CurrentCred {
    // SAFETY: `current_cred()` is the running task's own credentials, which cannot be
    // replaced while it runs this code.
    unsafe {
        let c = &*bindings::afunix_current_cred();
        CurrentCred {
            uid: Kuid(c.uid.val),
            euid: Kuid(c.euid.val),
            suid: Kuid(c.suid.val),
            gid: Kgid(c.gid.val),
            egid: Kgid(c.egid.val),
            sgid: Kgid(c.sgid.val),
        }
    }
}

/// `current_user_ns()`.
fn current_user_ns() -> *mut bindings::user_namespace {
    // SAFETY: As in `current_cred`; the credentials hold their user namespace.
    unsafe { (*bindings::afunix_current_cred()).user_ns }
}

/// `make_kuid(current_user_ns(), uid)`: `Kuid::INVALID` if `uid` is not mapped.
pub(crate) fn make_kuid(uid: u32) -> Kuid {
    // SAFETY: The caller's user namespace is live (see `current_user_ns`).
    Kuid(unsafe { bindings::make_kuid(current_user_ns(), uid) }.val)
}

/// `make_kgid(current_user_ns(), gid)`: `Kgid::INVALID` if `gid` is not mapped.
pub(crate) fn make_kgid(gid: u32) -> Kgid {
    // SAFETY: As in `make_kuid`.
    Kgid(unsafe { bindings::make_kgid(current_user_ns(), gid) }.val)
}

/// `from_kuid_munged(current_user_ns(), uid)`: the overflow uid if not mapped.
pub(crate) fn from_kuid_munged(uid: Kuid) -> u32 {
    let k = bindings::kuid_t { val: uid.0 };
    // SAFETY: As in `make_kuid`.
    unsafe { bindings::from_kuid_munged(current_user_ns(), k) }
}

/// `from_kgid_munged(current_user_ns(), gid)`: the overflow gid if not mapped.
pub(crate) fn from_kgid_munged(gid: Kgid) -> u32 {
    let k = bindings::kgid_t { val: gid.0 };
    // SAFETY: As in `make_kuid`.
    unsafe { bindings::from_kgid_munged(current_user_ns(), k) }
}

/// `task_tgid_vnr(current)`: the caller's process id as it sees it.
pub(crate) fn current_tgid_vnr() -> i32 {
    // SAFETY: The running task's own pid (as in `Pid::current_tgid`); `pid_vnr`
    // accepts NULL.
    unsafe { bindings::pid_vnr(bindings::afunix_current_tgid()) }
}

/// Capabilities `scm_check_creds()` asks for.
pub(crate) mod cap {
    use crate::api::bindings;

    /// `CAP_SYS_ADMIN`.
    pub(crate) const SYS_ADMIN: u32 = bindings::CAP_SYS_ADMIN;
    /// `CAP_SETUID`.
    pub(crate) const SETUID: u32 = bindings::CAP_SETUID;
    /// `CAP_SETGID`.
    pub(crate) const SETGID: u32 = bindings::CAP_SETGID;
    /// `CAP_SYS_RESOURCE`.
    pub(crate) const SYS_RESOURCE: u32 = bindings::AFUNIX_CAP_SYS_RESOURCE;
}

/// `capable(cap)`: the capability in the initial user namespace (marks the task as
/// having used it when it has it).
pub(crate) fn capable(cap: u32) -> bool {
    // SAFETY: No requirements.
    unsafe { bindings::capable(cap as c_int) }
}

/// `rlimit(RLIMIT_NOFILE)` of the calling task.
pub(crate) fn rlimit_nofile() -> u64 {
    // SAFETY: No requirements.
    unsafe { bindings::afunix_rlimit_nofile() as u64 }
}

/// `ns_capable(current_user_ns(), cap)` (marks the task as having used the capability
/// when it has it).
pub(crate) fn capable_in_user_ns(cap: u32) -> bool {
    // SAFETY: The caller's user namespace is live (see `current_user_ns`).
    unsafe { bindings::ns_capable(current_user_ns(), cap as c_int) }
}

/// `ns_capable(task_active_pid_ns(current)->user_ns, cap)`.
pub(crate) fn capable_in_pid_ns(cap: u32) -> bool {
    // SAFETY: The running task's active pid namespace is live while it runs, and holds
    // its owning user namespace.
    unsafe {
        let ns = bindings::task_active_pid_ns(bindings::afunix_current_task());
        ns_capable_of(ns, cap)
    }
}

/// # Safety
///
/// `ns` is NULL or a live pid namespace.
unsafe fn ns_capable_of(ns: *mut bindings::pid_namespace, cap: u32) -> bool {
    if ns.is_null() {
        return false;
    }
    // SAFETY: `ns` is live (safety requirements) and holds its user namespace.
    unsafe { bindings::ns_capable((*ns).user_ns, cap as c_int) }
}
