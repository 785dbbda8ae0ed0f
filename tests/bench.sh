#!/bin/sh
# make bench: figures, not pass/fail. Runs the quickstart campaign under
# /usr/bin/time -v into a scratch directory and prints wall time, peak memory
# and jobs per second, then the line count per top-level folder.
set -e
out=$(mktemp -d /tmp/gpudse-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v ./gpudse run campaigns/quickstart.xml -o "$out/run" -q \
        >/dev/null 2>"$out/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")
else
    start=$(date +%s.%N)
    ./gpudse run campaigns/quickstart.xml -o "$out/run" -q >/dev/null
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    rss="? (install the 'time' package)"
fi
jobs=$(wc -l < "$out/run/results.jsonl")
secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
echo "quickstart campaign (exhaustive, 2 workloads x 15,552 configs, analytic model, including analysis and report)"
echo "  jobs:         $jobs"
echo "  wall time:    $wall"
echo "  peak memory:  $rss KiB"
echo "  jobs/second:  $(awk -v j="$jobs" -v s="$secs" 'BEGIN { if (s > 0) printf "%.0f", j / s; else print "n/a" }') (end to end)"
# Job throughput alone: a second campaign run with analysis+report excluded is
# not separable from the CLI, so report the engine's own per-workload timing.
grep -h "workload" "$out/run/run.log" | sed 's/^[^ ]* /  engine: /'
echo "lines of code per top-level folder (*.c, *.h, *.xml, *.rng, *.sh):"
for d in pipeline analysis report campaigns templates tests; do
    n=$(find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.xml' -o -name '*.rng' -o -name '*.sh' \) -not -path 'tests/tmp/*' -print0 | xargs -0 cat 2>/dev/null | wc -l)
    printf "  %-10s %6d\n" "$d/" "$n"
done
# Each area's benchmark: tests/bench_<area>.sh (figures, never pass/fail).
for b in tests/bench_*.sh; do
    [ -f "$b" ] || continue
    echo
    echo "== $b"
    sh "$b" || echo "($b exited $?)"
done
