#!/bin/sh
# bench_agents: figures, not pass/fail. Times `gpudse annotate` (rules
# provider, offline) on a copy of a finished quickstart run directory; runs the
# quickstart first into a scratch folder when runs/quickstart is missing.
set -e
out=$(mktemp -d /tmp/gpudse-bench-agents.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [ -f runs/quickstart/analysis.json ]; then
    cp -r runs/quickstart "$out/run"
else
    ./gpudse run campaigns/quickstart.xml -o "$out/run" -q >/dev/null
fi
# force the rules provider whatever the copy says
sed -i 's/<agents [^>]*>//' "$out/run/campaign.xml"
n=5
start=$(date +%s.%N)
i=0
while [ $i -lt $n ]; do
    ./gpudse annotate "$out/run" >/dev/null
    i=$((i + 1))
done
end=$(date +%s.%N)
notes=$(grep -c '"agent"' "$out/run/annotations.json")
echo "agents annotate (rules provider, quickstart run: $(wc -l < "$out/run/results.jsonl") records)"
echo "  annotations:  $notes"
echo "  wall time:    $(awk -v a="$start" -v b="$end" -v n=$n 'BEGIN { printf "%.3f s per run (mean of %d)", (b - a) / n, n }')"
