// SPDX-License-Identifier: GPL-2.0
// Twin of abstract_name_forged.rs: the socket's own table hashes the name for its type.

use crate::api::kline::ARef;
use crate::api::sock::Sock;

pub(crate) fn find(sk: &Sock, name: &[u8]) -> Option<ARef<Sock>> {
    sk.table().abstract_name(name, sk.sk_type()).find()
}
