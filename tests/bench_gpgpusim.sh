#!/bin/sh
# make bench (gpgpusim): per-job cost of the GPGPU-Sim backend's in-process
# work — config + interconnect rewrite, statistics parse + failure
# classification of a real log (vecadd baseline, 66 KB) — and the scan rate
# on a 50 MB stdout (fakesim bigout). Figures only, never pass/fail.
set -e
bin=build/tests/bench_gpgpusim
if [ ! -x "$bin" ]; then
    echo "bench_gpgpusim: $bin not built (make bench builds it)"; exit 0
fi
out=$(mktemp -d /tmp/gpudse-bench-gsim.XXXXXX)
trap 'rm -rf "$out"' EXIT
gzip -dc tests/data/gpgpusim/vecadd-baseline.log.gz > "$out/real.log"
FAKESIM_MB=50 sh tests/fakesim/fakesim.sh bigout "$out/real.log" > "$out/big.log"
"$bin" "$out/real.log" "$out/big.log" > "$out/r.txt"
v() { sed -n "s/^$1 //p" "$out/r.txt"; }
echo "gpgpusim backend, in-process work per job"
echo "  config + icnt rewrite:            $(v rewrite_us) us"
echo "  parse + classify real log:        $(v read_us) us ($(v log_bytes) bytes)"
echo "  parse + classify 50 MB stdout:    $(v big_read_ms) ms ($(v big_mb_per_s) MB/s)"
