#!/bin/sh
# bench_costmodel: figures for the split cost model (issue 8), never
# pass/fail. Prints Eq. (1) predictions per second on one core, the
# optimum's gap to the exhaustive grid, and the held-out calibration error
# of the cost model on this machine's cores (local-cpu, second core slowed
# 2x) from `gpudse calibrate-machine`: median/p90 APE, Spearman rho,
# Kendall tau-b, regret. Run from the repository root after `make`.
set -e
export GPUDSE_DATA="${GPUDSE_DATA:-$(pwd)/templates}"
if [ ! -x build/tests/bench_costmodel ]; then
    make --no-print-directory build/tests/bench_costmodel >/dev/null 2>&1 || \
    cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(for d in $(make -s --no-print-directory print-srcdirs); do printf -- "-I%s " "$d"; done) \
       $(pkg-config --cflags gsl libxml-2.0 cairo pangocairo libcjson) \
       -o build/tests/bench_costmodel tests/bench_costmodel.c build/libgpudse.a \
       $(pkg-config --libs gsl libxml-2.0 cairo pangocairo libcjson libcurl libcrypto libmatheval) -lm
fi
taskset -c 0 build/tests/bench_costmodel 2>/dev/null || build/tests/bench_costmodel
echo "local-cpu calibration (MEASURED(cpu) timings; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
./gpudse calibrate-machine --slowdown 1,2 --repeats 7 | sed 's/^/  /'
# The CUDA twin (campaigns/split-cuda.xml) where gpudse was built with nvcc
# and a GPU answers: host links, held-out error of MEASURED(cuda) decisions.
out=tests/tmp/bench_cuda
rm -rf "$out"
echo "split-cuda (measure-cuda: cudaEvent timings)"
if ./gpudse split run campaigns/split-cuda.xml -o "$out" -q 2>&1 | grep -q "no CUDA device"; then
    echo "  skipped: no CUDA device (or gpudse built without nvcc)"
else
    tr -d ' \t\n' < "$out/split-analysis.json" | grep -o '"host_links":\[[^]]*\]' |
        grep -o '"device":"[^"]*","direction":"[^"]*","latency_s":[^,]*,"bandwidth_Bps":[^,]*' |
        sed 's/"//g; s/^/  host link: /'
    tr -d ' \t\n' < "$out/split-analysis.json" | grep -o '"heldout":{[^}]*}' |
        sed 's/"//g; s/^/  /'
fi
