// SPDX-License-Identifier: GPL-2.0

//! Credentials as 6.12 checks them for AF_UNIX: which credentials a task may claim in
//! an `SCM_CREDENTIALS` message (`scm_check_creds()` of `net/core/scm.c`).
//!
//! The credentials API (pids, the caller's ids, capabilities, uid/gid translation) is
//! [`crate::api::cred`]'s; the names other files use are re-exported here.

#![deny(unsafe_code)]

use crate::api::cred::{self, Kgid};
pub(crate) use crate::api::cred::{cap, capable, current_cred, rlimit_nofile, Creds, Kuid};
use kernel::error::{code::*, Result};

/// `scm_check_creds()`: a task may claim only the credentials it could set with
/// setuid/setgid, and only its own process id without `CAP_SYS_ADMIN` over its pid
/// namespace. The checks run in 6.12's order (a capability check that succeeds marks
/// the task as having used it). Returns the ids mapped into the caller's user namespace.
pub(crate) fn check_creds(pid: i32, uid: u32, gid: u32) -> Result<(Kuid, Kgid)> {
    let ids = current_cred();
    let (uid, gid) = (cred::make_kuid(uid), cred::make_kgid(gid));
    if !uid.is_valid() || !gid.is_valid() {
        return Err(EINVAL);
    }
    let pid_ok = pid == cred::current_tgid_vnr() || cred::capable_in_pid_ns(cap::SYS_ADMIN);
    if pid_ok
        && (uid == ids.uid
            || uid == ids.euid
            || uid == ids.suid
            || cred::capable_in_user_ns(cap::SETUID))
        && (gid == ids.gid
            || gid == ids.egid
            || gid == ids.sgid
            || cred::capable_in_user_ns(cap::SETGID))
    {
        return Ok((uid, gid));
    }
    Err(EPERM)
}
