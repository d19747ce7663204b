# SPDX-License-Identifier: GPL-2.0
# Shared settings for the rust_afunix scripts. Source it; do not run it.

die() {
	echo "error: $*" >&2
	exit 1
}

BINDGEN_VERSION=0.72.1
VNG_VERSION=1.42
LLVM_SUFFIX=-22

CACHE=${RUST_AFUNIX_CACHE:-$HOME/.cache/rust-afunix}

# The kernel line (issue 36): KLINE=6.12 (the default, what CI runs) or 7.3. Each line's
# version is pinned here and nowhere else; its source is Debian's linux-source-$KLINE.
KLINE=${KLINE:-6.12}
case "$KLINE" in
6.12)
	# Pinned, not the newest 6.12.y: the test results, the benchmarks and the kernel
	# cache are of one known kernel; bookworm-security moves on (6.12.118 came).
	KVER=6.12.117
	KSRC_DEB_VERSION=6.12.117-1~deb12u1
	# Installed into the system by scripts/setup (a bookworm package).
	KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
	;;
7.3)
	# A trixie-backports package: scripts/setup downloads it with an apt state of its
	# own under the cache and extracts it there; nothing is installed into the system.
	KVER=7.3.4
	KSRC_DEB_VERSION=7.3.4-1~bpo13+1
	KSRC_SUITE=trixie-backports
	KSRC_TARBALL=$CACHE/debs/linux-source-7.3/usr/src/linux-source-7.3.tar.xz
	;;
*)
	die "KLINE=$KLINE: the kernel lines are 6.12 and 7.3"
	;;
esac
KSRC_PKG=linux-source-$KLINE
# The extracted tree of the line's tarball (build-kernel extracts it), and its UAPI
# headers for the upstream kselftests beyond 6.12 (build-kernel installs them).
KSRC=$CACHE/linux-source-$KLINE
KUAPI=$CACHE/uapi-$KVER
export KLINE
TOOLS=$CACHE/tools
VENV=$CACHE/venv
BINDGEN=$TOOLS/bin/bindgen
# 7.3's debug kernel has BTF (kconfig/debug.config): Debian trixie's pahole, run on
# trixie's own libraries (scripts/setup); bookworm's 1.24 predates 7.3's --btf_features.
PAHOLE_VERSION=1.30
PAHOLE=$TOOLS/bin/pahole
VNG=$VENV/bin/vng
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
CLIPPY_DRIVER=/usr/bin/clippy-driver

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Bump when scripts/build-kernel changes how a kernel is built (not for comments).
KERNEL_RECIPE=1

# kline_fragment VARIANT: the config fragment of the line's test kernel: kconfig/base.config
# and kconfig/VARIANT.config, with the per-line notes applied. A note is a comment line
#   # kline 7.3: drop WHY                 the next CONFIG_ line is not asked for on 7.3
#   # kline 7.3: CONFIG_NEW=y WHY         the next CONFIG_ line is this one on 7.3
#   # kline 7.3: add CONFIG_NEW=y WHY     this option is asked for on 7.3 as well
# and is left out of every line's fragment (so a note does not change 6.12's kernel key).
kline_fragment() {
	cat "$ROOT/kconfig/base.config" "$ROOT/kconfig/$1.config" | awk -v line="$KLINE" '
	/^# kline / {
		l = $3; sub(/:$/, "", l)
		if (l != line) next
		if ($4 == "add") print $5
		else if ($4 == "drop" || $4 ~ /^CONFIG_[A-Za-z0-9_]+=/) pend = $4
		else { print "kline_fragment: bad note: " $0 > "/dev/stderr"; exit 1 }
		next
	}
	pend != "" && /^CONFIG_/ {
		if (pend != "drop") print pend
		pend = ""
		next
	}
	{ print }'
}

# kernel_key VARIANT: the cache key of a test kernel: version, variant and a hash of
# everything that decides its contents (fragments, recipe, toolchain versions).
kernel_key() {
	local h
	h=$( { kline_fragment "$1";
		echo "recipe $KERNEL_RECIPE"; clang$LLVM_SUFFIX --version | head -n1;
		$RUSTC --version; "$BINDGEN" --version;
		[ "$KLINE" = 6.12 ] || "$PAHOLE" --version; } | sha256sum | cut -c1-12)
	echo "$KVER-$1-$h"
}

kernel_dir() {
	echo "$CACHE/kernels/$(kernel_key "$1")"
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
