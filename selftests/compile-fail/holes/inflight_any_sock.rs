// SPDX-License-Identifier: GPL-2.0
// hole: any socket put on the collector's list, whose file no list in flight holds:
// freed while linked, walked by `iter()`/`pick_front` (`file_refs` of a socket not in
// flight now answers `usize::MAX`)
// rule: (none yet)
// expect: none

use crate::api::inflight::InflightList;
use crate::api::sock::Sock;

pub(crate) fn any(gc: &mut InflightList, sk: &Sock) -> usize {
    gc.get(sk);
    gc.file_refs(sk)
}
