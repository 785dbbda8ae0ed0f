#!/bin/sh
# make bench (scale): a synthetic analytic campaign of W workloads over the
# whole 15,552-point space (W = BENCH_SCALE_WORKLOADS, default 64: 995,328
# jobs), each workload one of the eight built-in descriptors under its own
# name. Prints, per phase, wall time and peak memory (/usr/bin/time -v):
# the whole `gpudse run` (its jobs, analysis and report stages' own times
# and peak memory so far from run.log; results.csv is written by a child
# process beside the PDF, so its time is within the report's), then
# `gpudse analyze` and `gpudse report` (which writes results.csv and the
# report) on the finished directory, `gpudse status` on it, and a resume
# that finds nothing to do (keys from results.index). Figures,
# never pass/fail; never part of make check. Targets (issue 28): the run
# <= 60 s and <= 500 MB, status <= 0.1 s.
set -e
W=${BENCH_SCALE_WORKLOADS:-64}
w=$(mktemp -d /tmp/gpudse-bench-scale.XXXXXX)
trap 'rm -rf "$w"' EXIT
data=${GPUDSE_DATA:-$(pwd)/templates}
set -- dct8x8 dct8x8_jpeg histogram reduction sfu sgemm transpose vecadd
{
    echo '<campaign name="scale" seed="1">'
    echo '  <simulator backend="analytic"/>'
    echo '  <workloads>'
    i=0
    while [ $i -lt "$W" ]; do
        eval "b=\${$((i % 8 + 1))}"
        printf '    <workload name="w%02d_%s" file="%s/workloads/%s.xml"/>\n' "$i" "$b" "$data" "$b"
        i=$((i + 1))
    done
    cat <<'XML'
  </workloads>
  <space>
    <knob name="n_clusters"         values="8 15 30 60"/>
    <knob name="cores_per_cluster"  values="1 2 4"/>
    <knob name="n_mem"              values="4 6 8 12"/>
    <knob name="shmem_size"         values="16384 32768 49152"/>
    <knob name="scheduler"          values="gto lrr two_level_active"/>
    <knob name="num_sched_per_core" values="1 2 4"/>
    <knob name="l1_sets"            values="16 32 64 128"/>
    <knob name="l2_sets"            values="32 64 128"/>
  </space>
  <objectives>
    <maximize metric="ipc"/>
    <minimize metric="area_mm2"/>
  </objectives>
  <search strategy="exhaustive" budget="15552"/>
  <report formats="pdf svg" paper="a4"/>
</campaign>
XML
} > "$w/scale.xml"
# one phase under /usr/bin/time -v: "name  wall s  peak MB"
phase() {
    name=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$w/time.txt" || echo "  ($name exited $?)"
    awk -v n="$name" -F': ' '
        /Elapsed \(wall clock\)/ { k = split($2, t, ":"); s = 0
                                   for (i = 1; i <= k; i++) s = s * 60 + t[i] }
        /Maximum resident set size/ { m = $2 / 1024 }
        /User time/ { u = $2 } /System time/ { y = $2 }
        END { printf "  %-34s %8.2f s wall %8.2f s CPU %8.0f MB peak\n", n, s, u + y, m }' "$w/time.txt"
}
jobs=$((W * 15552))
echo "synthetic analytic campaign: $W workloads x 15,552 configs = $jobs jobs ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
phase "gpudse run (jobs+analysis+report)" ./gpudse run "$w/scale.xml" -o "$w/run" -q
sed -n 's/.*jobs: ran \([0-9]*\) .* in \([0-9.]*\) s, .*/  jobs phase (run.log): \1 jobs in \2 s/p' "$w/run/run.log" | tail -1
# the run's own stage lines: wall time and peak memory so far
sed -n 's/^[^ ]* \(analysis\|report ([^)]*)\): /  \1 stage (run.log): /p' "$w/run/run.log"
printf "  journal: %s bytes, %s lines\n" "$(stat -c %s "$w/run/results.jsonl")" "$(wc -l < "$w/run/results.jsonl")"
phase "gpudse analyze" ./gpudse analyze "$w/run"
phase "gpudse report (results.csv+report)" ./gpudse report "$w/run"
phase "gpudse status" ./gpudse status "$w/run"
phase "gpudse run again (nothing to do)" ./gpudse run "$w/scale.xml" -o "$w/run" -q
