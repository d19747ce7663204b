// SPDX-License-Identifier: GPL-2.0
// hole: the protocol builds an address from bytes no one vouches for (here, none)
// rule: `sun_addr_in` is unsafe and the API layer's own: only the bind and connect
// rule: trampolines, which hold the socket core's buffer, build an address in place
// expect: E0603

use crate::api::addr::{sun_addr_in, SunAddr};
use core::mem::MaybeUninit;

pub(crate) fn forge() -> usize {
    let mut slot = MaybeUninit::<SunAddr>::uninit();
    sun_addr_in(&mut slot, core::ptr::null(), 200).len()
}
