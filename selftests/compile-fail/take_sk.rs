// SPDX-License-Identifier: GPL-2.0
// hole: any callback takes the sock out from under the `&Sock` its trampoline lent (2)
// rule: only the release trampoline detaches the sock (`take_sk` is private to `api/`)
// expect: E0624

use crate::api::sock::Socket;

pub(crate) fn steal(sock: &Socket) -> bool {
    sock.take_sk().is_some()
}
