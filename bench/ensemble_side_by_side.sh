#!/usr/bin/env bash
# Many runs of the granularity Fig. 2 setting at once: moelab's ensemble (build/bin/bench_moe_ensemble,
# moe::Ensemble<float>: active experts only) against the same runs batched in PyTorch
# (bench/torch_ensemble.py: stacked per shape, all experts gated), in one run on the same machine, on
# the same dump (same configurations and initial parameters). First the cross-check on moelab's own
# step-0 batch (one step, its own dump: the step-0 loss and the first update do not depend on the
# cosine's length), then both trainings, then one table: seconds per step (wall and process CPU),
# useful GFLOP/s (moelab's active-expert flop count for both, wall time), the ratios, and each run's final normalized test MSE in both.
# Agreement rule for the test errors (the inputs differ: Philox vs torch's generator): sigma = the
# pooled standard deviation of ln nMSE across seeds at the run's learning rate (within each
# (pair, lr) cell, both programs); a run
# agrees when |ln(torch / moelab)| <= 3 sqrt(2) sigma (3 standard deviations of the difference of two
# runs); the mean ln ratio over all runs is printed with its standard error (a systematic offset).
# The machine may be shared: CPU seconds of each program and the load average before and after.
#   bench/ensemble_side_by_side.sh [--device cpu|cuda] [--steps S] [--pairs 2:2,2:4,4:2,4:4]
#                                  [--lrs 1e-2,1e-3] [--seeds 2] [--d 64] [--batch 256] [--threads 1]
set -euo pipefail
device=cpu steps=200 pairs=2:2,2:4,4:2,4:4 lrs=1e-2,1e-3 seeds=2 d=64 batch=256 threads=1 warmup=2
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=$2 ;; --steps) steps=$2 ;; --pairs) pairs=$2 ;; --lrs) lrs=$2 ;; --seeds) seeds=$2 ;;
    --d) d=$2 ;; --batch) batch=$2 ;; --threads) threads=$2 ;;
    *) echo "usage: $0 [--device cpu|cuda] [--steps S] [--pairs P] [--lrs L] [--seeds N] [--d D] [--batch B] [--threads T]" >&2; exit 2 ;;
  esac
  shift 2
done
exe=${BENCH_MOE_ENSEMBLE:-build/bin/bench_moe_ensemble}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/check" "$tmp/run"
common=(--d "$d" --batch "$batch" --pairs "$pairs" --lrs "$lrs" --seeds "$seeds" --threads "$threads")
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; device $device;" \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg); torch $($py -c 'import torch; print(torch.__version__)')"

echo "== check: one step on moelab's batch (bench_moe_ensemble --dump-batch, torch_ensemble.py --check --device $device)"
"$exe" "${common[@]}" --steps 1 --warmup 0 --device "$device" --dump "$tmp/check" --dump-batch > /dev/null
$py bench/torch_ensemble.py --dump "$tmp/check" --check --device "$device" --threads "$threads" || echo "CHECK FAILED"

echo "== moelab: $exe ${common[*]} --steps $steps --warmup $warmup --device $device --dump DIR"
OMP_NUM_THREADS=$threads /usr/bin/time -f "cpu_seconds moelab user %U system %S wall %e" -o "$tmp/time_moelab" \
  "$exe" "${common[@]}" --steps "$steps" --warmup "$warmup" --device "$device" --dump "$tmp/run" | tee "$tmp/moelab.txt" ||
  echo "(moelab has no result on $device)"
cat "$tmp/time_moelab"
echo "== PyTorch: bench/torch_ensemble.py --dump DIR --device $device --steps $steps --warmup $warmup --threads $threads"
OMP_NUM_THREADS=$threads /usr/bin/time -f "cpu_seconds pytorch user %U system %S wall %e" -o "$tmp/time_torch" \
  $py bench/torch_ensemble.py --dump "$tmp/run" --device "$device" --steps "$steps" --warmup "$warmup" --threads "$threads" | tee "$tmp/torch.txt"
cat "$tmp/time_torch"
echo "== side by side (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
$py - "$tmp" <<'PY'
import csv, math, os, sys

tmp = sys.argv[1]
def line(name):
    for l in open(os.path.join(tmp, name)):
        t = l.split()
        if t and t[0].endswith("_ensemble"):
            return {k: v for k, v in zip(t[1::2], t[2::2])}
    return None
def tsv(name):
    p = os.path.join(tmp, "run", name)
    return list(csv.DictReader(open(p), delimiter="\t")) if os.path.exists(p) else []
m, t = line("moelab.txt"), line("torch.txt")
print(f"{'who':8s} {'runs':>5s} {'steps':>6s} {'s/step':>10s} {'CPU s/step':>11s} {'useful GFLOP/s':>15s} {'time vs moelab':>15s} {'CPU vs moelab':>14s}")
for who, r in (("moelab", m), ("pytorch", t)):
    if r:
        ratio = lambda key: f"{float(r[key]) / float(m[key]):.2f}x" if m else "n/a"
        print(f"{who:8s} {r['runs']:>5s} {r['steps']:>6s} {float(r['s_per_step']):10.4g} {float(r['cpu_s_per_step']):11.4g} "
              f"{float(r['useful_gflops']):15.2f} {ratio('s_per_step'):>15s} {ratio('cpu_s_per_step'):>14s}")
    else:
        print(f"{who:8s} no result")
man = {int(r["run"]): r for r in tsv("manifest.tsv")}
nm = {int(r["run"]): float(r["test_nmse"]) for r in tsv("moelab_final.tsv")}
nt = {int(r["run"]): float(r["test_nmse"]) for r in tsv("torch_final.tsv")}
if not nm or not nt:
    sys.exit("(final test errors of one program missing: no agreement table)")
# Pooled variance of ln nMSE across seeds, per learning rate (the spread differs by rate), over the
# (pair, lr) cells of both programs.
cells = {}
for r, row in man.items():
    cells.setdefault((row["teacher_m"], row["teacher_k"], row["student_m"], row["student_k"], row["lr"]), []).append(r)
pool = {}  # lr -> [sum of squares, dof]
for key, runs in cells.items():
    for vals in ([math.log(nm[r]) for r in runs], [math.log(nt[r]) for r in runs]):
        mu = sum(vals) / len(vals)
        p = pool.setdefault(key[-1], [0.0, 0])
        p[0] += sum((v - mu) ** 2 for v in vals)
        p[1] += len(vals) - 1
if min(p[1] for p in pool.values()) == 0:
    sys.exit("(one seed: no spread to judge the test errors by; run with --seeds 2 or more)")
band = {lr: 3 * math.sqrt(2) * math.sqrt(ss / dof) for lr, (ss, dof) in pool.items()}
print(f"\n{'run':>4s} {'teacher':>8s} {'student':>8s} {'lr':>7s} {'seed':>4s} {'moelab nMSE':>12s} {'torch nMSE':>12s} {'ln ratio':>9s} {'band':>6s}  agree")
agree, lr_ = 0, []
for r in sorted(man):
    row = man[r]
    x = math.log(nt[r] / nm[r])
    lr_.append(x)
    ok = abs(x) <= band[row["lr"]]
    agree += ok
    print(f"{r:4d} {row['teacher_m'] + 'e' + row['teacher_k'] + 'a':>8s} {row['student_m'] + 'e' + row['student_k'] + 'a':>8s} "
          f"{float(row['lr']):7.0e} {row['trial']:>4s} {nm[r]:12.4g} {nt[r]:12.4g} {x:9.3f} {band[row['lr']]:6.3f}  {'yes' if ok else 'NO'}")
mean = sum(lr_) / len(lr_)
se = math.sqrt(sum((v - mean) ** 2 for v in lr_) / (len(lr_) - 1) / len(lr_)) if len(lr_) > 1 else float("nan")
print("rule: |ln(torch/moelab)| <= band = 3 sqrt(2) sigma, sigma = the pooled sd of ln nMSE across seeds at that lr ("
      + ", ".join(f"lr {float(lr):g}: sigma {b / 3 / math.sqrt(2):.3f}, {pool[lr][1]} dof" for lr, b in band.items())
      + f"); {agree}/{len(lr_)} runs agree; mean ln ratio {mean:+.3f} +- {se:.3f} (s.e.)")
PY
