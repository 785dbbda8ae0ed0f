#!/bin/sh
# Kill/resume soak: a command-backend campaign whose jobs each leave a
# background child and a setsid() grandchild behind, killed with SIGKILL
# at random moments SOAK_KILLS times (default 50), resumed each time, then
# run to its end. Prints lost and duplicated records, torn journal lines
# and processes left running (any of the jobs' children still alive).
# Figures, not pass/fail; every number is 0 when all is well.
set -u
KILLS=${SOAK_KILLS:-50}
BIN=${GPUDSE_BIN:-./gpudse}
w=$(mktemp -d /tmp/gpudse-soak.XXXXXX)
cleanup() {
    # only processes of this soak: their command line holds its folder
    for p in $(pgrep -f "$w/" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    rm -rf "$w"
}
trap cleanup EXIT
cat > "$w/left.sh" <<'SH'
#!/bin/sh
i=0; while [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
SH
cat > "$w/sim.sh" <<SH
#!/bin/sh
# a simulator that starts a helper and a daemon, and takes 0.05-0.3 s
"$w/left.sh" &
(setsid "$w/left.sh" &)
sleep 0.\$(( (\$1 * 7 + \$2 * 3) % 25 + 5 ))
echo "IPC = \$1\$2"
SH
chmod +x "$w/left.sh" "$w/sim.sh"
cat > "$w/soak.xml" <<XML
<campaign name="soak" seed="1">
  <simulator backend="command">
    <command>$w/sim.sh {n_clusters} {n_mem}</command>
    <metric name="ipc" regex="IPC = ([0-9]+)"/>
  </simulator>
  <workloads><workload name="app"/></workloads>
  <space>
    <knob name="n_clusters" values="8 15 30 60"/>
    <knob name="n_mem" values="4 6 8 12"/>
    <knob name="l1_sets" values="16 32 64 128"/>
    <knob name="l2_sets" values="32 64 128"/>
  </space>
  <objectives><maximize metric="ipc"/></objectives>
  <search strategy="exhaustive" budget="192"/>
  <execution jobs="4" timeout="60" retries="0"/>
  <report formats="svg"/>
</campaign>
XML
run="$w/run"
i=0
start=$(date +%s)
while [ "$i" -lt "$KILLS" ]; do
    "$BIN" run "$w/soak.xml" -o "$run" -q >/dev/null 2>&1 &
    pid=$!
    # 0.05 .. 0.60 s, from awk's generator seeded by the round
    sleep "$(awk -v s="$i" 'BEGIN { srand(s + 1); printf "%.2f", 0.05 + rand() * 0.55 }')"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    i=$((i + 1))
done
"$BIN" run "$w/soak.xml" -o "$run" -q >/dev/null 2>&1
rc=$?
sleep 1  # a supervisor told by the kernel that gpudse died finishes here
keys=$(grep -o '"key":"[0-9a-f]*"' "$run/results.jsonl" | sort)
total=$(printf '%s\n' "$keys" | grep -c key)
uniq=$(printf '%s\n' "$keys" | sort -u | grep -c key)
torn=$(grep -cv '}$' "$run/results.jsonl")
left=$(pgrep -f "$w/" | wc -l)
echo "kill/resume soak: $KILLS SIGKILLs at random moments (0.05-0.6 s after start), command backend, 192 jobs, each leaving a child and a setsid() grandchild"
echo "  final run exit:     $rc"
echo "  records:            $total of 192"
echo "  lost:               $((192 - uniq))"
echo "  duplicated:         $((total - uniq))"
echo "  torn lines:         $torn"
echo "  leftover processes: $left"
echo "  wall time:          $(( $(date +%s) - start )) s"
