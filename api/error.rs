// SPDX-License-Identifier: GPL-2.0

//! The socket errnos that `kernel::error::code` of 6.12 does not have, and an inlined
//! `to_result`.

use kernel::error::{Error, Result};

/// `kernel::error::to_result`, inlined into the module (the kernel crate's is not
/// `#[inline]`: from another crate, a call on every copy of the data path).
#[inline]
pub(crate) fn to_result(r: core::ffi::c_int) -> Result {
    if r < 0 {
        Err(Error::from_errno(r))
    } else {
        Ok(())
    }
}

/// An errno number (positive, as in `<errno.h>`), turned into an [`Error`] with `into()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Errno(pub(crate) i32);

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::from_errno(-e.0)
    }
}

macro_rules! errnos {
    ($($name:ident = $n:literal, $doc:literal;)*) => {
        $(
            #[doc = $doc]
            pub(crate) const $name: Errno = Errno($n);
        )*
    };
}

errnos! {
    EMSGSIZE = 90, "Message too long.";
    EPROTONOSUPPORT = 93, "Protocol not supported.";
    ESOCKTNOSUPPORT = 94, "Socket type not supported.";
    EOPNOTSUPP = 95, "Operation not supported on transport endpoint.";
    EAFNOSUPPORT = 97, "Address family not supported by protocol.";
    ETOOMANYREFS = 109, "Too many references: cannot splice.";
    ECONNRESET = 104, "Connection reset by peer.";
    EISCONN = 106, "Transport endpoint is already connected.";
    ENOTCONN = 107, "Transport endpoint is not connected.";
    ECONNREFUSED = 111, "Connection refused.";
    EPROTOTYPE = 91, "Protocol wrong type for socket.";
    ENOPROTOOPT = 92, "Protocol not available.";
    EADDRINUSE = 98, "Address already in use.";
}
