#!/usr/bin/env bash
# The spectra workloads, moelab (build/bin/bench_spectra) vs the NumPy baseline (bench/numpy_spectra.py), in one
# run on the same CPU and the same work:
#   ipn     : all 2000 eigenvalues of Sigma Sigma', Sigma = B + W 2000 x 4000, W iid N(0, 1/4000), B with
#             squared singular values 9, 4 (REPS independent matrices each, timed one after the other);
#   wishart : largest eigenvalue of TRIALS real white Wishart matrices X'X, X 400 x 200 iid N(0, 1) (unnormalised);
#             moelab by the full model and by the Dumitriu-Edelman tridiagonal model, NumPy batched eigvalsh.
# The programs draw from different generators, so the agreement lines compare Monte-Carlo means: ipn, a two-sample
# t statistic over the REPS matrices of each (pooled sd, 2 REPS - 2 degrees of freedom); wishart, z = difference
# over its standard error over the TRIALS matrices. PART = all | ipn | wishart (e.g. more REPS for ipn alone).
#   bench/spectra_side_by_side.sh [THREADS] [REPS] [TRIALS] [PART]
set -euo pipefail
threads=${1:-$(nproc)}
reps=${2:-3}
trials=${3:-1000}
part=${4:-all}
exe=${BENCH_SPECTRA:-build/bin/bench_spectra}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, threads $threads," \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
args=(--threads "$threads" --reps "$reps" --trials "$trials" --part "$part")
echo "== moelab: $exe ${args[*]}"
"$exe" "${args[@]}" | tee "$tmp/moelab.txt"
echo "== NumPy: bench/numpy_spectra.py ${args[*]}"
"$py" bench/numpy_spectra.py "${args[@]}" | tee "$tmp/numpy.txt"
echo "== side by side (load after: $(cut -d' ' -f1-3 /proc/loadavg))"

"$py" - "$tmp/moelab.txt" "$tmp/numpy.txt" "$reps" "$trials" <<'PY'
import math, sys

def read(path):
    """`key value key value ...` lines -> {first_key: {key: value}} plus flat scalar keys."""
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        tok = line.split()
        head = tok[0]
        if len(tok) == 2:
            rows[head] = float(tok[1])
            continue
        if len(tok) % 2 == 0 and not head.endswith("_rep"):  # `k v k v ...` (e.g. ipn_l1_mean x ipn_l1_sd y)
            for k, v in zip(tok[0::2], tok[1::2]):
                try:
                    rows[k] = float(v)
                except ValueError:
                    pass
        sub = {}
        for k, v in zip(tok[1::2], tok[2::2]):
            try:
                sub[k] = float(v)
            except ValueError:
                pass
        rows.setdefault(head + "/", sub)
    return rows

m, n = read(sys.argv[1]), read(sys.argv[2])
reps, trials = int(sys.argv[3]), int(sys.argv[4])

print("workload                       moelab s (median)   NumPy s (median)   NumPy / moelab")
if "ipn_seconds_median" in m:
    print(f"ipn 2000x4000, band model       {m['ipn_seconds_median']:17.3f}   {n['ipn_seconds_median']:16.3f}"
          f"   {n['ipn_seconds_median'] / m['ipn_seconds_median']:14.2f}")
    if "ipn_throughput/" in m:
        t = m["ipn_throughput/"]
        print(f"  moelab {int(t['matrices'])} matrices at once: {t['seconds_per_matrix']:.3f} s per matrix")
    if "ipn_dense/" in m:
        dsec = m["ipn_dense/"]["seconds_median"]
        print(f"ipn dense (every entry drawn)  {dsec:17.3f}   {n['ipn_seconds_median']:16.3f}"
              f"   {n['ipn_seconds_median'] / dsec:14.2f}")
    for who, rows in (("moelab", m), ("NumPy", n)):
        ph = rows["ipn_phases/"]
        print(f"  {who:6s} phases: draw {ph['rng']:.3f} s, Gram {ph['gram']:.3f} s, eigenvalues {ph['eig']:.3f} s")
if "wishart_full/" in m:
    w = n["wishart_numpy/"]["seconds_median"]
    for key, label in (("wishart_full/", f"wishart {trials}, full, Bartlett"),
                       ("wishart_full_entries/", f"wishart {trials}, full, entries"),
                       ("wishart_tridiag/", f"wishart {trials}, tridiagonal")):
        if key not in m:
            continue
        s = m[key]["seconds_median"]
        print(f"{label:30s} {s:17.3f}   {w:16.3f}   {w / s:14.2f}")
    print(f"  moelab full model: draw alone {m['wishart_full_phases/']['draw']:.3f} s")
    ph = n["wishart_numpy_phases/"]
    print(f"  NumPy phases: draw {ph['draw']:.3f} s, Gram {ph['gram']:.3f} s, eigenvalues {ph['eig']:.3f} s")

print("\nCPU seconds (process, all threads; median of the repetitions): the work itself, whatever the load")
if "ipn_cpu_median" in m:
    print(f"  ipn band model      moelab {m['ipn_cpu_median']:.4f}   NumPy {n['ipn_cpu_median']:.4f}")
    if "ipn_dense/" in m:
        print(f"  ipn dense           moelab {m['ipn_dense/']['cpu_median']:.4f}")
if "wishart_full/" in m and "cpu_median" in m["wishart_full/"]:
    for key in ("wishart_full/", "wishart_full_entries/", "wishart_tridiag/"):
        print(f"  {key[:-1]:20s}moelab {m[key]['cpu_median']:.3f}   NumPy {n['wishart_numpy/']['cpu_median']:.3f}")

print("\nagreement (mean ± sd over matrices; t or z = difference / its standard error)")
if "ipn_l1_mean" in m:
    lim = m["ipn_limit/"]
    for key, limit in (("ipn_l1", lim["l1"]), ("ipn_l2", lim["l2"]), ("ipn_l3", lim["upper_edge"]),
                       ("ipn_lmin", lim["lower_edge"])):
        a, sa, b, sb = m[key + "_mean"], m[key + "_sd"], n[key + "_mean"], n[key + "_sd"]
        se = math.sqrt((sa * sa + sb * sb) / reps)  # pooled two-sample standard error, equal sizes
        t = (a - b) / se if se > 0 else float("nan")
        print(f"  {key[4:]:5s} moelab {a:.5f} ± {sa:.5f}  NumPy {b:.5f} ± {sb:.5f}  t({2 * reps - 2}) {t:+.2f}"
              f"  (limit {limit:.5f})")
if "wishart_full/" in m:
    tw = m["wishart_tw1/"]
    rows = {"moelab full": m["wishart_full/"], "moelab entries": m["wishart_full_entries/"],
            "moelab tridiag": m["wishart_tridiag/"], "NumPy": n["wishart_numpy/"]}
    for k, r in rows.items():
        print(f"  l1 {k:15s} mean {r['l1_mean']:.3f} ± {r['l1_se']:.3f}  sd {r['l1_sd']:.3f} ± {r['l1_sd'] / math.sqrt(2 * (trials - 1)):.3f}")
    print(f"  l1 TW1 approximation   mean {tw['mean']:.3f}  sd {tw['sd']:.3f}  (centre {tw['centre']:.3f}, scale {tw['scale']:.3f})")
    names = list(rows)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = rows[names[i]], rows[names[j]]
            zm = (a["l1_mean"] - b["l1_mean"]) / math.hypot(a["l1_se"], b["l1_se"])
            # sd's standard error ~ sd / sqrt(2 (K - 1)) (normal approximation; TW1 kurtosis 0.17 adds ~4%)
            zs = (a["l1_sd"] - b["l1_sd"]) / math.hypot(a["l1_sd"], b["l1_sd"]) * math.sqrt(2 * (trials - 1))
            print(f"  {names[i]} vs {names[j]}: z(mean) {zm:+.2f}  z(sd) {zs:+.2f}")
PY
