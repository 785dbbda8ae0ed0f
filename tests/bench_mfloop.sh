#!/bin/sh
# bench_mfloop: the multi-fidelity loop (<verify rounds=>) against the old
# screen-once top-N, on real GPGPU-Sim results. tests/fakesim/replay.sh
# answers each config from tests/data/reference_results*.csv (GPGPU-Sim 4.0,
# GTX480 configs; 50 configs per kernel), and the campaign may verify only
# those configs (<verify configs=>). Per kernel, maximizing IPC: how many
# real simulations until the best measured IPC is within 2% of the best any
# real run of that kernel measured — for the loop (counted per round, all
# of a round's configs) and for screen-once (the rank of the first
# within-2% config in the uncalibrated model's order; ties counted in its
# favour). Twice: with the built-in descriptors (tuned on these kernels),
# and with descriptors built from each kernel's baseline log alone
# (gpudse workload from-log), as for a kernel the project has never seen,
# and with those descriptors' cache and overlap parameters at naive first
# guesses (a deliberately wrong model: what re-calibration must repair).
# Figures, never pass/fail.
set -e
bin=${GPUDSE_BIN:-./gpudse}
here=$(pwd)
out=$(mktemp -d /tmp/gpudse-bench-mf.XXXXXX)
trap 'rm -rf "$out"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    echo "  skipped: python3 is needed to read the rounds journal"
    exit 0
fi
{ head -1 tests/data/reference_results.csv
  tail -n +2 tests/data/reference_results.csv
  tail -n +2 tests/data/reference_results_strat.csv; } > "$out/all.csv"
# MF_MAX_SMS=N: only configs of at most N SMs (a fixed silicon budget,
# where the biggest machine is not the obvious answer)
awk -F, -v max="${MF_MAX_SMS:-0}" 'NR == 1 || max == 0 || $3 * $4 <= max' \
    "$out/all.csv" > "$out/ref.csv"
kernels="dct8x8 histogram reduction sfu sgemm transpose vecadd"
for k in $kernels; do
    gzip -dc "tests/data/gpgpusim/$k-baseline.log.gz" > "$out/$k.log"
    "$bin" workload from-log "$out/$k.log" -o "$out/$k-fromlog.xml" --name "$k" >/dev/null 2>&1
    # naive: the from-log descriptor with its cache and overlap parameters
    # at first guesses, as before any calibration (a deliberately wrong model)
    sed -e 's/ l1_reuse="[^"]*"/ l1_reuse="0.5"/' \
        -e 's/ l2_reuse="[^"]*"/ l2_reuse="0.5"/' \
        -e 's/ mem_eff="[^"]*"/ mem_eff="0.5"/' \
        -e 's/ ilp="[^"]*"/ ilp="2"/' "$out/$k-fromlog.xml" > "$out/$k-naive.xml"
done
rounds=${MF_ROUNDS:-5} per=${MF_PER_ROUND:-2} mi=${MF_MIN_IMPROVEMENT:-0.005}
bench() {  # $1: builtin | fromlog | naive
mode=$1
wl=""
for k in $kernels; do
    if [ "$mode" != builtin ]; then
        wl="$wl<workload name=\"$k\" file=\"$k-$mode.xml\"/>"
    else
        wl="$wl<workload name=\"$k\"/>"
    fi
done
cat > "$out/mf.xml" <<XML
<campaign name="bench-mf" seed="1">
  <simulator backend="analytic"/>
  <verify backend="command" rounds="$rounds" per-round="$per" min-improvement="$mi" configs="ref.csv">
    <command>$here/tests/fakesim/replay.sh {campaign_dir}/ref.csv {workload} {n_clusters} {cores_per_cluster} {n_mem} {shmem_size} {scheduler} {num_sched_per_core} {l1_sets} {l2_sets}</command>
    <metric name="ipc" regex="gpu_tot_ipc = ([0-9.]+)"/>
    <metric name="cycles" regex="gpu_tot_sim_cycle = ([0-9]+)"/>
  </verify>
  <workloads>$wl</workloads>
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
  <search strategy="random" budget="8"/>
  <execution jobs="2" timeout="60"/>
  <report formats="svg"/>
</campaign>
XML
start=$(date +%s.%N)
"$bin" run "$out/mf.xml" -o "$out/run-$mode" -q >/dev/null 2>&1 || true
wall=$(echo "$(date +%s.%N) - $start" | bc)
for k in $kernels; do
    awk -F, -v k="$k" 'NR == 1 || $1 == k' "$out/ref.csv" > "$out/$k.csv"
    w=$k
    [ "$mode" != builtin ] && w="$out/$k-$mode.xml"
    "$bin" sim -w "$w" --configs "$out/$k.csv" > "$out/$k.$mode.pred.csv"
done
echo "$mode descriptors: multi-fidelity loop (rounds=$rounds per-round=$per min-improvement=$mi) vs screen-once top-N,"
echo "maximize IPC, measured = real GPGPU-Sim 4.0 IPC replayed from tests/data ($wall s wall, loop only)"
python3 - "$out" "$mode" $kernels <<'PY'
import csv, json, sys
out, mode, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
j = json.load(open("%s/run-%s/verify_rounds.json" % (out, mode)))
wls = {w["name"]: w for w in j["workloads"]}
print("  %-10s %5s %9s %11s %11s %9s %11s  %s" % (
    "kernel", "cands", "best_ipc", "loop_to_2%", "loop_total", "loop_best",
    "once_to_2%", "loop stopped"))
for k in kernels:
    rows = list(csv.DictReader(open("%s/%s.csv" % (out, k))))
    pred = list(csv.DictReader(open("%s/%s.%s.pred.csv" % (out, k, mode))))
    meas = {}
    for r, p in zip(rows, pred):
        key = tuple(r[c] for c in ("n_clusters", "cores_per_cluster", "n_mem",
                                   "shmem_size", "scheduler",
                                   "num_sched_per_core", "l1_sets", "l2_sets"))
        meas[key] = (float(r["ipc"]), float(p["ipc"]) if p["status"] == "ok"
                     else float("-inf"))
    best = max(m for m, _ in meas.values())
    good = [pr for m, pr in meas.values() if m >= 0.98 * best]
    once = 1 + sum(1 for _, pr in meas.values() if pr > max(good))
    w = wls[k]
    sims, reached, bestm = 0, None, 0.0
    for r in w["rounds"]:
        sims += len(r["picks"])
        for p in r["picks"]:
            v = (p.get("measured") or {}).get("ipc")
            if v is not None:
                bestm = max(bestm, v)
        if reached is None and bestm >= 0.98 * best:
            reached = sims
    print("  %-10s %5d %9.1f %11s %11d %8.1f%% %11d  %s" % (
        k, len(meas), best, reached if reached else "not reached", sims,
        100 * bestm / best, once, w["stopped"]))
PY
}
bench builtin
echo
bench fromlog
echo
bench naive
