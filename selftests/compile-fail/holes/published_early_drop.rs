// SPDX-License-Identifier: GPL-2.0
// hole: a module-lifetime publication withdrawn (its `Arc` dropped) while a `&'static`
// borrow of it is still in use
// rule: (none yet)
// expect: none

use crate::api::publish::Published;
use kernel::sync::Arc;

static P: Published<u64> = Published::new();

pub(crate) fn early(v: Arc<u64>) -> u64 {
    let p = P.publish_for_module(v);
    let r: &'static u64 = P.get().unwrap_or(&0);
    drop(p);
    *r
}
