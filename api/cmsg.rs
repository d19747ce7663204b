// SPDX-License-Identifier: GPL-2.0

//! The C constants of control messages: the level and types of the `SOL_SOCKET`
//! messages AF_UNIX handles and the sizes of the message headers.

use crate::api::bindings;

/// `SOL_SOCKET`.
pub(crate) const SOL_SOCKET: i32 = bindings::AFUNIX_SOL_SOCKET as i32;
/// `SCM_RIGHTS`.
pub(crate) const SCM_RIGHTS: i32 = bindings::AFUNIX_SCM_RIGHTS as i32;
/// `SCM_CREDENTIALS`.
pub(crate) const SCM_CREDENTIALS: i32 = bindings::AFUNIX_SCM_CREDENTIALS as i32;
/// `sizeof(struct cmsghdr)`: `cmsg_len` (a `size_t`), `cmsg_level`, `cmsg_type`.
pub(crate) const CMSGHDR: usize = bindings::AFUNIX_CMSGHDR_SIZE as usize;
/// `sizeof(struct compat_cmsghdr)`.
pub(crate) const COMPAT_CMSGHDR: usize = bindings::AFUNIX_COMPAT_CMSGHDR_SIZE as usize;
