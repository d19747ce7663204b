// SPDX-License-Identifier: GPL-2.0

//! `/proc/net/rust_afunix`: the sockets of the reader's netns, in the format of
//! `/proc/net/unix` (the header line, then one line per socket: pointer, refcount,
//! protocol, flags, type, state, inode and name).

use crate::bindings;
use crate::hash::{seq, NetTable};
use crate::sock::Sock;
use core::ffi::{c_int, c_void};

/// `SEQ_START_TOKEN`.
const START: *mut c_void = 1 as *mut c_void;

/// The table of the netns a seq_file reads.
///
/// # Safety
///
/// `s` is a seq_file of `/proc/net/rust_afunix`, opened with `seq_net_private`.
unsafe fn table<'a>(s: *mut bindings::seq_file) -> &'a NetTable {
    // SAFETY: The file holds a reference to its netns, which has a table while the
    // module (which owns the /proc entry) is loaded.
    unsafe { crate::netns::table_of(bindings::afunix_seq_net(s)) }
}

/// A socket of the walk as the seq_file core keeps it.
fn as_v(sk: Option<&Sock>) -> *mut c_void {
    sk.map_or(core::ptr::null_mut(), |sk| sk.as_ptr().cast())
}

/// # Safety
///
/// seq_file callback: `s` and `pos` come from the seq_file core.
unsafe extern "C" fn start(s: *mut bindings::seq_file, pos: *mut i64) -> *mut c_void {
    // SAFETY: Arguments of a seq_file `start`.
    let (t, pos) = unsafe { (table(s), &mut *pos) };
    if *pos == 0 {
        return START;
    }
    as_v(seq::first(t, pos))
}

/// # Safety
///
/// seq_file callback: `v` is what `start`/`next` returned.
unsafe extern "C" fn next(
    s: *mut bindings::seq_file,
    v: *mut c_void,
    pos: *mut i64,
) -> *mut c_void {
    // SAFETY: Arguments of a seq_file `next`.
    let (t, pos) = unsafe { (table(s), &mut *pos) };
    *pos += 1;
    if v == START {
        return as_v(seq::first(t, pos));
    }
    // SAFETY: A socket `v` came from `first`/`next`, and its bucket is locked.
    as_v(unsafe { seq::next(t, Sock::from_raw(v.cast()), pos) })
}

/// # Safety
///
/// seq_file callback: `v` is what `start`/`next` returned.
unsafe extern "C" fn stop(s: *mut bindings::seq_file, v: *mut c_void) {
    if v != START && !v.is_null() {
        // SAFETY: A socket `v` from `first`/`next`, its bucket locked.
        unsafe { seq::stop(table(s), Some(Sock::from_raw(v.cast()))) };
    }
}

/// # Safety
///
/// seq_file callback: `v` is what `start`/`next` returned.
unsafe extern "C" fn show(s: *mut bindings::seq_file, v: *mut c_void) -> c_int {
    if v == START {
        // SAFETY: `s` is the seq_file being shown.
        unsafe { bindings::afunix_seq_header(s) };
        return 0;
    }
    // SAFETY: `v` is a socket of this family, alive while its bucket is locked.
    let sk = unsafe { Sock::from_raw(v.cast()) };
    let (p, len) = match sk.addr_ref().map(|a| a.name()) {
        // A pathname without its NUL; an abstract name whole.
        Some(n) if n.first().is_some_and(|&c| c != 0) => (n.as_ptr(), n.len() - 1),
        Some(n) => (n.as_ptr(), n.len()),
        None => (core::ptr::null(), 0),
    };
    // SAFETY: `s` is the seq_file, `sk` is live, `p` has `len` bytes (or is NULL).
    unsafe { bindings::afunix_seq_show_sock(s, sk.as_ptr(), p.cast(), len as c_int) };
    0
}

/// The seq_file operations, registered with the pernet code.
pub(crate) static SEQ_OPS: bindings::seq_operations = bindings::seq_operations {
    start: Some(start),
    next: Some(next),
    stop: Some(stop),
    show: Some(show),
};
