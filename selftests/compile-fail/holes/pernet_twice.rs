// SPDX-License-Identifier: GPL-2.0
// hole: the module's static `pernet_operations` registered a second time (its list
// node added twice), and unregistered under the module's own registration
// rule: (none yet)
// expect: none

use crate::api::pernet::Registration;
use kernel::error::Result;

pub(crate) fn again() -> Result {
    let r = Registration::new()?;
    drop(r);
    Ok(())
}
