#!/bin/sh
# replay.sh: a stand-in GPGPU-Sim for the verification loop's tests and
# bench. It answers a config with the statistics real GPGPU-Sim 4.0 runs
# measured for it (tests/data/reference_results*.csv, copies of the
# project's reference data; see tests/data/README.md), and fails like a
# crashed simulator for a config no real run measured.
#   replay.sh CSV KERNEL n_clusters cores_per_cluster n_mem shmem_size
#             scheduler num_sched_per_core l1_sets l2_sets
# Prints "gpu_tot_ipc = X" and "gpu_tot_sim_cycle = Y" as the simulator does.
csv=$1
kernel=$2
shift 2
key="$kernel,$1,$2,$3,$4,$5,$6,$7,$8"
awk -F, -v key="$key" '
    NR == 1 { next }
    $1 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 "," $10 == key {
        print "gpu_tot_ipc = " $11
        print "gpu_tot_sim_cycle = " $12
        found = 1
        exit
    }
    END { if (!found) { print "replay: no real run of " key > "/dev/stderr"; exit 3 } }
' "$csv"
