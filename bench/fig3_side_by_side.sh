#!/usr/bin/env bash
# The noisy Fig. 3 sweep, moelab vs the NumPy baseline, in one run on the same CPU and the same
# work: d = 900, k = 12, Toeplitz 0.5, sigma2 = 1, balanced allocation, n in N_LIST, TRIALS trials
# per n, min-norm dense + per-expert fits, exact excess risks. Both programs use the same beta*
# (NumPy's default_rng(0) / sqrt(d), handed to moelab as [model.beta] kind = "given"), so their
# means must agree within their standard errors; the trial data are independent draws.
#   bench/fig3_side_by_side.sh [TRIALS] [THREADS]
set -euo pipefail
trials=${1:-20}
threads=${2:-$(nproc)}
n_list=${N_LIST:-"600 900 1200"}
exe=${MOELAB:-build/bin/moelab}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Fig. 3 scenario with the bench's n list and NumPy's beta*.
"$py" - "$tmp/fig3.toml" "$n_list" <<'PY'
import re, sys
import numpy as np
out, n_list = sys.argv[1], [int(v) for v in sys.argv[2].split()]
text = open("scenarios/noisy_fig3.toml").read()
text = re.sub(r'(?m)^"params\.n" = .*$', '"params.n" = [' + ", ".join(map(str, n_list)) + "]", text)
beta = np.random.default_rng(0).standard_normal(900) / np.sqrt(900)
given = '[model.beta]\nkind = "given"\nvalues = [' + ", ".join(repr(float(b)) for b in beta) + "]\n"
text = re.sub(r'(?ms)^\[model\.beta\]\n.*?(?=^\[)', given + "\n", text)
open(out, "w").write(text)
PY

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, threads $threads," \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Both programs use OpenBLAS; its kernels follow OPENBLAS_CORETYPE when set (this project's machine
# sets Haswell: AVX2 kernels on an AVX-512 CPU; bench/RESULTS.md gives both).
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset (OpenBLAS chooses)}"
t0=$(date +%s.%N)
# /usr/bin/time: the process's CPU seconds too (user + sys), a check on the wall time of a shared machine.
/usr/bin/time -f "%U %S" -o "$tmp/moelab.time" "$exe" run "$tmp/fig3.toml" --trials "$trials" --threads "$threads" \
  -o "$tmp/fig3.csv" >/dev/null
t1=$(date +%s.%N)
moelab_s=$(echo "$t1 - $t0" | bc -l)
moelab_cpu=$(awk '{print $1 + $2}' "$tmp/moelab.time")
echo "== moelab $("$exe" --version 2>/dev/null | head -1)"
grep -v '^#' "$tmp/fig3.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  { printf "n %s %s_excess_mean %.6g %s_excess_se %.3g\n", $c["n"], $c["estimator"], $c["excess_mean"], $c["estimator"], $c["excess_std_error"] }'
# Two NumPy baselines: lstsq (SVD) for every fit, as a naive user writes it, and what a careful user
# writes, the normal equations of the smaller Gram matrix by Cholesky (scipy cho_solve) with lstsq only
# where that Gram is ill-conditioned. Both must give the same excess risks (the same draws).
for solver in lstsq cholesky; do
  echo "== NumPy ($solver)"
  out=$("$py" bench/numpy_fig3.py --n $n_list --trials "$trials" --threads "$threads" --solver "$solver")
  echo "$out"
  eval "numpy_${solver}_s=$(echo "$out" | awk '/^numpy_seconds/ {print $2}')"
  eval "numpy_${solver}_cpu=$(echo "$out" | awk '/^numpy_cpu_seconds/ {print $2}')"
done
printf "moelab_seconds %.2f (whole process: parse, model, sweep, CSV)\n" "$moelab_s"
printf "numpy_lstsq_seconds %.2f numpy_cholesky_seconds %.2f (trial loops only)\n" "$numpy_lstsq_s" "$numpy_cholesky_s"
printf "speedup vs NumPy lstsq %.2f, vs NumPy Cholesky (the careful baseline) %.2f\n" \
  "$(echo "$numpy_lstsq_s / $moelab_s" | bc -l)" "$(echo "$numpy_cholesky_s / $moelab_s" | bc -l)"
printf "moelab_cpu_seconds %.2f numpy_lstsq_cpu_seconds %.2f numpy_cholesky_cpu_seconds %.2f (user + sys; NumPy: trial loops)\nload after: %s\n" \
  "$moelab_cpu" "$numpy_lstsq_cpu" "$numpy_cholesky_cpu" "$(cut -d' ' -f1-3 /proc/loadavg)"
