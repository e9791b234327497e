#!/usr/bin/env bash
# The noisy Fig. 3 sweep, moelab vs the NumPy baseline, in one run on the same CPU and the same
# work: d = 900, k = 12, Toeplitz 0.5, sigma2 = 1, balanced allocation, n in N_LIST, TRIALS trials
# per n, min-norm dense + per-expert fits, exact excess risks.
#   bench/fig3_side_by_side.sh [TRIALS] [THREADS]
set -euo pipefail
trials=${1:-20}
threads=${2:-$(nproc)}
n_list="600 900 1200"
exe=${MOELAB:-build/bin/moelab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e "s/^\"params.n\" = .*/\"params.n\" = [${n_list// /, }]/" scenarios/noisy_fig3.toml > "$tmp/fig3.toml"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), threads $threads"
python3 -c "import numpy; numpy.show_config()" 2>/dev/null | grep -A3 -i "blas_opt_info\|blas_info" | head -4 || true
t0=$(date +%s.%N)
"$exe" run "$tmp/fig3.toml" --trials "$trials" --threads "$threads" -o "$tmp/fig3.csv" >/dev/null
t1=$(date +%s.%N)
moelab_s=$(echo "$t1 - $t0" | bc -l)
numpy_out=$(/usr/bin/python3 bench/numpy_fig3.py --n $n_list --trials "$trials" --threads "$threads")
echo "$numpy_out" | tail -5
numpy_s=$(echo "$numpy_out" | awk '/^numpy_seconds/ {print $2}')
printf "moelab_seconds %.2f\nnumpy_seconds %.2f\nspeedup %.2f\n" "$moelab_s" "$numpy_s" "$(echo "$numpy_s / $moelab_s" | bc -l)"
