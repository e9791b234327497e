#!/usr/bin/env bash
# One "epoch" (STEPS optimizer steps of batch 2048) of the granularity paper's Fig. 2 setting
# (teacher 16e8a, student 8e4a, d = 256, kw = 256, k'w' = 320, float32, AdamW + cosine), moelab
# (build/bin/bench_moe_epoch: active experts only, hand-written backward) vs PyTorch (Debian's
# python3-torch, bench/moe_pytorch_epoch.py) written as the public script does (all experts, then
# gathered) and as a careful user would (active experts only), in one run on the same CPU at the same
# thread counts, plus the fraction of the measured float GEMM peak reached (torch.mm = OpenBLAS sgemm
# here, the kernel both programs' expert GEMMs run in). The machine may be shared: each program's
# CPU seconds (user + system, /usr/bin/time) are printed next to its wall time, and the load average
# before and after.
#   bench/moe_side_by_side.sh [STEPS] [THREADS...]      (default: 20 steps, threads 1 and 2)
set -euo pipefail
steps=${1:-20}
shift || true
threads_list=${*:-1 2}
exe=${BENCH_MOE:-build/bin/bench_moe_epoch}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg); torch $($py -c 'import torch; print(torch.__version__)')"
for t in $threads_list; do
  echo "== moelab: $exe --threads $t --steps $steps"
  OMP_NUM_THREADS=$t /usr/bin/time -f "cpu_seconds who moelab threads $t user %U system %S wall %e" -a -o "$tmp/all.txt" \
    "$exe" --threads "$t" --steps "$steps" | tee -a "$tmp/all.txt"
  tail -1 "$tmp/all.txt"
  echo "== PyTorch: bench/moe_pytorch_epoch.py --threads $t --steps $steps"
  OMP_NUM_THREADS=$t /usr/bin/time -f "cpu_seconds who pytorch threads $t user %U system %S wall %e" -a -o "$tmp/all.txt" \
    "$py" bench/moe_pytorch_epoch.py --threads "$t" --steps "$steps" | tee -a "$tmp/all.txt"
  tail -1 "$tmp/all.txt"
done
echo "== side by side (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" - "$tmp/all.txt" <<'PY'
import sys

rows, peak_m, peak_t = [], {}, {}
for line in open(sys.argv[1]):
    tok = line.split()
    if not tok:
        continue
    kv = {k: v for k, v in zip(tok[1::2], tok[2::2])}
    if tok[0] == "moelab":
        rows.append(("moelab", "active", int(kv["threads"]), float(kv["step_ms"]), float(kv["useful_gflops"])))
    elif tok[0] == "pytorch":
        rows.append(("pytorch", kv["variant"], int(kv["threads"]), float(kv["step_ms"]), float(kv["useful_gflops"])))
    elif tok[0] == "moelab_gemm_peak":
        peak_m[len(peak_m)] = float(kv["gflops_one_thread"])
    elif tok[0] == "pytorch_gemm_peak":
        peak_t[int(kv["threads"])] = float(kv["gflops"])
eigen_peak = max(peak_m.values())
# The reference peak: OpenBLAS sgemm 2000^3 as torch.mm measured it at that thread count (moelab's
# expert GEMMs are OpenBLAS sgemm calls, single-threaded each, experts spread over threads).
print(f"{'who':8s} {'experts':8s} {'threads':>7s} {'ms/step':>9s} {'useful GFLOP/s':>15s} {'% of peak':>10s} {'moelab speedup':>15s}")
for who, var, t, ms, gf in rows:
    ml = [r for r in rows if r[0] == "moelab" and r[2] == t][0]
    peak = peak_t.get(t, max(peak_t.values()) * t)
    print(f"{who:8s} {var:8s} {t:7d} {ms:9.2f} {gf:15.2f} {100 * gf / peak:9.1f}% {ms / ml[3]:14.2f}x")
print(f"peak (the % column): torch.mm = OpenBLAS sgemm 2000^3 at that thread count; Eigen float GEMM 2000^3 {eigen_peak:.1f} GFLOP/s on one thread; "
      + ", ".join(f"torch.mm float 2000^3 {v:.1f} GFLOP/s on {t} thread(s)" for t, v in sorted(peak_t.items())))
PY
