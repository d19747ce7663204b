// SPDX-License-Identifier: GPL-2.0

//! The files of `SCM_RIGHTS`, as 6.12 takes and gives them: which of the caller's fds a
//! send may pass (`scm_fp_copy()`), and what a receive reports when the list cannot be
//! installed. The fd lists themselves are [`crate::api::file`]'s.
//!
//! What else is done with a list (accounting, the collector, when to install) is decided
//! in [`crate::gc`] and [`crate::cmsg`].

#![deny(unsafe_code)]

use crate::api::file::File;
pub(crate) use crate::api::file::{FdList, Fds, SCM_MAX_FD};
use crate::api::sock::{Msg, MsgFlags};
use kernel::error::{code::*, Result};

/// Adds the caller's `fd` to `list` (`scm_fp_copy()`): `EINVAL` when the list is full,
/// for an io_uring file (as `scm_fp_copy()`) or for a socket of AF_UNIX, `EBADF` when `fd`
/// is not open. `O_PATH` files are allowed.
///
/// An AF_UNIX socket is refused because no collector could free a cycle through it. The
/// kernel's collector sees only AF_UNIX sockets (a socket of this family is a plain file
/// to it) and this family's sees only its own, so a socket of this family in flight on an
/// AF_UNIX socket that is in flight on it would stay until reboot, and keep the module
/// loaded. A cycle needs an edge each way; refusing this family's edge to AF_UNIX leaves
/// every cycle within one family, where its own collector frees it. AF_UNIX may still
/// carry this family's sockets: their references then count as held from outside, as
/// any file's, until AF_UNIX frees them.
pub(crate) fn push_fd(list: &mut FdList, fd: i32) -> Result {
    if list.len() >= SCM_MAX_FD {
        return Err(EINVAL);
    }
    let fd = u32::try_from(fd).map_err(|_| EBADF)?;
    let file = File::get_raw(fd).ok_or(EBADF)?;
    if file.is_io_uring() || file.is_af_unix_socket() {
        // Dropping the file puts the reference just taken.
        return Err(EINVAL);
    }
    list.push(file).map_err(|_| EINVAL)
}

/// Installs the files of a receive in the caller's fd table, reported in an
/// `SCM_RIGHTS` control message ([`FdList::install`]; `notrunc`: the receiver's
/// `SO_RIGHTS_NOTRUNC`). A kernel caller's control buffer gets `MSG_CTRUNC` and no
/// files (the list is put).
pub(crate) fn install(fds: FdList, m: &mut Msg, notrunc: bool) {
    if let Err(fds) = fds.install(m, notrunc) {
        m.add_flags(MsgFlags::CTRUNC);
        drop(fds);
    }
}
