// SPDX-License-Identifier: GPL-2.0
// Twin of embryo_forged.rs: a new embryo of a listener.

use crate::api::sock::{Conn, Sock};
use kernel::error::Result;

pub(crate) fn forge(listener: &Sock) -> Result<Conn> {
    let mut e = listener.alloc_embryo()?;
    Ok(e.set_conn(Conn::Unconnected))
}
