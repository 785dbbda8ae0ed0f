#!/bin/sh
# nightly.sh: one night of regression testing — run the nightly campaign
# into ROOT/<stamp>/, compare it with the last good run (ROOT/LAST_GOOD
# names it), write ROOT/junit.xml for CI every night, re-render the new
# run's report with its regression page, promote the new run to LAST_GOOD
# only when nothing regressed (or with --accept), and keep the last KEEP
# run directories.
#
# usage: campaigns/nightly.sh [--accept] [ROOT]   ROOT defaults to runs/nightly
#   --accept   promote this night's run deliberately (after an intended
#              change): the comparison is still made, reported and recorded
#              (compare.json "accepted"), and the night passes
# environment: GPUDSE (default ./gpudse when it exists, else gpudse on
#   PATH), CAMPAIGN (default nightly.xml beside this script), STAMP (run
#   directory name, default UTC time), THRESHOLDS (extra "--threshold
#   METRIC=PCT" flags for gpudse compare), KEEP (run directories kept,
#   default 14; the one LAST_GOOD names is never removed)
# junit.xml: the comparison's checks; the first night one passing case
#   "baseline established" (a failing one when jobs failed); a run or
#   compare error one <error> case with the exit code and the message.
# exit: 0 passed and promoted; 1 regression or failed jobs (baseline
#   kept); 2 bad input; 3 environment error
set -u
HERE=$(dirname "$0")
if [ -z "${GPUDSE:-}" ]; then
    if [ -x ./gpudse ]; then GPUDSE=./gpudse; else GPUDSE=gpudse; fi
fi
CAMPAIGN=${CAMPAIGN:-$HERE/nightly.xml}
KEEP=${KEEP:-14}
ACCEPT=
if [ "${1:-}" = "--accept" ]; then
    ACCEPT=--accept
    shift
fi
case "${1:-}" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next }
                    NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "nightly: unknown option $1 (usage: nightly.sh [--accept] [ROOT])" >&2
        exit 2 ;;
esac
ROOT=${1:-runs/nightly}
STAMP=${STAMP:-$(date -u +%Y%m%dT%H%M%SZ)}
NEW=$ROOT/$STAMP
case "$KEEP" in
    ''|*[!0-9]*|0) echo "nightly: KEEP=$KEEP: expected a whole number >= 1" >&2
                   exit 2 ;;
esac

mkdir -p "$ROOT" || exit 3
if [ -e "$NEW" ]; then
    echo "nightly: $NEW already exists" >&2
    exit 2
fi

# XML text: & < > " escaped, control characters dropped.
xml_text() {
    printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037' |
        sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' \
            -e 's/"/\&quot;/g'
}

# junit_one NAME KIND MESSAGE BODY: ROOT/junit.xml with one test case;
# KIND pass, failure or error.
junit_one() {
    f=0; e=0
    [ "$2" = failure ] && f=1
    [ "$2" = error ] && e=1
    {
        echo '<?xml version="1.0" encoding="UTF-8"?>'
        echo "<testsuites name=\"gpudse nightly\" tests=\"1\" failures=\"$f\" errors=\"$e\" skipped=\"0\">"
        echo " <testsuite name=\"gpudse.nightly\" tests=\"1\" failures=\"$f\" errors=\"$e\" skipped=\"0\">"
        echo "  <testcase classname=\"gpudse.nightly\" name=\"$(xml_text "$1")\">"
        if [ "$2" = pass ]; then
            echo "   <system-out>$(xml_text "$3")</system-out>"
        else
            echo "   <$2 message=\"$(xml_text "$3")\" type=\"nightly\">$(xml_text "$4")</$2>"
        fi
        echo "  </testcase>"
        echo " </testsuite>"
        echo "</testsuites>"
    } > "$ROOT/junit.xml.tmp" && mv "$ROOT/junit.xml.tmp" "$ROOT/junit.xml"
}

# Keep the newest KEEP run directories (names sort by time) and the one
# LAST_GOOD names; only directories holding a run (campaign.xml) go.
prune() {
    good=
    [ -f "$ROOT/LAST_GOOD" ] && good=$(cat "$ROOT/LAST_GOOD")
    runs=$(for d in "$ROOT"/*/; do
               [ -f "${d}campaign.xml" ] && basename "$d"
           done | sort)
    n=$(printf '%s\n' "$runs" | grep -c .)
    drop=$((n - KEEP))
    [ "$drop" -gt 0 ] || return 0
    printf '%s\n' "$runs" | head -n "$drop" | while read -r d; do
        [ -n "$d" ] && [ "$d" != "$good" ] && rm -rf "${ROOT:?}/$d" &&
            echo "nightly: removed $ROOT/$d (KEEP=$KEEP)"
    done
}

promote() {
    printf '%s\n' "$STAMP" > "$ROOT/LAST_GOOD.tmp" &&
        mv "$ROOT/LAST_GOOD.tmp" "$ROOT/LAST_GOOD" &&
        echo "nightly: $NEW is the new baseline"
}

finish() {
    prune
    exit "$1"
}

# 1 (some jobs failed) is not fatal: compare says whether they are new.
ERR=$ROOT/.nightly-$STAMP.stderr
"$GPUDSE" run "$CAMPAIGN" -o "$NEW" -q 2> "$ERR"
run_rc=$?
cat "$ERR" >&2
if [ "$run_rc" -ge 2 ]; then
    echo "nightly: gpudse run failed with exit code $run_rc" >&2
    junit_one "run" error "gpudse run $CAMPAIGN exited $run_rc" \
        "$(tail -c 4000 "$ERR")"
    rm -f "$ERR"
    finish "$run_rc"
fi
rm -f "$ERR"

if [ ! -f "$ROOT/LAST_GOOD" ]; then
    if [ "$run_rc" -ne 0 ] && [ -z "$ACCEPT" ]; then
        echo "nightly: no baseline yet and jobs failed; not promoted" >&2
        junit_one "baseline" failure "no baseline yet: jobs of $NEW failed" \
            "gpudse run exited $run_rc; see $NEW/results.jsonl and $NEW/report.pdf. Fix the failures, or run nightly.sh --accept to take this run as the baseline."
        finish 1
    fi
    promote || exit 3
    junit_one "baseline established" pass \
        "first night: $NEW is the baseline the next nights compare with"
    finish 0
fi

BASE=$ROOT/$(cat "$ROOT/LAST_GOOD")
CMP_ERR=$ROOT/.nightly-$STAMP.compare
# shellcheck disable=SC2086  # THRESHOLDS is a list of flags
"$GPUDSE" compare "$BASE" "$NEW" --junit "$ROOT/junit.xml" $ACCEPT \
    ${THRESHOLDS:-} 2> "$CMP_ERR"
rc=$?
cat "$CMP_ERR" >&2
if [ "$rc" -ge 2 ]; then
    junit_one "compare" error "gpudse compare $BASE $NEW exited $rc" \
        "$(tail -c 4000 "$CMP_ERR")"
fi
rm -f "$CMP_ERR"
"$GPUDSE" report "$NEW" > /dev/null || echo "nightly: report failed" >&2
if [ "$rc" -eq 0 ]; then
    promote || exit 3
    [ -n "$ACCEPT" ] && echo "nightly: accepted deliberately (--accept)"
else
    echo "nightly: baseline stays $BASE" >&2
fi
finish "$rc"
