// SPDX-License-Identifier: GPL-2.0
// hole: the module's workqueue destroyed while a `&'static Queue` of it is used
// rule: (none yet)
// expect: none

use crate::api::workqueue::{queue, OwnedQueue};
use kernel::error::Result;

pub(crate) fn early() -> Result {
    let q = OwnedQueue::new()?;
    let r = queue();
    drop(q);
    if let Some(r) = r {
        let _ = r.try_spawn(kernel::alloc::flags::GFP_KERNEL, || ());
    }
    Ok(())
}
