// SPDX-License-Identifier: GPL-2.0
// Twin of embryo_foreign_carrier.rs: the embryo's own carrier.

use crate::api::sock::Sock;
use kernel::error::Result;

pub(crate) fn steal(listener: &Sock, client: &Sock) -> Result {
    let embryo = match listener.alloc_embryo()?.with_carrier() {
        Ok(e) => e,
        Err((bare, e)) => {
            drop(bare.into_sock());
            return Err(e);
        }
    };
    let mut g = listener.lock();
    let embryo = embryo.connect_to(client, &g);
    g.queue_embryo(embryo);
    Ok(())
}
