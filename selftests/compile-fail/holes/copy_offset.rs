// SPDX-License-Identifier: GPL-2.0
// hole: `copy_to_msg` passes an unchecked offset to C's `int offset`: 4 KiB from
// before `skb->data` copied to user space
// rule: (none yet)
// expect: none

use crate::api::sock::{Msg, SkbView};
use kernel::error::Result;

pub(crate) fn leak(skb: &SkbView, m: &mut Msg) -> Result {
    skb.copy_to_msg(u32::MAX - 4095, m, 4096)
}
