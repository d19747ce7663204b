// SPDX-License-Identifier: GPL-2.0

//! The socket family: `struct net_proto_family` (socket creation), the two
//! `struct proto` (their names show in /proc/net/protocols), a `proto_ops` per socket
//! type, and the sock_diag handler, registered together by a [`Registration`].
//!
//! The protocol implements [`FamilyOps`] (what `socket()` checks and accounts, what a
//! new socket gets, and the socket's own hook `sk_write_space`) and
//! one [`SocketOps`] per socket type; the crate root registers them.

use crate::api::bindings;
use crate::api::param;
use crate::api::sock::{Kind, Sock, Socket, SpaceSock, UnixSock};
use crate::api::sock_diag::{self, SockDiag};
use crate::api::socket::{proto_ops, SocketOps};
use crate::api::sync::synchronize_rcu;
use crate::api::wait::{PeerWake, RelayAdapter};
use core::ffi::c_int;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use kernel::error::{from_result, to_result};
use kernel::prelude::*;

/// `AF_MAX` (= `NPROTO`) of 6.12: `sock_register` refuses numbers from here on.
const AF_MAX: c_int = 46;

/// What `socket()`'s arguments make, once checked ([`FamilyOps::check_create`]).
pub(crate) struct Create {
    /// Which `proto_ops` table the socket gets.
    pub(crate) kind: Kind,
    /// The type stored in the socket.
    pub(crate) ty: u16,
    /// The socket names itself `AF_UNIX` in the addresses it returns
    /// ([`Sock::set_as_unix`]).
    pub(crate) as_unix: bool,
}

/// The family's callbacks: socket creation and the hooks of its sockets.
pub(crate) trait FamilyOps {
    /// The relay of the sockets' `peer_wake` entries.
    type Wake: PeerWake;
    /// Checks the arguments of `socket()` (AF_UNIX's `unix_create()`).
    fn check_create(ty: u16, protocol: i32) -> Result<Create>;
    /// Accounts a socket about to be allocated (`ENFILE` past a limit).
    fn account_new() -> Result;
    /// Gives back the accounting of a socket whose allocation failed.
    fn unaccount();
    /// Finishes a new socket, allocated and initialised by the core.
    fn init_new(sk: &Sock);
    /// `sk_write_space`: memory charged to `sk` came back (its last reference may be
    /// gone: [`SpaceSock`]).
    fn write_space(sk: &SpaceSock<'_>);
}

/// The trampolines of `F`'s callbacks.
struct Adapter<F: FamilyOps>(core::marker::PhantomData<F>);

impl<F: FamilyOps> Adapter<F> {
    /// `net_proto_family::create`: `socket(family, type, protocol)`.
    ///
    /// # Safety
    ///
    /// Only called by the socket core, with a new `struct socket`.
    unsafe extern "C" fn create(
        net: *mut bindings::net,
        sock: *mut bindings::socket,
        protocol: c_int,
        kern: c_int,
    ) -> c_int {
        from_result(|| {
            let tables = TABLES.load(Ordering::Acquire);
            if tables.is_null() {
                return Err(crate::api::error::EAFNOSUPPORT.into());
            }
            // `create` runs only between `sock_register` and `sock_unregister`, while
            // `tables` is published and alive; only raw pointers into it are formed,
            // as other CPUs use it at the same time.
            // SAFETY: `sock` is the new socket of this call.
            let ty = unsafe { (*sock).type_ };
            let Create { kind, ty, as_unix } = F::check_create(ty as u16, protocol)?;
            // SAFETY: `tables` is alive (see above); no reference is created.
            let (ops, prot) = unsafe {
                match kind {
                    Kind::Stream => (
                        ptr::addr_of!((*tables).stream_ops),
                        ptr::addr_of_mut!((*tables).stream_proto),
                    ),
                    Kind::Dgram => (
                        ptr::addr_of!((*tables).dgram_ops),
                        ptr::addr_of_mut!((*tables).dgram_proto),
                    ),
                    Kind::Seqpacket => (
                        ptr::addr_of!((*tables).seqpacket_ops),
                        ptr::addr_of_mut!((*tables).dgram_proto),
                    ),
                }
            };
            // SAFETY: `sock` is the new socket of this call; SOCK_RAW becomes
            // SOCK_DGRAM.
            unsafe {
                (*sock).state = bindings::socket_state_SS_UNCONNECTED;
                (*sock).type_ = ty as i16;
                (*sock).ops = ops;
            }
            F::account_new()?;
            // SAFETY: Arguments of a `create` call; `prot` is registered with the size
            // of `UnixSock`.
            let r = unsafe {
                Sock::alloc(
                    net,
                    sock,
                    param::family(),
                    prot,
                    kern,
                    Self::write_space,
                    Self::destruct,
                    RelayAdapter::<F::Wake>::FUNC,
                )
            };
            // SAFETY: `sock` is the new socket of this call.
            unsafe { Socket::from_raw(sock) }.set_custom_sockopt();
            match r {
                Ok(sk) => {
                    if as_unix {
                        sk.set_as_unix();
                    }
                    F::init_new(sk)
                }
                Err(e) => {
                    F::unaccount();
                    return Err(e);
                }
            }
            Ok(0)
        })
    }

    /// `sk_destruct`.
    ///
    /// # Safety
    ///
    /// Only called by `__sk_destruct`, for a socket of this family whose last
    /// reference went (a grace period ago if it was `SOCK_RCU_FREE`).
    unsafe extern "C" fn destruct(sk: *mut bindings::sock) {
        // SAFETY: The core passes a socket of this family whose refcount dropped to zero
        // (maybe a grace period ago); it is valid until this hook returns.
        let s = unsafe { Sock::from_raw(sk) };
        // SAFETY: This is `sk_destruct`.
        unsafe { s.destruct() };
    }

    /// `sk_write_space`.
    ///
    /// # Safety
    ///
    /// Only called by the core, for a socket of this family whose memory is valid for
    /// the call (its last reference may be gone: `sock_wfree` of its last skb).
    unsafe extern "C" fn write_space(sk: *mut bindings::sock) {
        // SAFETY: As above: the memory is valid for the call, and `SpaceSock` takes no
        // reference.
        let s = unsafe { SpaceSock::new(Sock::from_raw(sk)) };
        F::write_space(&s);
        s.count_out_if_last();
    }
}

/// The registration tables.
struct Tables {
    stream_proto: bindings::proto,
    dgram_proto: bindings::proto,
    stream_ops: bindings::proto_ops,
    dgram_ops: bindings::proto_ops,
    seqpacket_ops: bindings::proto_ops,
    family: bindings::net_proto_family,
    /// The sock_diag handler of the family.
    diag: bindings::sock_diag_handler,
    /// Whether `diag` is registered (the module loads without it if the slot is taken).
    diag_registered: bool,
}

// SAFETY: The tables are plain C data that the module writes only before publishing
// them, and the C side reads; they may be dropped from any thread.
unsafe impl Send for Tables {}

// SAFETY: Shared references to the tables are only handed to C, which reads them.
unsafe impl Sync for Tables {}

/// The published tables, for `create`.
///
/// Set before `sock_register` and cleared after `sock_unregister`; the module cannot be
/// unloaded while a socket exists (each socket holds a module reference through the
/// `owner` of the tables), so the tables outlive every callback.
static TABLES: AtomicPtr<Tables> = AtomicPtr::new(ptr::null_mut());

fn proto_named(name: &[u8], owner: *mut bindings::module) -> bindings::proto {
    let mut p = bindings::proto::default();
    for (d, s) in p.name.iter_mut().zip(name) {
        *d = *s as kernel::ffi::c_char;
    }
    p.owner = owner;
    p.obj_size = core::mem::size_of::<UnixSock>() as u32;
    p
}

/// The `family` parameter, checked to be a number `sock_register` takes
/// ([`check_number`]): what [`Registration::new`] registers.
pub(crate) struct FamilyNumber(c_int);

/// Checks the `family` parameter: at load, before anything is registered.
pub(crate) fn check_number() -> Result<FamilyNumber> {
    let fam = param::family();
    if fam <= 0 || fam >= AF_MAX {
        pr_err!(
            "family={} is not a usable family number: pick a free one in 1..{} (see README)\n",
            fam,
            AF_MAX - 1
        );
        return Err(EINVAL);
    }
    Ok(FamilyNumber(fam))
}

/// The family, registered: unregistered on drop. At most one exists (the module's).
pub(crate) struct Registration {
    tables: Pin<KBox<Tables>>,
}

impl Registration {
    /// Registers the family `fam` with `F`'s creation and hooks, `S`, `D` and
    /// `Q` as the operations of stream, datagram and seqpacket sockets, and `G` as its
    /// sock_diag handler (optional: a failed registration of it is logged).
    pub(crate) fn new<F: FamilyOps, S: SocketOps, D: SocketOps, Q: SocketOps, G: SockDiag>(
        module: &'static ThisModule,
        fam: FamilyNumber,
    ) -> Result<Registration> {
        let fam = fam.0;
        let owner: *mut bindings::module = module.as_ptr().cast();
        let mut tables = KBox::pin(
            Tables {
                stream_proto: proto_named(b"RUST_AFUNIX-STREAM", owner),
                dgram_proto: proto_named(b"RUST_AFUNIX", owner),
                stream_ops: proto_ops::<S>(fam, owner),
                dgram_ops: proto_ops::<D>(fam, owner),
                seqpacket_ops: proto_ops::<Q>(fam, owner),
                family: bindings::net_proto_family {
                    family: fam,
                    create: Some(Adapter::<F>::create),
                    owner,
                },
                // `fam` is below `AF_MAX` (checked above).
                diag: sock_diag::handler::<G>(fam as u8, owner),
                diag_registered: false,
            },
            GFP_KERNEL,
        )?;
        // SAFETY: `Tables` holds no self-references and is not moved out of the box;
        // the C side keeps pointers into it until unregistration in `drop`.
        let t = unsafe { Pin::get_unchecked_mut(tables.as_mut()) };
        // SAFETY: `stream_proto` lives in the box until `proto_unregister` in `drop`.
        to_result(unsafe { bindings::proto_register(&mut t.stream_proto, 1) })?;
        // SAFETY: As above.
        if let Err(e) = to_result(unsafe { bindings::proto_register(&mut t.dgram_proto, 1) }) {
            // SAFETY: Registered just above.
            unsafe { bindings::proto_unregister(&mut t.stream_proto) };
            return Err(e);
        }
        TABLES.store(t, Ordering::Release);
        // SAFETY: `family` lives in the box until `sock_unregister` in `drop`.
        if let Err(e) = to_result(unsafe { bindings::sock_register(&t.family) }) {
            TABLES.store(ptr::null_mut(), Ordering::Release);
            // SAFETY: Registered above, and no socket could be created.
            unsafe {
                bindings::proto_unregister(&mut t.dgram_proto);
                bindings::proto_unregister(&mut t.stream_proto);
            }
            if e == EEXIST {
                pr_err!(
                    "family={} is taken by another protocol: load with another family= (see README)\n",
                    fam
                );
                // `EEXIST` from init tells modprobe the module is loaded already; 6.14+
                // loaders turn it into `EBUSY`, which the module gives on every line.
                return Err(EBUSY);
            }
            pr_err!("sock_register(family={}) failed: {:?}\n", fam, e);
            return Err(e);
        }
        // Last, and not fatal: a failed load after this point could free the module's
        // code under a dump already started (a dump pins the module, but a failed init
        // does not wait for that), and sockets may exist already.
        // SAFETY: `diag` lives in the box until `sock_diag_unregister` (and a grace
        // period) in `drop`.
        match to_result(unsafe { bindings::sock_diag_register(&t.diag) }) {
            Ok(()) => t.diag_registered = true,
            Err(e) => pr_warn!(
                "sock_diag_register(family={}) failed ({:?}): no sock_diag for the family\n",
                fam,
                e
            ),
        }
        pr_info!("registered socket family {} (AF_UNIX in Rust)\n", fam);
        Ok(Registration { tables })
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: Not moved out; see `new`.
        let t = unsafe { Pin::get_unchecked_mut(self.tables.as_mut()) };
        // SAFETY: Registered in `new`. No socket of this family exists (each holds a
        // module reference), and `sock_unregister` waits for `create` calls in flight.
        unsafe { bindings::sock_unregister(t.family.family) };
        TABLES.store(ptr::null_mut(), Ordering::Release);
        if t.diag_registered {
            // SAFETY: Registered in `new` (only then: unregistering clears the slot,
            // whoever holds it). A request or dump runs holding a module reference
            // (`sock_diag_lock_handler`, `netlink_dump_start`), so none is running; one
            // that read the handler's pointer under RCU is over after the grace period,
            // before the tables are freed.
            unsafe { bindings::sock_diag_unregister(&t.diag) };
            synchronize_rcu();
        }
        // SAFETY: Registered in `new`; no socket uses them any more.
        unsafe {
            bindings::proto_unregister(&mut t.dgram_proto);
            bindings::proto_unregister(&mut t.stream_proto);
        }
        pr_info!("unregistered socket family {}\n", t.family.family);
    }
}
