#!/bin/sh
# Engine figures: overhead per external job (N no-op jobs through gpudse's
# pool against xargs -P running the same commands), and in-process model
# jobs per second through the engine including the journal.
set -e
N=${BENCH_ENGINE_JOBS:-2000}
P=$(nproc)
w=$(mktemp -d /tmp/gpudse-bench-engine.XXXXXX)
trap 'rm -rf "$w"' EXIT
cat > "$w/noop.xml" <<XML
<campaign name="noop" seed="1">
  <simulator backend="command">
    <command>echo ipc=1</command>
    <metric name="ipc" regex="ipc=([0-9]+)"/>
  </simulator>
  <workloads><workload name="noop"/></workloads>
  <space>
    <knob name="n_clusters" values="8 15 30 60"/>
    <knob name="cores_per_cluster" values="1 2 4"/>
    <knob name="n_mem" values="4 6 8 12"/>
    <knob name="shmem_size" values="16384 32768 49152"/>
    <knob name="scheduler" values="gto lrr two_level_active"/>
    <knob name="num_sched_per_core" values="1 2 4"/>
    <knob name="l1_sets" values="16 32 64 128"/>
    <knob name="l2_sets" values="32 64 128"/>
  </space>
  <objectives><maximize metric="ipc"/></objectives>
  <search strategy="random" budget="$N"/>
  <execution jobs="$P" timeout="60" retries="0"/>
  <report formats="svg"/>
</campaign>
XML
now() { date +%s.%N; }
t0=$(now)
./gpudse run "$w/noop.xml" -o "$w/run" -q >/dev/null
t1=$(now)
# what the engine's own log says the job phase took (without analysis/report)
jobs_s=$(sed -n 's/.* in \([0-9.]*\) s, .* workers$/\1/p' "$w/run/run.log" | tail -1)
mkdir -p "$w/x"
t2=$(now)
i=0; while [ $i -lt "$N" ]; do echo "$i"; i=$((i+1)); done |
    xargs -P "$P" -I{} sh -c 'mkdir -p "$0/$1" && cd "$0/$1" && sh -c "echo ipc=1" >stdout.log 2>stderr.log' "$w/x" {}
t3=$(now)
awk -v n="$N" -v p="$P" -v g="$jobs_s" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
    x = d - c
    printf "external no-op jobs: %d with %d workers\n", n, p
    printf "  gpudse job phase:  %.3f s (%.2f ms/job); whole run incl. analysis+report %.3f s\n", g, 1000 * g / n, b - a
    printf "  xargs -P %d:        %.3f s (%.2f ms/job)\n", p, x, 1000 * x / n
    printf "  engine overhead:   %.2f ms/job over xargs; ratio %.2fx (target <= 2 ms, <= 1.2x)\n", 1000 * (g - x) / n, g / x
}'
# in-process: the analytic model through the engine and the journal
./gpudse run campaigns/quickstart.xml -o "$w/qs" -q >/dev/null
sed -n 's/.*jobs: ran \([0-9]*\) .* in \([0-9.]*\) s, .*/\1 \2/p' "$w/qs/run.log" | tail -1 |
    awk '{ printf "in-process model jobs through the engine + journal: %d in %.3f s = %.0f jobs/s (target >= 100,000)\n", $1, $2, $1 / $2 }'
