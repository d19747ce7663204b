// SPDX-License-Identifier: GPL-2.0
// hole: the protocol wraps a call of an `unsafe fn` of api/ in its own `unsafe` block
// rule: every protocol file is `#![deny(unsafe_code)]`
// expect: unsafe_code

use crate::api::sock::Sock;

pub(crate) fn same_sock(sk: &Sock) -> &Sock {
    let p = sk.as_ptr();
    // SAFETY: `p` is `sk`'s, which outlives the result.
    unsafe { Sock::from_raw(p) }
}
