#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dmx at simulated scale (docs/scale.md): the seeds' experiments in SimGrid's SMPI, one
# subcommand per module. Builds the dmx program with smpicc into build-smpi/ (SIM_BUILD), runs
# one point (one smpirun) at a time, each killed after SIM_TIMEOUT seconds (default 900), and
# appends its JSON lines, tagged with "platform" and the simulator's wall time "sim_wall_s", to
# $SIM_OUT/<module>.jsonl (default SIM_OUT=bench/simgrid/results); then prints the module's
# table (scripts/simulate_table.py) from that file and draws its charts into
# $SIM_OUT/<module>.svg (scripts/simulate_plot.py). Not part of CI.
#
#   scripts/simulate.sh gemm [N]       SUMMA over b, HSUMMA over G, Cannon, AUTO (seed 003)
#   scripts/simulate.sh exchange       NBX, PEX, PCX, RSX, AUTO over P, stencils (seed 004)
#   scripts/simulate.sh coll           every algorithm, AUTO, MPI's own per cell (seed 002)
#   scripts/simulate.sh redist         block-cyclic and grid changes, dmx vs MPI_Alltoallv (seed 000)
#   scripts/simulate.sh calibrate      the collectives' model factors measured in the simulator
#   scripts/simulate.sh table MODULE   the table and charts again from $SIM_OUT/MODULE.jsonl
#   scripts/simulate.sh smoke          the smallest point of each module (a few seconds each)
#   scripts/simulate.sh platforms      loads each platform file with a 16-rank run
# Environment: SIM_PLATFORMS, SIM_NP (lists), SIM_TIMEOUT, SIM_OUT, SIM_BUILD (the simulation
# build's directory, default build-smpi: a second one lets a changed build run beside a
# simulation still using the first); per module below. SIM_MODEL
# replaces the platform's collectives model file (calibrate uses it), SIM_COLL_MOD the coll
# module's output name (default coll), SIM_SETUP the setup broadcast's --cfg (default
# --cfg=smpi/bcast:binomial_tree; empty: Open MPI's selection, see sim).
#
# Platforms (bench/simgrid/<name>.xml, each with its model files <name>.model for the
# collectives (DMX_MODEL) and <name>.gemm for the multiply (DMX_GEMM_MODEL), derived from the
# platform's figures; every file says where its figures come from):
#   latency, bandwidth   1024 single-core hosts behind one switch (the first sweep, docs/gemm.md)
#   bgp_2048, bgp_16384  BlueGene/P-like 3D torus partitions, 4-core nodes (seed 003's machine)
#   graphene_gige, graphene_ib   Grid'5000 Graphene-like, 144 4-core nodes (seed 003's cluster)
#   twolevel             64 nodes of 64 cores, shared memory inside, fat tree between
# Ranks fill the hosts in order (ranks 0-3 on the first BG/P node).
#
# Deterministic: the build (-DDMX_SIM_FLOPS) charges each local multiply's flops to the simulated
# host instead of running it, and the rest of the code takes no simulated time
# (smpi/simulate-computation:no); SMPI's bandwidth and latency factors are 1, so the platform's
# figures are what the model files state. DMX_SIM_WAIT: dmx blocks where it would poll (bounded
# waits, agreements, the engines' test loops, AUTO's exchange agreement) and NBX's consensus is a
# dissemination of point-to-point messages (SMPI 3.32's nonblocking collectives post p^2 or
# root-linear messages; see src/exchange/exchange_nbx.c). Polls that remain (NBX's and PCX's
# probes, the metadata collectives' tests) cost smpi/test = smpi/iprobe = 1 us of simulated time
# each, not grown (smpi/grow-injected-times:no). MPI's own collectives: SMPI's copy of Open MPI's
# selection (smpi/coll-selector:ompi). SMPI 3.32 has no MPI_Improbe / MPI_Mrecv: the build probes
# and then receives from the probed source (src/exchange/exchange_result.c). SMPI shares one
# MPI_COMM_WORLD object (and its attributes) among the ranks, so benchmarks run dmx on a
# duplicate, and a rank may abort in MPI_Finalize after the results are out (ignored here).
# Message path only (DMX_SHM=0); OpenMP off; malloc not overridden (SMPI_NO_OVERRIDE_MALLOC:
# dmx has struct members named free).
#
# Limit: SMPI privatises each rank's globals by mapping a copy of the program, about ten
# memory mappings per rank; vm.max_map_count (65530 by default) stops a run near 6,000 ranks
# (the 16,384-rank BG/P partition needs it raised, as root: sysctl vm.max_map_count=262144;
# sim refuses a point whose ranks need more than the setting allows). Memory: 0.5-1.2 MB per
# simulated rank beside the data (20 GB for the exchange at 16,384 ranks).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${SIM_OUT:-bench/simgrid/results}
SIM_DIR=bench/simgrid
SBUILD=${SIM_BUILD:-build-smpi}

# host prefix, host count, cores per host
plat_hosts() {
    case $1 in
    latency | bandwidth) echo "h 1024 1" ;;
    bgp_2048) echo "n 512 4" ;;
    bgp_16384) echo "n 4096 4" ;;
    graphene_gige | graphene_ib) echo "n 144 4" ;;
    twolevel) echo "n 64 64" ;;
    *) echo "simulate: unknown platform $1" >&2 && return 1 ;;
    esac
}

build() {
    command -v smpicc >/dev/null || { echo "simulate: smpicc not found (apt-get install libsimgrid-dev)"; exit 1; }
    cmake -S . -B "$SBUILD" -DCMAKE_C_COMPILER=smpicc -DCMAKE_BUILD_TYPE=Release \
        -DDMX_WITH_SCALAPACK=OFF -DDMX_BUILD_TESTS=OFF -DDMX_WITH_OPENMP=OFF \
        -DCMAKE_C_FLAGS="-DSMPI_NO_OVERRIDE_MALLOC -DDMX_SIM_FLOPS -DDMX_SIM_WAIT" >/dev/null
    cmake --build "$SBUILD" -j2 --target dmx_tool >/dev/null
    mkdir -p "$OUT"
}

TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
hostfile() { # platform -> path of a hostfile, a host's name once per core
    local f=$TMPD/hosts_$1
    if [ ! -f "$f" ]; then
        read -r pre n c <<<"$(plat_hosts "$1")"
        awk -v p="$pre" -v n="$n" -v c="$c" 'BEGIN{for(i=0;i<n;i++)for(j=0;j<c;j++)print p i}' >"$f"
    fi
    echo "$f"
}

# sim MODULE PLATFORM NP FILTER [dmx arguments...]: one point; its JSON lines (those matching
# FILTER) go to stdout and $OUT/MODULE.jsonl with platform, sim_wall_s and the extra fields of
# $SIM_TAG (e.g. '"point":"summa:64",').
sim() {
    local mod=$1 plat=$2 np=$3 filter=$4
    shift 4
    local hf t0 t1 rc=0 log=$TMPD/out base=$plat
    case $plat in latency | bandwidth) base=cluster_$plat ;; esac
    # Where MPI's blocking broadcast is not what is measured, it only serves setup
    # (MPI_Comm_dup, agreements): a binomial tree there, unless the caller sets SIM_SETUP (empty:
    # Open MPI's selection, as coll does for the broadcast's own cells). The selection's choice
    # for one int costs the simulator 5.3 s at 512 ranks (0.3 s binomial), and an MPI_Comm_dup
    # 45 s at 1,024 (0.6 s; bench/simgrid/probe_setup.c): the fixed cost of every large point
    # (docs/scale.md, "Where a 2,048-rank point's simulator time goes").
    local setup=${SIM_SETUP---cfg=smpi/bcast:binomial_tree}
    # SMPI maps a copy of the program per rank, about ten mappings each (see Limit above)
    local maps
    maps=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
    if [ "$maps" -gt 0 ] && [ "$maps" -lt $((12 * np)) ]; then
        echo "simulate: $np ranks need vm.max_map_count >= $((12 * np)) (it is $maps); as root:" \
            "sysctl vm.max_map_count=$((16 * np))" >&2
        return 1
    fi
    hf=$(hostfile "$plat")
    t0=$(date +%s.%N)
    (DMX_SHM=0 OPENBLAS_NUM_THREADS=1 DMX_MODEL="${SIM_MODEL:-$SIM_DIR/$base.model}" \
        DMX_SIM_PANELS="${SIM_PANELS_RUN:-}" \
        DMX_GEMM_MODEL="$SIM_DIR/$base.gemm" \
        timeout -s KILL "${SIM_TIMEOUT:-900}" smpirun -np "$np" -platform "$SIM_DIR/$base.xml" \
        -hostfile "$hf" --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/lat-factor:0:1 --cfg=smpi/test:1e-6 --cfg=smpi/iprobe:1e-6 \
        --cfg=smpi/grow-injected-times:no --cfg=smpi/coll-selector:ompi $setup ${SIM_CFG:-} \
        --log=root.thres:critical \
        "$SBUILD"/tools/dmx "$@" >"$log" 2>"$log.err") || rc=$?
    t1=$(date +%s.%N)
    local wall
    wall=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
    if ! grep -q "$filter" "$log"; then
        echo "{\"platform\":\"$plat\",\"np\":$np,${SIM_TAG:-}\"failed\":\"rc $rc: $*\",\"sim_wall_s\":$wall}" |
            tee -a "$OUT/$mod.jsonl"
        tail -3 "$log.err" >&2
        return 0
    fi
    grep "$filter" "$log" | sed "s/^{/{\"platform\":\"$plat\",${SIM_TAG:-}\"sim_wall_s\":$wall,/" |
        tee -a "$OUT/$mod.jsonl"
    # Lines came, then the run ended badly: the lines are kept (a rank may abort in
    # MPI_Finalize after the results are out), but say so, since a cell may be missing.
    if [ "$rc" -ne 0 ]; then
        echo "simulate: rc $rc after $(grep -c "$filter" "$log") result lines ($*):" >&2
        tail -3 "$log.err" >&2
        echo "$mod $plat $np: rc $rc" >>"$TMPD/bad_exits"
    fi
    return 0
}

table() { python3 scripts/simulate_table.py "$1" "$OUT/$1.jsonl" "$OUT/$1.svg"; }

# ---- gemm: seed 003 (HSUMMA). A point is summa:b, hsumma:G:b (outer panel B = the widest
# panel, N/sqrt(P)), hsumma:G:b:B, cannon, auto (nothing forced) or auto:data (the data's grid
# forced, the rest chosen; without it the model charges other grids the moves); forced points
# use the data's square grid. SIM_POINTS default: SUMMA and HSUMMA at every power-of-two G.
# SIM_PANELS=K: SUMMA and HSUMMA run only their first K (outer) panels, Cannon its first K of
# q steps, AUTO whichever it chose, the same messages as the whole run's first K (the simulation
# build's DMX_SIM_PANELS); the table extrapolates the time and says so: the full count over K
# times the time, or, where the same point ran with two K, a line through the two (the first
# panels cost more than the later ones: docs/scale.md).
# SIM_CFG default: smpi/send-is-detached-thresh:0 and surf/precision:1e-6. No detached sends (as
# redist): Cannon's shifts and the panels' pieces are below SMPI's 64 KiB threshold, and each
# detached send's completion walks a list of every detached send in flight (Cannon at 4,096
# ranks: 115 s with them, 74 s without, the simulated time within 0.01 %; SUMMA and HSUMMA at
# 256 ranks 0.7-2.3 % slower).
# Events within 1 us of simulated time are taken together (surf/precision:1e-6, SimGrid's
# default 1e-9): each transfer's start or end re-solves the bandwidth sharing of every transfer
# on the links it shares: Cannon at 16,384 ranks reached its steps after about 50 minutes of
# simulator time with the default, after 5 with this; whole runs at 4,096 ranks moved by
# 0.01-0.03 % (docs/scale.md).
gemm() {
    local N=${1:-2048} plats=${SIM_PLATFORMS:-"latency bandwidth"} nps=${SIM_NP:-"256 1024"}
    for plat in $plats; do
        for np in $nps; do
            # bench gemm's grid: pr the largest divisor of np with pr^2 <= np, pc = np / pr; the
            # widest outer panel is a piece along the longer side (N / sqrt(P) when square)
            local pr=1 r=1
            while [ $(((r + 1) * (r + 1))) -le "$np" ]; do
                r=$((r + 1))
                [ $((np % r)) -eq 0 ] && pr=$r
            done
            local pc=$((np / pr))
            local cap=$(((N + pc - 1) / pc)) pts=${SIM_POINTS:-} cores nodes
            # the model column's nodes: ranks fill the hosts in order, cores of them per host
            read -r _ _ cores <<<"$(plat_hosts "$plat")"
            nodes=$(((np + cores - 1) / cores))
            if [ -z "$pts" ]; then
                pts="summa:64"
                for ((g = 2; g < np; g *= 2)); do pts="$pts hsumma:$g:64"; done
                pts="$pts cannon auto"
            fi
            echo "# gemm $plat np $np n $N (widest panel $cap)" >&2
            for pt in $pts; do
                IFS=: read -r alg x y z <<<"$pt"
                local a=(bench gemm --n "$N" --reps 1 --no-warmup --no-peak --nodes "$nodes" --only)
                local tag="\"point\":\"$pt\"," run=""
                case $alg in
                summa) a+=(summa --panel "$x") ;;
                hsumma) a+=(hsumma --groups "$x" --panel "$y" --outer "${z:-$cap}") ;;
                auto) a+=(auto) && [ "$x" = data ] && a+=(--data-grid) ;;
                *) a+=("$alg") ;;
                esac
                # SIM_PANELS=K: the first K panels (Cannon: steps) run; the table counts the
                # whole run's from the algorithm, grid and widths the point reports
                # (simulate_table.py, panels_full), pc * ceil(ceil(N / pc) / width) for SUMMA and
                # HSUMMA. That is the library's count (make_panels, make_schedule: k cut at both
                # splits) only where N splits evenly over pr and pc, so other N are refused.
                if [ -n "${SIM_PANELS:-}" ]; then
                    if [ $((N % pr)) -ne 0 ] || [ $((N % pc)) -ne 0 ]; then
                        echo "simulate: SIM_PANELS needs N ($N) divisible by $pr and $pc" >&2
                        return 1
                    fi
                    run=$SIM_PANELS
                    tag="$tag\"panels_run\":$run,"
                fi
                SIM_CFG=${SIM_CFG:-"--cfg=smpi/send-is-detached-thresh:0 --cfg=surf/precision:1e-6"} \
                    SIM_PANELS_RUN=$run \
                    SIM_TAG="$tag" sim gemm "$plat" "$np" '"gemm_sim"' "${a[@]}"
            done
        done
    done
}

# ---- exchange: seed 004 (NBX). One point = one P, k, pattern and protocol (SIM_PROTOCOLS,
# default all four and AUTO). SIM_K (default "6 26", stencils), SIM_PATTERN (stencil or
# random), SIM_BYTES (default 8),
# SIM_O: LogGP's o, the per-message send/receive overhead (default 1e-6 s; SMPI's smpi/os,
# smpi/ois, smpi/or), without which SMPI charges nothing per message and Theta(P) metadata
# would look free.
exchange() {
    local plats=${SIM_PLATFORMS:-bgp_2048} nps=${SIM_NP:-"64 128 256 512 1024"} o=${SIM_O:-1e-6}
    local pat=${SIM_PATTERN:-stencil} flag=""
    [ "$pat" = stencil ] && flag=--stencil
    for plat in $plats; do
        for k in ${SIM_K:-6 26}; do
            for np in $nps; do
                for pr in ${SIM_PROTOCOLS:-nbx pex pcx rsx auto}; do
                    echo "# exchange $plat np $np k $k $pat o $o $pr" >&2
                    SIM_CFG="--cfg=smpi/os:0:$o --cfg=smpi/ois:0:$o --cfg=smpi/or:0:$o" \
                        SIM_TAG="\"o\":$o," sim exchange "$plat" "$np" '"exchange"' bench exchange \
                        --json $flag --k "$k" --bytes "${SIM_BYTES:-8}" --reps 1 --warmup 1 --protocols "$pr"
                done
            done
        done
    done
}

# ---- coll: seed 002. One point = one P and collective: every algorithm, AUTO (with the
# platform's model) and MPI's (SMPI's) own call (SIM_ALGS: only these, comma-separated, as
# bench coll --alg takes them, dmx for all of dmx's own; the broadcast's in two runs, below),
# sizes 8 B x 8^i up to SIM_MAX (default 256 KiB;
# SIM_MAX_BLOCK, default 4 KiB, per block for allgather and alltoall: their buffers are real, P
# times that per rank; SIM_MAX_ALLTOALL, default SIM_MAX_BLOCK, for alltoall alone, whose
# 4 KiB cell did not finish in 400 s at P = 128).
coll() {
    local plats=${SIM_PLATFORMS:-"graphene_ib twolevel"} nps=${SIM_NP:-"64 256"}
    for plat in $plats; do
        for np in $nps; do
            for c in ${SIM_COLLS:-bcast allreduce allgather alltoall}; do
                local max=${SIM_MAX:-262144}
                case $c in allgather) max=${SIM_MAX_BLOCK:-4096} ;; esac
                case $c in alltoall) max=${SIM_MAX_ALLTOALL:-${SIM_MAX_BLOCK:-4096}} ;; esac
                # The broadcast's cells of MPI's own broadcast and of AUTO (which picks it)
                # need Open MPI's selection for MPI_Bcast, so setup uses it too (SIM_SETUP
                # empty); that setup costs the simulator tens of seconds per collective at
                # 1,024 ranks, so dmx's own broadcasts, which never call MPI_Bcast in a cell,
                # run apart with sim's binomial setup (docs/scale.md, collectives at 1,024).
                # The other collectives' cells, MPI's and AUTO's among them, come out the same
                # with the binomial setup broadcast (docs/scale.md, collectives at 512).
                local parts=(all)
                if [ -n "${SIM_ALGS:-}" ]; then
                    parts=("$SIM_ALGS")
                elif [ "$c" = bcast ]; then
                    parts=(dmx "mpi,auto")
                fi
                for algs in "${parts[@]}"; do
                    echo "# coll $plat np $np $c $algs" >&2
                    local pick=()
                    [ "$algs" = all ] || pick=(--alg "$algs")
                    (
                        case ,$algs, in *,mpi,* | *,auto,* | ,all,)
                            if [ "$c" = bcast ]; then SIM_SETUP=; fi ;;
                        esac
                        SIM_TAG="\"sample\":${SIM_SAMPLE:-200e-6}," sim "${SIM_COLL_MOD:-coll}" \
                            "$plat" "$np" '"bench":"coll"' bench coll --json --coll "$c" --min 8 \
                            --max "$max" --reps 1 --retries 0 --malloc-default \
                            --sample "${SIM_SAMPLE:-200e-6}" "${pick[@]}"
                    )
                done
            done
        done
    done
}

# ---- calibrate: the collectives' corr.* and mpi.* factors measured in the simulator (what
# dmx calibrate computes, from dmx bench coll's cells): for each platform and P, the coll
# module's cells run with the platform's model file cut at the measured section (the formulas'
# own predictions), into $SIM_OUT/coll_calib.jsonl (skipped where that file already holds the
# platform and P), then scripts/simulate_calibrate.py writes the factors as the section np = P
# of bench/simgrid/<platform>.model below its marker line, keeping the sections of other P (a
# prediction for p uses the section nearest in log2; docs/coll.md).
# SIM_CALIB_CELLS=coll: no simulation; the cells are those of a coll run at that P already in
# $SIM_OUT/coll.jsonl (run with any model file: the dmx algorithms' and MPI's cells do not
# depend on it, only AUTO's), their predictions recomputed with the cut model file by the
# simulated build's dmx model coll (simulate_calibrate.py --repredict). Checked: from the
# P = 64 and 128 check runs' cells this gives exactly the factors of the calibration runs.
# SIM_CALIB_CELLS=exchange: no simulation either; the fastest of NBX, PEX and PCX among the
# exchange module's cells at that P ($SIM_OUT/exchange.jsonl) becomes `exchange = NAME` in the
# section np = P (what dmx calibrate measures on a job of one node; AUTO runs it there).
calibrate() {
    local plats=${SIM_PLATFORMS:-graphene_ib} nps=${SIM_NP:-64}
    for plat in $plats; do
        for np in $nps; do
            local raw=$TMPD/$plat.model
            sed '/^# ---- measured in the simulator/,$d' "$SIM_DIR/$plat.model" >"$raw"
            if [ "${SIM_CALIB_CELLS:-}" = exchange ]; then
                python3 scripts/simulate_calibrate.py --exchange "$OUT/exchange.jsonl" "$plat" "$np" \
                    "$SIM_DIR/$plat.model"
                continue
            fi
            if [ "${SIM_CALIB_CELLS:-}" = coll ]; then
                local base=$plat cores one=$TMPD/one_$plat
                case $plat in latency | bandwidth) base=cluster_$plat ;; esac
                read -r _ _ cores <<<"$(plat_hosts "$plat")"
                head -1 "$(hostfile "$plat")" >"$one"
                python3 scripts/simulate_calibrate.py --repredict "smpirun -np 1 -platform \
                    $SIM_DIR/$base.xml -hostfile $one --log=root.thres:critical $SBUILD/tools/dmx" \
                    "$raw" $(((np + cores - 1) / cores)) "$OUT/coll.jsonl" "$plat" "$np" \
                    "$SIM_DIR/$plat.model"
                echo "# calibrated $SIM_DIR/$plat.model from the coll cells of $plat at np $np" >&2
                continue
            fi
            if ! grep -q "\"platform\":\"$plat\".*\"np\":$np," "$OUT/coll_calib.jsonl" 2>/dev/null; then
                SIM_MODEL=$raw SIM_COLL_MOD=coll_calib SIM_PLATFORMS=$plat SIM_NP=$np coll
            fi
            python3 scripts/simulate_calibrate.py "$OUT/coll_calib.jsonl" "$plat" "$np" \
                "$SIM_DIR/$plat.model"
            echo "# calibrated $SIM_DIR/$plat.model from $plat at np $np" >&2
        done
    done
}

# ---- redist: seed 000 (COSTA), the redistribution scaled out: B (block-cyclic FROM) to A
# (TO), dmx against a hand-written MPI_Alltoallv, n = SIM_N (default 8192). SIM_CASES entries
# "from_mb,from_nb:to_mb,to_nb[:from_grid:to_grid]" (grids PRxPC). Each point also times dmx
# with relabeling (dmx_plan_create_relabeled, node-aware cost: across-node bytes cost
# SIM_NODE_RATIO, default 8, times within-node ones; twolevel: a node's 200 GB/s of memory against
# its 25 GB/s NIC, each shared by the node's ranks) and prints its predicted cost beside, and the same
# call with sigma = identity (the relabeled path's own cost: its gain is identity / exact).
# SIM_REPS runs of each (default 4; the table takes the least; since the simulation build stopped
# polling, the runs of one plan give the same simulated time). No detached sends (SIM_CFG default
# smpi/send-is-detached-thresh:0): SimGrid 3.32 keeps every detached send on one global list
# that each completion walks, which made 256-rank points unaffordable (docs/scale.md).
redist() {
    local plats=${SIM_PLATFORMS:-twolevel} nps=${SIM_NP:-"64 256"} n=${SIM_N:-8192}
    for plat in $plats; do
        for np in $nps; do
            for cs in ${SIM_CASES:-"32,32:128,128"}; do
                IFS=: read -r from to fg tg <<<"$cs"
                local g=()
                [ -n "${fg:-}" ] && g+=(--from-grid "$fg")
                [ -n "${tg:-}" ] && g+=(--to-grid "$tg")
                echo "# redist $plat np $np $cs" >&2
                SIM_CFG=${SIM_CFG:---cfg=smpi/send-is-detached-thresh:0} \
                    SIM_TAG="\"case_sim\":\"$cs\"," sim redist "$plat" "$np" '"bench":"redist"' \
                    bench redist --json --size "$n,$n" --from "$from" --to "$to" "${g[@]}" \
                    --reps "${SIM_REPS:-4}" --warmup 1 --impl dmx,alltoallv --op N --align 0 \
                    --case redist --relabel \
                    --node-ratio "${SIM_NODE_RATIO:-8}"
            done
        done
    done
}

platforms() {
    for plat in latency bandwidth bgp_2048 graphene_gige graphene_ib twolevel; do
        SIM_TAG="\"point\":\"platforms\"," sim platforms "$plat" 16 '"exchange"' bench exchange \
            --json --k 6 --bytes 4096 --reps 1 --warmup 0 --protocols nbx
    done
}

smoke() {
    OUT=$TMPD/smoke
    mkdir -p "$OUT"
    SIM_NP=4 SIM_PLATFORMS=latency SIM_POINTS="summa:64" gemm 256
    SIM_NP=27 SIM_K=6 exchange
    SIM_NP=16 SIM_PLATFORMS=graphene_ib SIM_COLLS=bcast SIM_MAX=64 coll
    SIM_NP=4 SIM_N=256 SIM_CASES="32,32:64,64" redist
    # a run that printed its lines and then ended badly (a teardown error) fails the smoke too
    if grep -q failed "$OUT"/*.jsonl || [ -s "$TMPD/bad_exits" ]; then
        echo "simulate smoke: FAILED"
        exit 1
    fi
    echo "simulate smoke: ok"
}

cmd=${1:-gemm}
shift || true
case $cmd in [0-9]*) set -- "$cmd" "$@" && cmd=gemm ;; esac # the old form: simulate.sh [N]
case $cmd in
gemm | exchange | coll | redist)
    build
    "$cmd" "$@"
    table "$cmd"
    ;;
calibrate)
    build
    calibrate
    ;;
table) table "$1" ;;
smoke | platforms)
    build
    "$cmd"
    ;;
*)
    sed -n '2,20p' "$0"
    exit 2
    ;;
esac
