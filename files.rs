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
use crate::api::sock::{msg, Msg};
use kernel::error::{code::*, Result};

/// Adds the caller's `fd` to `list` (`scm_fp_copy()`): `EINVAL` when the list is full or
/// for an io_uring file, `EBADF` when `fd` is not open. `O_PATH` files are allowed.
pub(crate) fn push_fd(list: &mut FdList, fd: i32) -> Result {
    if list.len() >= SCM_MAX_FD {
        return Err(EINVAL);
    }
    let fd = u32::try_from(fd).map_err(|_| EBADF)?;
    let file = File::get_raw(fd).ok_or(EBADF)?;
    if file.is_io_uring() {
        // Dropping the file puts the reference just taken.
        return Err(EINVAL);
    }
    list.push(file).map_err(|_| EINVAL)
}

/// Installs the files of a receive in the caller's fd table, reported in an
/// `SCM_RIGHTS` control message ([`FdList::install`]). A kernel caller's control buffer
/// gets `MSG_CTRUNC` and no files (the list is put).
pub(crate) fn install(fds: FdList, m: &mut Msg) {
    if let Err(fds) = fds.install(m) {
        m.add_flags(msg::CTRUNC);
        drop(fds);
    }
}
