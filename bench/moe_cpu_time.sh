#!/usr/bin/env bash
# CPU time per training step of the granularity Fig. 2 setting (the work of bench/moe_side_by_side.sh),
# for a machine shared with other jobs, where wall times measure the other jobs: each program runs
# twice, with S1 and S2 timed steps (same warm-up), and the difference of its process CPU time
# (user + system, /usr/bin/time) over S2 - S1 steps is its CPU time per step; set-up, the GEMM-peak
# measurement and Python's start cancel in the difference. One thread (OMP_NUM_THREADS=1) by default:
# then CPU time per step is what an idle core's wall time per step would be, up to the cache and
# memory-bandwidth share the other jobs take (and a co-scheduled hyperthread's: the minimum over
# REPEATS pairs is reported, the pair least disturbed).
#   bench/moe_cpu_time.sh [S1] [S2] [THREADS] [REPEATS]       (default 5 25 1 3)
set -euo pipefail
s1=${1:-5}
s2=${2:-25}
t=${3:-1}
reps=${4:-3}
exe=${BENCH_MOE:-build/bin/bench_moe_epoch}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() {  # cpu seconds of a command
  OMP_NUM_THREADS=$t /usr/bin/time -f "%U %S" -o "$tmp/t" "$@" > "$tmp/out"
  awk '{print $1 + $2}' "$tmp/t"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); threads $t; steps $s1 and $s2"
declare -A per
for who in moelab pytorch_active pytorch_all; do
  case $who in
    moelab) run() { cpu "$exe" --threads "$t" --steps "$1"; } ;;
    pytorch_active) run() { cpu "$py" bench/moe_pytorch_epoch.py --threads "$t" --steps "$1" --variant active; } ;;
    pytorch_all) run() { cpu "$py" bench/moe_pytorch_epoch.py --threads "$t" --steps "$1" --variant all; } ;;
  esac
  all=""
  for r in $(seq "$reps"); do
    c1=$(run "$s1")
    c2=$(run "$s2")
    one=$(awk -v a="$c1" -v b="$c2" -v n=$((s2 - s1)) 'BEGIN { printf "%.2f", 1e3 * (b - a) / n }')
    echo "$who repeat $r: cpu seconds $c1 ($s1 steps), $c2 ($s2 steps): $one ms of CPU per step"
    all="$all $one"
  done
  per[$who]=$(echo $all | tr ' ' '\n' | sort -g | head -1)
  echo "$who: minimum over $reps repeats: ${per[$who]} ms of CPU per step (all:$all)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v m="${per[moelab]}" -v a="${per[pytorch_active]}" -v l="${per[pytorch_all]}" 'BEGIN {
  printf "moelab speedup in CPU time per step: %.2fx PyTorch active-only, %.2fx PyTorch all-experts (2.59 GFLOP per step: moelab %.1f GFLOP per CPU second)\n", a / m, l / m, 2.59e3 / m }'
