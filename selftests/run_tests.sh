#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs every selftest program (inside the test VM: see scripts/vm-run), each test once
# per family variant (af_unix, rust_afunix), in the tmpfs $AFUNIX_TMP, and ends with
# the closing line "N passed, N failed". Arguments, if any, name the programs to run
# (a subset of tests.list, for `make check T="names datapath"`); none: all of them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
read -r -a TESTS <"$here/tests.list"
if [ $# -gt 0 ]; then
	for t in "$@"; do
		[[ " ${TESTS[*]} " == *" $t "* ]] || { echo "run_tests: no test '$t' in tests.list"; exit 2; }
	done
	TESTS=("$@")
fi
cd "${AFUNIX_TMP:-/tmp}" || exit 1

pass=0 fail=0 skip=0
for t in "${TESTS[@]}"; do
	echo "=== $t"
	start=$SECONDS
	"$here/$t" 2>&1 | tee "/tmp/afunix-$t.log"
	echo "=== $t: $((SECONDS - start)) s"
	totals=$(grep -E '^# Totals:' "/tmp/afunix-$t.log" | tail -n 1)
	if [ -z "$totals" ]; then
		echo "$t: no totals (crashed?)"
		fail=$((fail + 1))
		continue
	fi
	p=$(sed -E 's/.* pass:([0-9]+).*/\1/' <<<"$totals")
	f=$(sed -E 's/.* fail:([0-9]+).*/\1/' <<<"$totals")
	s=$(sed -E 's/.* skip:([0-9]+).*/\1/' <<<"$totals")
	e=$(sed -E 's/.* error:([0-9]+).*/\1/' <<<"$totals")
	pass=$((pass + p)) fail=$((fail + f + e)) skip=$((skip + s))
done
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
