#!/bin/sh
# gpudse compare figures (not pass/fail): wall time and peak memory of
# comparing two runs of campaigns/nightly.xml with its budget raised to
# BENCH_COMPARE_BUDGET configs per kernel (7 kernels, analytic model),
# matched by key, then with every NEW key changed (matched by config).
set -e
N=${BENCH_COMPARE_BUDGET:-2000}
w=$(mktemp -d /tmp/gpudse-bench-compare.XXXXXX)
trap 'rm -rf "$w"' EXIT
sed "s/budget=\"200\"/budget=\"$N\"/; s/formats=\"pdf svg\"/formats=\"svg\"/" \
    campaigns/nightly.xml > "$w/nightly.xml"
./gpudse run "$w/nightly.xml" -o "$w/a" -q >/dev/null
./gpudse run "$w/nightly.xml" -o "$w/b" -q >/dev/null
jobs=$(wc -l < "$w/a/results.jsonl")
measure() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%e s, peak %M KiB" ./gpudse compare "$w/a" "$w/b" \
            --junit "$w/junit.xml" 2>&1 >/dev/null | tail -1
    else
        ./gpudse compare "$w/a" "$w/b" >/dev/null; echo "(install 'time')"
    fi
}
echo "compare: two runs of $jobs jobs each (nightly campaign, budget $N)"
echo "  matched by key:     $(measure)"
# a new model version: every key differs (its 64 hex digits reversed)
awk '{ i = index($0, "\"key\":\"") + 7; k = substr($0, i, 64); r = "";
       for (j = 64; j > 0; j--) r = r substr(k, j, 1);
       print substr($0, 1, i - 1) r substr($0, i + 64) }' \
    "$w/b/results.jsonl" > "$w/r" && mv "$w/r" "$w/b/results.jsonl"
echo "  keys changed:       $(measure)"
grep -o '"matched_by_[a-z]*":[^,]*' "$w/b/compare.json" | sed 's/^/    /'
