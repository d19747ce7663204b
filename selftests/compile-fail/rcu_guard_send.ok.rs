// SPDX-License-Identifier: GPL-2.0
// Twin of rcu_guard_send.rs: a reference to a socket may go to another thread.

use crate::api::sock::Sock;

fn assert_send<T: Send>() {}

pub(crate) fn sendable() {
    assert_send::<&'static Sock>();
}
