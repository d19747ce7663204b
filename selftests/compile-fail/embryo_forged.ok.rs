// SPDX-License-Identifier: GPL-2.0
// Twin of embryo_forged.rs: a new embryo of a listener, with its carrier.

use crate::api::sock::{Sock, StateGuard};
use kernel::error::Result;

pub(crate) fn forge(client: &Sock, listener: &StateGuard<'_>) -> Result {
    match listener.sock().alloc_embryo()?.with_carrier() {
        Ok(e) => {
            drop(e.connect_to(client, listener));
            Ok(())
        }
        Err((bare, err)) => {
            drop(bare.into_sock());
            Err(err)
        }
    }
}
