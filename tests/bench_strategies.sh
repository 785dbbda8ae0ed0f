#!/bin/sh
# make bench (strategies): figures, not pass/fail. Builds nothing itself —
# `make bench` builds build/tests/bench_strategies — and prints, per
# workload, how close each search strategy gets to the exhaustive
# hypervolume of the embedded model (modelled) within 100 and 300
# evaluations, median over 5 seeds, with random search alongside; then the
# wall time of the strategy-study campaign end to end.
set -e
bin=build/tests/bench_strategies
if [ ! -x "$bin" ]; then
    echo "bench_strategies: $bin not built (make bench builds it)"
    exit 0
fi
GPUDSE_DATA="${GPUDSE_DATA:-$(pwd)/templates}" "$bin" sgemm dct8x8 reduction histogram transpose
out=$(mktemp -d /tmp/gpudse-bench-strat.XXXXXX)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
./gpudse run campaigns/strategy-study.xml -o "$out/run" -q >/dev/null
end=$(date +%s.%N)
echo "strategy-study campaign (surrogate search, 3 workloads x 300 evaluations, study of 5 strategies x 5 seeds replayed in analysis, report):"
echo "  wall time: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f s", b - a }')"
