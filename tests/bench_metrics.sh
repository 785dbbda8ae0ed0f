#!/bin/sh
# Metric extraction figures: one command-backend job whose output holds N
# lines matching its metric's regex (80k, 160k, 320k, 640k), timed end to
# end (`gpudse run`, including the campaign's set-up and its report). The
# extraction was quadratic (1.4 / 6.9 / 28.9 s for the first three); it is
# linear now, so the time should roughly double with N, not quadruple.
set -e
BIN=${GPUDSE_BIN:-./gpudse}
w=$(mktemp -d /tmp/gpudse-bench-metrics.XXXXXX)
trap 'rm -rf "$w"' EXIT
echo "metric extraction: one job printing N lines 'IPC = <i>.5' (regex IPC\\s*=\\s*([0-9.]+)), gpudse run wall time"
for n in 80000 160000 320000 640000; do
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "IPC = %d.5\n", i }' > "$w/out.txt"
    cat > "$w/m.xml" <<XML
<campaign name="m" seed="1">
  <simulator backend="command">
    <command>cat $w/out.txt</command>
    <metric name="ipc" regex="IPC\\s*=\\s*([0-9.]+)"/>
  </simulator>
  <workloads><workload name="m"/></workloads>
  <space><knob name="n_clusters" values="15"/></space>
  <objectives><maximize metric="ipc"/></objectives>
  <search strategy="exhaustive" budget="1"/>
  <execution jobs="1" timeout="600" retries="0"/>
  <report formats="svg"/>
</campaign>
XML
    rm -rf "$w/run"
    start=$(date +%s.%N)
    "$BIN" run "$w/m.xml" -o "$w/run" -q >/dev/null
    end=$(date +%s.%N)
    got=$(grep -o '"ipc":[0-9.e+]*' "$w/run/results.jsonl")
    printf "  %7d lines: %6.2f s  (%s)\n" "$n" "$(echo "$end - $start" | bc)" "$got"
done
