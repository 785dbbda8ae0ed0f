#!/bin/sh
# fakesim: a fake GPGPU-Sim program for the executor's tests. It behaves the
# ways a real simulator run ends — replays a real log, crashes, hangs,
# deadlocks, prints garbage, fails — deterministically, in a few
# milliseconds (but hang, and bigout's volume).
#
#   fakesim.sh MODE [LOG]
#
# LOG is a real GPGPU-Sim stdout (plain or .gz), e.g.
# tests/data/gpgpusim/vecadd-baseline.log.gz. Modes:
#   replay    print LOG, exit 0 (the successful run)
#   crash     print the first 300 lines of LOG, then SIGSEGV itself
#   hang      print one line, then sleep forever
#   deadlock  print the first 300 lines of LOG and GPGPU-Sim 4.0's deadlock
#             banner, then SIGABRT itself (gpgpu_sim::deadlock_check calls
#             abort() after the banner)
#   garbage   print junk and statistics lines whose numbers are junk, exit 0
#   nostats   print the program's own lines but no statistics, exit 0
#   fail      print LOG with the program's PASS lines turned into FAIL, exit 0
#   exit1     print a few lines (an error on stderr), exit 1
#   fork      start a background child that sleeps 300 s, replay LOG, exit 0
#   bigout    print about $FAKESIM_MB MB (default 50) of progress lines,
#             then replay LOG, exit 0
#   oom       print the C++ runtime's std::bad_alloc message, SIGABRT itself;
#             with FAKESIM_OOM_MB=N it first really grows a string to N MB
#             (run that only under a memory cap: RLIMIT_AS makes it fail)
#   assert    print the first 300 lines of LOG and an `Assertion ... failed.`
#             line on stderr, then SIGABRT itself
#   noconfig  print LOG's start-up banner, then GPGPU-Sim's "Cannot open
#             config file 'gpgpusim.config'" on stderr (option_parser.cc's
#             text), exit 1 — libcudart loaded without a config beside it
#   nocuda    print LOG up to the PTX extraction, the shell's "not found" for
#             $CUDA_INSTALL_PATH/bin/cuobjdump with CUDA_INSTALL_PATH unset,
#             then SIGABRT itself
#   noptx     print LOG up to "Extracting specific PTX file named ...", a
#             missing-file error for that .ptx on stderr, then SIGABRT itself
# Like the real simulator, when the working directory holds gpgpusim.config:
# a `k` in its interconnect file other than n_clusters + 2*n_mem segfaults
# (modes replay, fail, fork, bigout), and with -power_simulation_enabled 1
# replay writes gpgpusim_power_report__fakesim.log (power $FAKESIM_POWER_W,
# default 110.31 W).
set -u

mode="${1:-}"
log="${2:-}"

cat_log() {
    [ -n "$log" ] || { echo "fakesim: mode $mode needs a LOG" >&2; exit 2; }
    case "$log" in
    *.gz) gzip -dc "$log" ;;
    *) cat "$log" ;;
    esac
}

head_log() {
    cat_log | head -n 300
}

# The value of a key in ./gpgpusim.config.
config_value() {
    sed -n "s/^$1[ 	][ 	]*\([^ 	]*\).*/\1/p" gpgpusim.config | head -n 1
}

# Segfault on an interconnect whose k does not fit the config, as the real
# simulator does.
check_config() {
    [ -f gpgpusim.config ] || return 0
    icnt=$(config_value -inter_config_file)
    nc=$(config_value -gpgpu_n_clusters)
    nm=$(config_value -gpgpu_n_mem)
    [ -n "$icnt" ] && [ -f "$icnt" ] || {
        echo "GPGPU-Sim: cannot open interconnect file '$icnt'" >&2; exit 1; }
    k=$(sed -n 's/^[ 	]*k[ 	]*=[ 	]*\([0-9][0-9]*\).*/\1/p' "$icnt")
    if [ "$k" != "$((nc + 2 * nm))" ]; then
        echo "GPGPU-Sim uArch: interconnect k=$k, expected $((nc + 2 * nm))"
        kill -SEGV $$
    fi
}

power_report() {
    [ -f gpgpusim.config ] || return 0
    [ "$(config_value -power_simulation_enabled)" = 1 ] || return 0
    w="${FAKESIM_POWER_W:-110.31}"
    {
        echo "kernel_name = fakesim_kernel"
        echo "kernel_launch_uid = 1"
        echo "Kernel Average Power Data:"
        echo "kernel_avg_power = $w"
        echo
        echo "Kernel Maximum Power Data:"
        echo "kernel_max_power = $w"
        echo
        echo "Accumulative Power Statistics Over Previous Kernels:"
        echo "gpu_tot_avg_power = $w"
        echo "gpu_tot_max_power = $w"
        echo "gpu_tot_min_power = $w"
    } > gpgpusim_power_report__fakesim.log
}

case "$mode" in
replay)
    check_config
    power_report
    cat_log
    exit 0 ;;
crash)
    head_log
    kill -SEGV $$ ;;
hang)
    echo "GPGPU-Sim PTX: simulation mode 0"
    while :; do sleep 1; done ;;
deadlock)
    head_log
    printf '\n\nGPGPU-Sim uArch: ERROR ** deadlock detected: last writeback core 3 @ gpu_sim_cycle 4242 (+ gpu_tot_sim_cycle 1000) (50000 cycles ago)\n'
    echo "GPGPU-Sim uArch: DEADLOCK  shader cores no longer committing instructions [core(# threads)]:"
    echo "GPGPU-Sim uArch: DEADLOCK  3(256) 4(256)"
    echo "GPGPU-Sim uArch DEADLOCK:  memory partition 0 busy"
    printf '\nRe-run the simulator in gdb and use debug routines in .gdbinit to debug this\n'
    kill -ABRT $$ ;;
garbage)
    printf 'x\037\177\200\377 q#Z@@@\n'
    echo '%%%% 9f8e7d6c5b4a39281706 ~~~~ !!'
    echo 'kernel_name = _Z6vecaddPKfS0_Pfi '
    echo 'kernel_launch_uid = 1 '
    echo 'gpu_sim_cycle = 98#5'
    echo 'gpu_sim_insn = xx2752512'
    echo 'gpu_ipc =     @@@.4393'
    echo 'gpu_tot_sim_cycle = ~~~~'
    echo 'gpu_tot_ipc = ?%!'
    printf '\001\002\003 ~~ zq9 ))(( \n'
    exit 0 ;;
nostats)
    echo "GPGPU-Sim PTX: simulation mode 0"
    echo "vecadd PASS (bad=0)"
    echo "GPGPU-Sim: *** exit detected ***"
    exit 0 ;;
fail)
    check_config
    cat_log | sed 's/ PASS/ FAIL/'
    exit 0 ;;
exit1)
    echo "GPGPU-Sim PTX: simulation mode 0"
    echo "GPGPU-Sim: Configuration options:"
    echo "fakesim: cudaMalloc failed: invalid device" >&2
    exit 1 ;;
fork)
    check_config
    sleep 300 &
    cat_log
    exit 0 ;;
bigout)
    check_config
    mb="${FAKESIM_MB:-50}"
    yes 'GPGPU-Sim PTX: 100000 instructions simulated : ctaid=(6,4,0)' |
        head -c $((mb * 1048576))
    echo
    cat_log
    exit 0 ;;
oom)
    if [ -n "${FAKESIM_OOM_MB:-}" ]; then
        awk -v mb="$FAKESIM_OOM_MB" 'BEGIN { s = "x";
            while (length(s) < mb * 1048576) s = s s; print length(s) }' \
            >/dev/null || true
    fi
    echo "terminate called after throwing an instance of 'std::bad_alloc'" >&2
    echo "  what():  std::bad_alloc" >&2
    kill -ABRT $$ ;;
assert)
    head_log
    echo "gpgpu_ptx_sim__vecadd: gpu-cache.cc:110: void cache_config::init(char*, FuncCache): Assertion \`m_nset > 0' failed." >&2
    kill -ABRT $$ ;;
noconfig)
    cat_log | head -n 8
    printf '\n\nGPGPU-Sim ** ERROR: Cannot open config file '"'"'gpgpusim.config'"'"'\n' >&2
    exit 1 ;;
nocuda)
    cat_log | head -n 250
    echo 'Running cuobjdump using "$CUDA_INSTALL_PATH/bin/cuobjdump -lptx /sim/run/vecadd"'
    echo "sh: 1: /bin/cuobjdump: not found" >&2
    echo "GPGPU-Sim PTX: __cudaRegisterFatBinary, fat_cubin_handle = 1, filename=default"
    kill -ABRT $$ ;;
noptx)
    cat_log | head -n 261
    echo "vecadd.1.sm_75.ptx: No such file or directory" >&2
    kill -ABRT $$ ;;
*)
    echo "usage: fakesim.sh replay|crash|hang|deadlock|garbage|nostats|fail|exit1|fork|bigout|oom|assert|noconfig|nocuda|noptx [LOG]" >&2
    exit 2 ;;
esac
