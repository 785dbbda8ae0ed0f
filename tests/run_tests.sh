#!/bin/sh
# Runs every Check suite given on the command line from the repository root,
# with the source tree's templates as gpudse's data, then prints one closing
# line "N passed, N failed" (suites, and in them Check's own per-test lines).
export GPUDSE_DATA="$(pwd)/templates"
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-120}"
mkdir -p tests/tmp
pass=0; fail=0; failed=""
for t in "$@"; do
    echo "== $t"
    if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
[ -n "$failed" ] && echo "failed suites:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
