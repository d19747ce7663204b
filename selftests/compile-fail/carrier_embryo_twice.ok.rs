// SPDX-License-Identifier: GPL-2.0
// Twin of carrier_embryo_twice.rs: embryos come from `accept_embryo`.

use crate::api::sock::{AcceptedSock, Sock};
use kernel::error::Result;

pub(crate) fn take(listener: &Sock) -> Result<Option<AcceptedSock>> {
    listener.accept_embryo(true)
}
