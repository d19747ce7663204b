// SPDX-License-Identifier: GPL-2.0
// hole: the protocol calls an `unsafe fn` of api/ (a socket from a raw pointer)
// rule: only api/ calls unsafe code; outside an `unsafe` block the call is refused
// expect: E0133

use crate::api::sock::Sock;

pub(crate) fn same_sock(sk: &Sock) -> &Sock {
    let p = sk.as_ptr();
    Sock::from_raw(p)
}
