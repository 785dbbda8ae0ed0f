#!/bin/sh
# make bench: figures, not pass/fail. Runs the quickstart campaign under
# /usr/bin/time -v into a scratch directory and prints wall and CPU time,
# peak memory and jobs per second, then the line count per top-level
# folder, then each area's tests/bench_*.sh (bench_scale.sh: the synthetic
# million-job campaign, per phase; bench_engine.sh: external-job overhead
# against xargs -P; bench_model.sh: model evaluations per second).
set -e
out=$(mktemp -d /tmp/gpudse-bench.XXXXXX)
load=$(cut -d' ' -f1-3 /proc/loadavg)
trap 'rm -rf "$out"' EXIT
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v ./gpudse run campaigns/quickstart.xml -o "$out/run" -q \
        >/dev/null 2>"$out/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f s", s }' "$out/time.txt")
else
    start=$(date +%s.%N)
    ./gpudse run campaigns/quickstart.xml -o "$out/run" -q >/dev/null
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    rss="? (install the 'time' package)"
    cpu="?"
fi
jobs=$(wc -l < "$out/run/results.jsonl")
secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
echo "quickstart campaign (exhaustive, 2 workloads x 15,552 configs, analytic model, including analysis and report)"
echo "  jobs:         $jobs"
echo "  wall time:    $wall (target <= 1.0 s on 2 cores; load average before: $load)"
echo "  CPU time:     $cpu (user + system)"
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
