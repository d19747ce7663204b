// SPDX-License-Identifier: GPL-2.0

//! `/proc/net/rust_afunix`: its `seq_operations` from a trait with an adapter, a typed
//! `seq_file`, and the file of each netns.
//!
//! A walk's place between callbacks is a [`Operations::Cursor`] (it may hold a lock:
//! the seq_file core calls `start`, then `show` and `next` in turn, and `stop`, in one
//! `read()`), kept in the file's private state after its `seq_net_private`; `stop` drops
//! it. Position 0 is the header line.
//!
//! 7.3's `kernel::seq_file`: not used: `seq_print!` formats through `%pA` (no `%pK`, the
//! first column of `/proc/net/unix`), and there is no `seq_operations` or `proc_create_net`.

use crate::api::bindings;
use crate::api::net::{self, Data, Net};
use crate::api::sock::Sock;
use core::ffi::{c_int, c_void, CStr};
use core::marker::PhantomData;
use kernel::error::{code::ENOMEM, Result};
use kernel::ffi::{c_char, c_uint, c_ulong};
use kernel::types::Opaque;

/// `struct socket` states (`socket_state`), as `/proc/net/unix` shows them.
pub(crate) mod socket_state {
    use crate::api::bindings;

    /// `SS_UNCONNECTED`.
    pub(crate) const UNCONNECTED: u32 = bindings::socket_state_SS_UNCONNECTED;
    /// `SS_CONNECTING`.
    pub(crate) const CONNECTING: u32 = bindings::socket_state_SS_CONNECTING;
    /// `SS_CONNECTED`.
    pub(crate) const CONNECTED: u32 = bindings::socket_state_SS_CONNECTED;
    /// `SS_DISCONNECTING`.
    pub(crate) const DISCONNECTING: u32 = bindings::socket_state_SS_DISCONNECTING;
}

/// `__SO_ACCEPTCON`: the flag of a listening socket in `/proc/net/unix`.
pub(crate) const SO_ACCEPTCON: u32 = bindings::__SO_ACCEPTCON;

/// A `seq_file` being shown.
///
/// # Invariants
///
/// A live `seq_file` of `/proc/net/rust_afunix`, in a `show` callback.
#[repr(transparent)]
pub(crate) struct SeqFile(Opaque<bindings::seq_file>);

impl SeqFile {
    /// # Safety
    ///
    /// `ptr` is the seq_file of a `show` callback, for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::seq_file) -> &'a SeqFile {
        // CAST: `repr(transparent)`.
        // SAFETY: Valid for `'a` (safety requirements).
        unsafe { &*ptr.cast() }
    }

    fn as_ptr(&self) -> *mut bindings::seq_file {
        self.0.get()
    }

    /// `seq_puts()`.
    pub(crate) fn puts(&self, s: &CStr) {
        // SAFETY: The file is being shown (type invariant); `s` is NUL-terminated.
        unsafe { bindings::__seq_puts(self.as_ptr(), s.to_bytes_with_nul().as_ptr().cast()) };
    }

    /// `seq_putc()`.
    pub(crate) fn putc(&self, c: u8) {
        // SAFETY: The file is being shown (type invariant).
        unsafe { bindings::seq_putc(self.as_ptr(), c as c_char) };
    }

    /// The start of a socket's line of `/proc/net/unix`:
    /// `"%pK: %08X %08X %08X %04X %02X %5lu"` of the socket's address, its `refs`, the
    /// protocol (0), `flags`, `ty`, `state` and `ino`.
    pub(crate) fn sock_line(
        &self,
        sk: &Sock,
        refs: u32,
        flags: u32,
        ty: u32,
        state: u32,
        ino: u64,
    ) {
        // SAFETY: The file is being shown (type invariant); the arguments match the
        // format.
        unsafe {
            bindings::seq_printf(
                self.as_ptr(),
                c"%pK: %08X %08X %08X %04X %02X %5lu"
                    .to_bytes_with_nul()
                    .as_ptr()
                    .cast(),
                sk.as_ptr().cast::<c_void>(),
                refs as c_uint,
                0 as c_uint,
                flags as c_uint,
                ty as c_uint,
                state as c_uint,
                ino as c_ulong,
            )
        };
    }
}

/// The walk of `/proc/net/rust_afunix` over a netns's data.
pub(crate) trait Operations: 'static {
    /// The walk's place: the socket shown, and what it holds to keep it (a lock).
    type Cursor<'a>;

    /// Shows the header line (position 0).
    fn header(m: &SeqFile);

    /// The place at `pos` (from 1), or the first after it (`pos` moves there); `None`
    /// at the end.
    fn start<'a>(data: &'a Data, pos: &mut i64) -> Option<Self::Cursor<'a>>;

    /// The place after `cur`, `pos` already advanced by one (it moves further if the
    /// walk skips places); `None` at the end.
    fn next<'a>(cur: Self::Cursor<'a>, pos: &mut i64) -> Option<Self::Cursor<'a>>;

    /// Shows the line of `cur`.
    fn show(m: &SeqFile, cur: &Self::Cursor<'_>);
}

/// `SEQ_START_TOKEN`: the header's place.
const START: *mut c_void = core::ptr::null_mut::<u8>().wrapping_add(1).cast();

/// The trampolines of `S`'s `seq_operations`.
struct Adapter<S: Operations>(PhantomData<S>);

impl<S: Operations> Adapter<S> {
    const OPS: bindings::seq_operations = bindings::seq_operations {
        start: Some(Self::start),
        next: Some(Self::next),
        stop: Some(Self::stop),
        show: Some(Self::show),
    };

    /// The data of the netns the file shows, borrowed for any `'a` within the `read()`.
    ///
    /// # Safety
    ///
    /// `m` is a seq_file of the file made by [`proc_create`]; `'a` ends with the `read()`.
    unsafe fn data<'a>(m: *mut bindings::seq_file) -> &'a Data {
        // SAFETY: The file holds a reference to its netns, whose data is set from before
        // the file is made until after it is removed (which waits for readers).
        net::data(unsafe { Net::from_raw(bindings::afunix_seq_net(m)) }).get()
    }

    /// Keeps `cur` in the file's state; the place `start`/`next` return.
    ///
    /// # Safety
    ///
    /// `m` is a seq_file of the file made by [`proc_create`] whose state holds no cursor.
    unsafe fn keep(m: *mut bindings::seq_file, cur: Option<S::Cursor<'_>>) -> *mut c_void {
        let Some(cur) = cur else {
            return core::ptr::null_mut();
        };
        // SAFETY: The state after `seq_net_private` has room for a cursor, aligned
        // (`proc_create`), and holds none (safety requirements).
        unsafe {
            let p = bindings::afunix_seq_state(m).cast::<S::Cursor<'_>>();
            p.write(cur);
            p.cast()
        }
    }

    /// # Safety
    ///
    /// seq_file callback: `m` and `pos` come from the seq_file core.
    unsafe extern "C" fn start(m: *mut bindings::seq_file, pos: *mut i64) -> *mut c_void {
        // SAFETY: `pos` is the file's position.
        let pos = unsafe { &mut *pos };
        if *pos == 0 {
            return START;
        }
        // SAFETY: A file of `proc_create`; a walk begins: no cursor is kept.
        unsafe { Self::keep(m, S::start(Self::data(m), pos)) }
    }

    /// # Safety
    ///
    /// seq_file callback: `v` is what `start`/`next` returned.
    unsafe extern "C" fn next(
        m: *mut bindings::seq_file,
        v: *mut c_void,
        pos: *mut i64,
    ) -> *mut c_void {
        // SAFETY: `pos` is the file's position.
        let pos = unsafe { &mut *pos };
        *pos += 1;
        if v == START {
            // SAFETY: As in `start`.
            return unsafe { Self::keep(m, S::start(Self::data(m), pos)) };
        }
        // SAFETY: `v` is the cursor kept by `keep`, taken out here (and kept again).
        let cur = unsafe { v.cast::<S::Cursor<'_>>().read() };
        // SAFETY: The cursor was taken out.
        unsafe { Self::keep(m, S::next(cur, pos)) }
    }

    /// # Safety
    ///
    /// seq_file callback: `v` is what `start`/`next` returned.
    unsafe extern "C" fn stop(_m: *mut bindings::seq_file, v: *mut c_void) {
        if v != START && !v.is_null() {
            // SAFETY: `v` is the cursor kept by `keep`, taken out and dropped.
            drop(unsafe { v.cast::<S::Cursor<'_>>().read() });
        }
    }

    /// # Safety
    ///
    /// seq_file callback: `v` is what `start`/`next` returned.
    unsafe extern "C" fn show(m: *mut bindings::seq_file, v: *mut c_void) -> c_int {
        // SAFETY: The seq_file being shown.
        let m = unsafe { SeqFile::from_raw(m) };
        if v == START {
            S::header(m);
        } else {
            // SAFETY: `v` is the cursor kept by `keep`, borrowed while it is kept.
            S::show(m, unsafe { &*v.cast::<S::Cursor<'_>>() });
        }
        0
    }
}

/// Makes `/proc/net/rust_afunix` of `net`, walked by `S`.
///
/// # Safety
///
/// `net` is being initialised, its data is set, and [`proc_remove`] is called before it
/// goes.
pub(super) unsafe fn proc_create<S: Operations>(net: *mut bindings::net) -> Result {
    // The cursor follows `seq_net_private` (a multiple of 8 bytes) in memory from
    // `kmalloc` (8-aligned at least).
    kernel::prelude::build_assert!(core::mem::align_of::<S::Cursor<'static>>() <= 8);
    let size = core::mem::size_of::<S::Cursor<'static>>() as c_uint;
    // SAFETY: `net` is being initialised; the operations are a constant (promoted to a
    // static); the state has room for a cursor.
    let e = unsafe { bindings::afunix_proc_create(net, &Adapter::<S>::OPS, size) };
    if e.is_null() {
        return Err(ENOMEM);
    }
    Ok(())
}

/// Removes `/proc/net/rust_afunix` of `net`; waits for its readers.
///
/// # Safety
///
/// Made by [`proc_create`].
pub(super) unsafe fn proc_remove(net: *mut bindings::net) {
    // SAFETY: Made by `proc_create` (safety requirements).
    unsafe { bindings::afunix_proc_remove(net) };
}
