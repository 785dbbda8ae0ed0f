#!/bin/sh
# cachesim: a toy GPU L1 cache simulator for the user-knob example
# (campaigns/custom-knobs.xml) and its tests. Not a model of any real GPU:
# a closed formula, deterministic, in milliseconds, whose output depends on
# every knob the campaign declares, as a real command-line simulator's
# would.
#
#   cachesim.sh --app NAME --policy lru|srrip|drrip --sms N --ways N CONFIG
#
# CONFIG is a file of `key = value` lines (the campaign writes it from a
# <file template>); it must give l1_kb. Prints `ipc = X`, `power_w = X`,
# `l1_miss_rate = X`; exits 2 on a bad argument.
set -u

app="" policy="" sms="" ways="" cfg=""
while [ $# -gt 0 ]; do
    case "$1" in
    --app) app="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    --sms) sms="$2"; shift 2 ;;
    --ways) ways="$2"; shift 2 ;;
    -*) echo "cachesim: unknown option $1" >&2; exit 2 ;;
    *) cfg="$1"; shift ;;
    esac
done
[ -n "$app" ] && [ -n "$policy" ] && [ -n "$sms" ] && [ -n "$ways" ] \
    && [ -r "$cfg" ] || { echo "cachesim: missing argument" >&2; exit 2; }
kb=$(sed -n 's/^l1_kb *= *\([0-9][0-9]*\) *$/\1/p' "$cfg")
[ -n "$kb" ] || { echo "cachesim: $cfg gives no l1_kb" >&2; exit 2; }

awk -v app="$app" -v pol="$policy" -v sms="$sms" -v ways="$ways" \
    -v kb="$kb" 'BEGIN {
    # the workload: its working set (KB per SM) and memory intensity from
    # the characters of its name
    h = 0
    for (i = 1; i <= length(app); i++)
        h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789_",
                             substr(app, i, 1))) % 9973
    ws = 16 + h % 112
    mem = 0.2 + (h % 7) / 10
    if (pol == "lru") base = 1.0
    else if (pol == "srrip") base = 0.85
    else if (pol == "drrip") base = 0.78
    else { print "cachesim: unknown policy " pol > "/dev/stderr"; exit 2 }
    # capacity misses fall with size, conflict misses with associativity
    cap = ws / (ws + kb)
    conf = 0.15 / ways
    miss = base * (cap + conf)
    if (miss > 0.98) miss = 0.98
    # per-SM throughput falls with the misses; more SMs share the memory
    per = 1.6 / (1 + 12 * mem * miss * (1 + sms / 64))
    printf "ipc = %.4f\n", sms * per
    printf "l1_miss_rate = %.4f\n", miss
    printf "power_w = %.3f\n", 18 + sms * (0.9 + kb * 0.004) + ways * 0.35 \
        + (pol == "drrip" ? 1.5 : pol == "srrip" ? 0.8 : 0)
}'
