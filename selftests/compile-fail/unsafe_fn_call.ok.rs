// SPDX-License-Identifier: GPL-2.0
// Twin of unsafe_fn_call.rs: the same items, named (not called) where the misuse calls.

use crate::api::sock::Sock;

pub(crate) fn same_sock(sk: &Sock) -> &Sock {
    let _p = sk.as_ptr();
    let _from_raw = Sock::from_raw;
    sk
}
