// SPDX-License-Identifier: GPL-2.0
// Twin of embryo_forged.rs: a new embryo of a listener, with its carrier.

use crate::api::sock::{Conn, Sock};
use kernel::error::Result;

pub(crate) fn forge(listener: &Sock) -> Result<Conn> {
    match listener.alloc_embryo()?.with_carrier() {
        Ok(mut e) => Ok(e.set_conn(Conn::Unconnected)),
        Err((bare, err)) => {
            drop(bare.into_sock());
            Err(err)
        }
    }
}
