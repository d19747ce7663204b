// SPDX-License-Identifier: GPL-2.0
// Twin of space_sock_ref.rs: only what the hook reads.

use crate::api::sock::SpaceSock;

pub(crate) fn keep(sk: &SpaceSock<'_>) -> u32 {
    sk.wmem_alloc()
}
