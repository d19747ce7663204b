#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The README's funclatency example (run in the perf guest by scripts/vm-run): both
# families' bind paths traced while bench/lookup binds 5,000 new abstract names among
# 20,000.
cd "$AFUNIX_TMP" || exit 1
fl=$AFUNIX_ROOT/tools/funclatency
$fl -d 40 rust_afunix_find_socket_byname >"$AFUNIX_OUT/fl1.txt" 2>&1 &
$fl -d 40 -l 0,400,50 unix_bind >"$AFUNIX_OUT/fl2.txt" 2>&1 &
until grep -q Attaching "$AFUNIX_OUT/fl1.txt" && grep -q Attaching "$AFUNIX_OUT/fl2.txt"; do
	sleep 1
done
"$AFUNIX_ROOT/bench/lookup" ours 20000 0 5000 lk-x rand
"$AFUNIX_ROOT/bench/lookup" unix 20000 0 5000 lk-x rand
wait
cat "$AFUNIX_OUT/fl1.txt" "$AFUNIX_OUT/fl2.txt"
