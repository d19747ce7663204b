# SPDX-License-Identifier: GPL-2.0
# Shared settings for the rust_afunix scripts. Source it; do not run it.

KVER=6.12.117
# Debian's package of that tarball, pinned: bookworm-security moves on (6.12.118 came).
KSRC_DEB_VERSION=6.12.117-1~deb12u1
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
BINDGEN_VERSION=0.72.1
VNG_VERSION=1.42
LLVM_SUFFIX=-22

CACHE=${RUST_AFUNIX_CACHE:-$HOME/.cache/rust-afunix}
TOOLS=$CACHE/tools
VENV=$CACHE/venv
BINDGEN=$TOOLS/bin/bindgen
VNG=$VENV/bin/vng
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
CLIPPY_DRIVER=/usr/bin/clippy-driver

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Bump when scripts/build-kernel changes how a kernel is built (not for comments).
KERNEL_RECIPE=1

# kernel_key VARIANT: the cache key of a test kernel: version, variant and a hash of
# everything that decides its contents (fragments, recipe, toolchain versions).
kernel_key() {
	local h
	h=$( { cat "$ROOT/kconfig/base.config" "$ROOT/kconfig/$1.config";
		echo "recipe $KERNEL_RECIPE"; clang$LLVM_SUFFIX --version | head -n1;
		$RUSTC --version; "$BINDGEN" --version; } | sha256sum | cut -c1-12)
	echo "$KVER-$1-$h"
}

kernel_dir() {
	echo "$CACHE/kernels/$(kernel_key "$1")"
}

die() {
	echo "error: $*" >&2
	exit 1
}

# wait_module_idle (in the guest): the module's last sockets are freed a grace period
# after their close (SOCK_RCU_FREE) and hold the module until then; waits (at most
# 10 s) for its reference count to reach 0.
wait_module_idle() {
	local i
	for i in $(seq 100); do
		[ "$(cat /sys/module/rust_afunix/refcnt 2>/dev/null)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
