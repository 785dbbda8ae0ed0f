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
R=${BENCH_ENGINE_ROUNDS:-3}
seq 0 $((N - 1)) > "$w/ids"
# Rounds interleave gpudse and the two xargs baselines so that the machine's
# load (and the filesystem's state) drifts alike for all three; medians
# are printed. Each gets a fresh directory, and nothing is deleted until
# the end: ext4 without a journal (as /tmp is on some machines) scans past
# recently deleted inodes when it allocates new ones, which would charge
# one side for the other's clean-up.
#   strict: xargs runs the same command in one sh per job, its output
#           captured to stdout.log/stderr.log in a directory made beforehand
#           (untimed): everything gpudse does except making the directory
#   mkdir:  the same with `mkdir -p` timed per job (what gpudse also does)
r=0
while [ $r -lt "$R" ]; do
    ./gpudse run "$w/noop.xml" -o "$w/run$r" -q >/dev/null
    sed -n 's/.* in \([0-9.]*\) s, .* workers$/\1/p' "$w/run$r/run.log" | tail -1 >> "$w/g"
    mkdir -p "$w/s$r" && (cd "$w/s$r" && xargs mkdir < "$w/ids")
    t0=$(now)
    xargs -P "$P" -I{} sh -c 'cd "$0/$1" && exec >stdout.log 2>stderr.log; echo ipc=1' "$w/s$r" {} < "$w/ids"
    t1=$(now)
    echo "$t1 - $t0" | bc >> "$w/s"
    mkdir -p "$w/m$r"
    t0=$(now)
    xargs -P "$P" -I{} sh -c 'mkdir -p "$0/$1" && cd "$0/$1" && exec >stdout.log 2>stderr.log; echo ipc=1' "$w/m$r" {} < "$w/ids"
    t1=$(now)
    echo "$t1 - $t0" | bc >> "$w/m"
    r=$((r + 1))
done
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
g=$(med "$w/g"); s=$(med "$w/s"); m=$(med "$w/m")
awk -v n="$N" -v p="$P" -v r="$R" -v g="$g" -v s="$s" -v m="$m" \
    -v gs="$(tr '\n' ' ' < "$w/g")" -v ss="$(tr '\n' ' ' < "$w/s")" -v ms="$(tr '\n' ' ' < "$w/m")" 'BEGIN {
    printf "external no-op jobs: %d with %d workers, median of %d interleaved rounds\n", n, p, r
    printf "  gpudse job phase:        %.3f s (%.2f ms/job)   [%s]\n", g, 1000 * g / n, gs
    printf "  xargs -P %d, strict:      %.3f s (%.2f ms/job)   [%s]\n", p, s, 1000 * s / n, ss
    printf "  xargs -P %d, with mkdir:  %.3f s (%.2f ms/job)   [%s]\n", p, m, 1000 * m / n, ms
    printf "  engine overhead: %.2f ms/job over strict xargs; ratio %.2fx strict, %.2fx with mkdir (target <= 1.05x strict)\n", 1000 * (g - s) / n, g / s, g / m
}'
# in-process: the analytic model through the engine and the journal
./gpudse run campaigns/quickstart.xml -o "$w/qs" -q >/dev/null
sed -n 's/.*jobs: ran \([0-9]*\) .* in \([0-9.]*\) s, .*/\1 \2/p' "$w/qs/run.log" | tail -1 |
    awk '{ printf "in-process model jobs through the engine + journal: %d in %.3f s = %.0f jobs/s (target >= 100,000)\n", $1, $2, $1 / $2 }'
