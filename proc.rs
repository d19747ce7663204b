// SPDX-License-Identifier: GPL-2.0

//! `/proc/net/rust_afunix`: the sockets of the reader's netns, in the format of
//! `/proc/net/unix` (the header line, then one line per socket: pointer, refcount,
//! protocol, flags, type, state, inode and name).

use crate::bindings;
use crate::hash::{seq, NetTable};
use crate::sock::{state, Sock};
use core::ffi::{c_int, c_void};
use kernel::ffi::{c_char, c_uint, c_ulong};

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
    let putc = |c: u8| {
        // SAFETY: `s` is the seq_file being shown.
        unsafe { bindings::seq_putc(s, c as c_char) };
    };
    if v == START {
        let header = c"Num       RefCount Protocol Flags    Type St Inode Path\n";
        // SAFETY: `s` is the seq_file being shown; `header` is NUL-terminated.
        unsafe { bindings::__seq_puts(s, header.as_ptr().cast()) };
        return 0;
    }
    // SAFETY: `v` is a socket of this family, alive while its bucket is locked.
    let sk = unsafe { Sock::from_raw(v.cast()) };
    let name = sk.addr_ref().map(|a| match a.name() {
        // A pathname without its NUL; an abstract name whole.
        n if n.first().is_some_and(|&c| c != 0) => &n[..n.len() - 1],
        n => n,
    });
    let g = sk.lock();
    let st = sk.state();
    let flags = if st == state::LISTEN {
        bindings::__SO_ACCEPTCON
    } else {
        0
    };
    let ss = match (sk.has_socket(), st == state::ESTABLISHED) {
        (true, true) => bindings::socket_state_SS_CONNECTED,
        (true, false) => bindings::socket_state_SS_UNCONNECTED,
        (false, true) => bindings::socket_state_SS_CONNECTING,
        (false, false) => bindings::socket_state_SS_DISCONNECTING,
    };
    // SAFETY: `s` is the seq_file being shown; the arguments match the format.
    unsafe {
        bindings::seq_printf(
            s,
            c"%pK: %08X %08X %08X %04X %02X %5lu".as_ptr().cast(),
            sk.as_ptr().cast::<c_void>(),
            sk.refcount() as c_uint,
            0 as c_uint,
            flags as c_uint,
            c_uint::from(sk.sk_type()),
            ss as c_uint,
            sk.i_ino() as c_ulong,
        )
    };
    if let Some(name) = name {
        putc(b' ');
        // The NULs of an abstract name (its first byte, at least) show as '@'.
        for &c in name {
            putc(if c == 0 { b'@' } else { c });
        }
    }
    drop(g);
    putc(b'\n');
    0
}

/// The seq_file operations, registered with the pernet code.
pub(crate) static SEQ_OPS: bindings::seq_operations = bindings::seq_operations {
    start: Some(start),
    next: Some(next),
    stop: Some(stop),
    show: Some(show),
};
