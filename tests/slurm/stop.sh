#!/bin/sh
# stop.sh DIR: stop the test cluster started by start.sh DIR — its slurmd,
# slurmctld and munged, by the PIDs in DIR/*.pid (SIGTERM to all, then
# SIGKILL to any still there after 5 s) — and remove its munge socket
# files. Never touches other daemons.
set -u
dir="${1:?usage: stop.sh DIR}"
# the watcher start.sh left, unless it is the one calling (or this is it:
# the shell may exec its last command)
w=$(cat "$dir/watch.pid" 2>/dev/null)
if [ -n "$w" ] && [ "$w" != "$PPID" ] && [ "$w" != "$$" ]; then
    kill "$w" 2>/dev/null
fi
rm -f "$dir/watch.pid"
pids=""
for d in slurmd slurmctld munged; do
    f="$dir/$d.pid"
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null && pids="$pids $pid"
done
i=0
while [ $i -lt 50 ]; do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    sleep 0.1
    i=$((i + 1))
done
for p in $pids; do kill -9 "$p" 2>/dev/null; done
if [ -s "$dir/munge.socket" ]; then
    s=$(cat "$dir/munge.socket")
    case "$s" in /run/munge/gpudse-*.socket)
        b=${s%.socket}
        rm -f "$s" "$s.lock" "$b.pid" "$b.log" "$b.seed" "$b.out" ;;
    esac
fi
exit 0
