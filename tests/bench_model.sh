#!/bin/sh
# make bench (model): builds build/tests/bench_model, gunzips the reference
# baseline logs into tests/tmp/bench_model/ and prints model evaluations per
# second on one core and the IPC error table (uncalibrated, from-log alone,
# held out of a leave-one-out calibration) for every reference kernel.
# Figures only, never pass/fail.
set -e
make -s build/tests/bench_model >/dev/null
dir=tests/tmp/bench_model
mkdir -p "$dir"
for f in tests/data/gpgpusim/*-baseline.log.gz; do
    gzip -dc "$f" > "$dir/$(basename "$f" .gz)"
done
GPUDSE_DATA="$(pwd)/templates" taskset -c 0 build/tests/bench_model \
    tests/data/reference_results.csv "$dir" tests/data/reference_results_strat.csv 2>/dev/null \
  || GPUDSE_DATA="$(pwd)/templates" build/tests/bench_model \
    tests/data/reference_results.csv "$dir" tests/data/reference_results_strat.csv
