#!/bin/sh
# start.sh DIR [OWNER_PID]: start a single-node Slurm cluster on loopback
# for the tests (tests/test_slurm.c): munged as the munge user (socket under
# /run/munge), slurmctld and slurmd as root with the config slurm.conf.in
# filled in under DIR. Prints `export SLURM_CONF=DIR/slurm.conf` on success.
# Exit 0 when the node is up; 1 with the reason on stderr when it cannot
# start; 77 when not root. The PIDs land in DIR/*.pid; stop.sh DIR stops
# them. With OWNER_PID, a watcher runs stop.sh DIR when that process dies
# (a test killed before it could stop its cluster).
set -u
dir="${1:?usage: start.sh DIR [OWNER_PID]}"
owner="${2:-}"
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "start.sh: not root" >&2; exit 77; }
for p in munged slurmctld slurmd sbatch squeue; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || {
        echo "start.sh: $p not installed (Debian: apt-get install munge slurmctld slurmd slurm-client)" >&2
        exit 1; }
done
PATH="$PATH:/usr/sbin"
mkdir -p "$dir/state" "$dir/spool" || exit 1
dir=$(cd "$dir" && pwd)
id=$$
cpus=$(nproc 2>/dev/null || echo 1)
mem=$(awk '/MemTotal/ { m = int($2 / 1024 / 2); print (m > 4096 ? 4096 : m) }' /proc/meminfo)
# ports from the pid: concurrent test runs get their own cluster
base=$((20000 + (id % 10000) * 2))
sock="/run/munge/gpudse-$id.socket"

mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge || exit 1
key=/etc/munge/munge.key
if [ ! -s "$key" ]; then
    echo "start.sh: creating $key" >&2
    mkdir -p /etc/munge && chown munge:munge /etc/munge && chmod 0700 /etc/munge
    dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null || exit 1
    chown munge:munge "$key" && chmod 0400 "$key"
fi
# in the foreground, backgrounded here: a daemonizing munged needs a
# writable /dev/null, which some sandboxes lack
su -s /bin/sh munge -c "exec munged -F --socket=$sock \
    --pid-file=/run/munge/gpudse-$id.pid --log-file=/run/munge/gpudse-$id.log \
    --seed-file=/run/munge/gpudse-$id.seed --key-file=$key --num-threads=2 \
    >>/run/munge/gpudse-$id.out 2>&1" >>"$dir/su-munged.out" 2>&1 &
echo $! > "$dir/su-munged.pid"
i=0
while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$sock" ] || {
    echo "start.sh: munged did not start: $(tail -n 3 /run/munge/gpudse-$id.log /run/munge/gpudse-$id.out 2>/dev/null)" >&2
    exit 1; }
cp "/run/munge/gpudse-$id.pid" "$dir/munged.pid" 2>/dev/null
echo "$sock" > "$dir/munge.socket"

sed -e "s|@CLUSTER@|gpudse$id|" -e "s|@CTLD_PORT@|$base|" \
    -e "s|@SLURMD_PORT@|$((base + 1))|" -e "s|@MUNGE_SOCKET@|$sock|" \
    -e "s|@DIR@|$dir|g" -e "s|@CPUS@|$cpus|" -e "s|@MEM_MB@|$mem|" \
    "$here/slurm.conf.in" > "$dir/slurm.conf" || exit 1
SLURM_CONF="$dir/slurm.conf"
export SLURM_CONF
if [ -n "$owner" ]; then
    ( while kill -0 "$owner" 2>/dev/null; do sleep 1; done
      "$here/stop.sh" "$dir" ) >"$dir/watch.log" 2>&1 &
    echo $! > "$dir/watch.pid"
fi
slurmctld -f "$SLURM_CONF" -i || {
    echo "start.sh: slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)" >&2
    exit 1; }
slurmd -f "$SLURM_CONF" -N localhost || {
    echo "start.sh: slurmd did not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)" >&2
    exit 1; }
# up to 20 s for the node to register and become idle
i=0
while [ $i -lt 100 ]; do
    st=$(sinfo -h -n localhost -o %T 2>/dev/null)
    case "$st" in idle*|mixed*|allocated*) echo "export SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
    sleep 0.2
    i=$((i + 1))
done
echo "start.sh: node never became idle (state '$st'): $(tail -n 3 "$dir/slurmd.log" "$dir/slurmctld.log" 2>/dev/null)" >&2
exit 1
