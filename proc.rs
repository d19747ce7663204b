// SPDX-License-Identifier: GPL-2.0

//! `/proc/net/rust_afunix`: the sockets of the reader's netns, in the format of
//! `/proc/net/unix` (the header line, then one line per socket: pointer, refcount,
//! protocol, flags, type, state, inode and name), walked as [`crate::hash::seq`] does.

#![deny(unsafe_code)]

use crate::api::seq::{self, socket_state, SeqFile, SO_ACCEPTCON};
use crate::api::sock::SkState;
use crate::hash::{seq as walk, NetTable};

/// The walk of `/proc/net/rust_afunix`.
pub(crate) struct ProcNet;

impl seq::Operations for ProcNet {
    type Cursor<'a> = walk::Cursor<'a>;

    fn header(m: &SeqFile) {
        m.puts(c"Num       RefCount Protocol Flags    Type St Inode Path\n");
    }

    fn start<'a>(t: &'a NetTable, pos: &mut i64) -> Option<Self::Cursor<'a>> {
        walk::first(t, pos)
    }

    fn next<'a>(cur: Self::Cursor<'a>, pos: &mut i64) -> Option<Self::Cursor<'a>> {
        walk::next(cur, pos)
    }

    fn show(m: &SeqFile, cur: &Self::Cursor<'_>) {
        // Alive while its bucket is locked (by the cursor).
        let sk = cur.sock();
        let name = sk.addr_ref().map(|a| match a.name() {
            // A pathname without its NUL; an abstract name whole.
            n if n.first().is_some_and(|&c| c != 0) => &n[..n.len() - 1],
            n => n,
        });
        let g = sk.lock();
        let st = sk.state();
        let flags = if st == SkState::Listen {
            SO_ACCEPTCON
        } else {
            0
        };
        let ss = match (sk.has_socket(), st == SkState::Established) {
            (true, true) => socket_state::CONNECTED,
            (true, false) => socket_state::UNCONNECTED,
            (false, true) => socket_state::CONNECTING,
            (false, false) => socket_state::DISCONNECTING,
        };
        m.sock_line(
            sk,
            sk.refcount(),
            flags,
            u32::from(sk.sk_type()),
            ss,
            sk.i_ino(),
        );
        if let Some(name) = name {
            m.putc(b' ');
            // The NULs of an abstract name (its first byte, at least) show as '@'.
            for &c in name {
                m.putc(if c == 0 { b'@' } else { c });
            }
        }
        drop(g);
        m.putc(b'\n');
    }
}
