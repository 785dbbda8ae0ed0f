#!/bin/sh
# nightly.sh: one night of regression testing — run the nightly campaign
# into ROOT/<stamp>/, compare it with the last good run (ROOT/LAST_GOOD
# names it), write ROOT/junit.xml for CI, re-render the new run's report
# with its regression page, and promote the new run to LAST_GOOD only when
# nothing regressed. The first night (no LAST_GOOD) becomes the baseline
# when all its jobs succeeded.
#
# usage: campaigns/nightly.sh [ROOT]        ROOT defaults to runs/nightly
# environment: GPUDSE (default ./gpudse), CAMPAIGN (default
#   campaigns/nightly.xml), STAMP (run directory name, default UTC time),
#   THRESHOLDS (extra "--threshold METRIC=PCT" flags for gpudse compare)
# exit: 0 passed and promoted; 1 regression (baseline kept); 2 bad input;
#   3 environment error
set -u
GPUDSE=${GPUDSE:-./gpudse}
CAMPAIGN=${CAMPAIGN:-campaigns/nightly.xml}
ROOT=${1:-runs/nightly}
STAMP=${STAMP:-$(date -u +%Y%m%dT%H%M%SZ)}
NEW=$ROOT/$STAMP

mkdir -p "$ROOT" || exit 3
if [ -e "$NEW" ]; then
    echo "nightly: $NEW already exists" >&2
    exit 2
fi

# 1 (some jobs failed) is not fatal: compare says whether they are new.
"$GPUDSE" run "$CAMPAIGN" -o "$NEW" -q
run_rc=$?
if [ "$run_rc" -ge 2 ]; then
    echo "nightly: gpudse run failed with exit code $run_rc" >&2
    exit "$run_rc"
fi

promote() {
    printf '%s\n' "$STAMP" > "$ROOT/LAST_GOOD.tmp" &&
        mv "$ROOT/LAST_GOOD.tmp" "$ROOT/LAST_GOOD" &&
        echo "nightly: $NEW is the new baseline"
}

if [ ! -f "$ROOT/LAST_GOOD" ]; then
    if [ "$run_rc" -ne 0 ]; then
        echo "nightly: no baseline yet and jobs failed; not promoted" >&2
        exit 1
    fi
    promote || exit 3
    exit 0
fi

BASE=$ROOT/$(cat "$ROOT/LAST_GOOD")
# shellcheck disable=SC2086  # THRESHOLDS is a list of flags
"$GPUDSE" compare "$BASE" "$NEW" --junit "$ROOT/junit.xml" ${THRESHOLDS:-}
rc=$?
"$GPUDSE" report "$NEW" > /dev/null || echo "nightly: report failed" >&2
if [ "$rc" -eq 0 ]; then
    promote || exit 3
else
    echo "nightly: baseline stays $BASE" >&2
fi
exit "$rc"
