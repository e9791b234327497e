#!/usr/bin/env bash
# The region-mass Monte-Carlo of the granularity paper (Lemma 3.2: x ~ N(0, I/d), scores R x, top-k set,
# its rank, a histogram of ranks), moelab (build/bin/bench_routing) vs the NumPy baseline
# (bench/numpy_routing.py), in one run on the same CPU, same R (written by moelab, read by NumPy), same
# number of points, at (m, k, d) = (16, 8, 256) and (256, 8, 256). moelab runs the full path (x in R^d,
# GEMM) and the projected path (scores drawn as L z with L L' = R R': same law, m normals per point).
# Agreement (different generators, so statistically): per-region counts of (16, 8, 256) by a two-sample
# chi-square (Wilson-Hilferty z of the statistic), and per-expert activation counts by two-proportion z.
#   bench/routing_side_by_side.sh [THREADS] [REPS] [POINTS]
set -euo pipefail
threads=${1:-$(nproc)}
reps=${2:-3}
points=${3:-1000000}
exe=${BENCH_ROUTING:-build/bin/bench_routing}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, threads $threads," \
  "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== moelab: $exe --threads $threads --reps $reps --points $points --out <tmp>"
"$exe" --threads "$threads" --reps "$reps" --points "$points" --out "$tmp" | tee "$tmp/moelab.txt"
echo "== NumPy: bench/numpy_routing.py --threads $threads --reps $reps --points $points --out <tmp>"
"$py" bench/numpy_routing.py --threads "$threads" --reps "$reps" --points "$points" --out "$tmp" | tee "$tmp/numpy.txt"
echo "== side by side (load after: $(cut -d' ' -f1-3 /proc/loadavg))"

"$py" - "$tmp" "$points" "$threads" <<'PY'
import math, os, sys
import numpy as np

tmp, points, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def lines(path, head):
    out = []
    for line in open(path):
        tok = line.split()
        if tok and tok[0] == head:
            out.append({k: v for k, v in zip(tok[1::2], tok[2::2])})
    return out


m_runs, n_runs = lines(f"{tmp}/moelab.txt", "routing"), lines(f"{tmp}/numpy.txt", "routing")
m_steps, n_steps = lines(f"{tmp}/moelab.txt", "routing_steps"), lines(f"{tmp}/numpy.txt", "routing_steps")
m_gemm = lines(f"{tmp}/moelab.txt", "routing_gemm")
m_peak = float(lines(f"{tmp}/moelab.txt", "gemm_peak")[0]["gflops_one_thread"])
n_peak = float(lines(f"{tmp}/numpy.txt", "gemm_peak")[0]["gflops"])

print(f"samples per second ({points} points, {threads} threads; median of the repetitions)")
print(f"{'(m, k, d)':14s} {'moelab full':>12s} {'moelab proj.':>12s} {'NumPy':>10s} {'full/NumPy':>10s} {'proj./NumPy':>11s}"
      f" {'GEMM floor':>11s}")
for nr in n_runs:
    key = (nr["m"], nr["k"], nr["d"])
    mr = {r["path"]: r for r in m_runs if (r["m"], r["k"], r["d"]) == key}
    m, d = int(key[0]), int(key[2])
    full = float(mr["full"]["samples_per_second"])
    proj = float(mr["projected"]["samples_per_second"]) if "projected" in mr else float("nan")
    npy = float(nr["samples_per_second"])
    # The GEMM floor: 2 m d flops per sample at Eigen's 2000 x 2000 rate times the threads.
    floor = m_peak * 1e9 * threads / (2 * m * d)
    print(f"({key[0]}, {key[1]}, {key[2]}){'':3s} {full:12.4g} {proj:12.4g} {npy:10.4g} {full / npy:10.2f} {proj / npy:11.2f} {floor:11.4g}")
print(f"GEMM rate: Eigen 2000x2000 {m_peak:.1f} GFLOP/s on one thread; OpenBLAS via NumPy {n_peak:.1f} GFLOP/s on {threads} threads")
for g in m_gemm:
    print(f"  Eigen on the routing shape ({g['m']} x {g['d']}) x ({g['d']} x 256): {float(g['gflops_one_thread']):.1f} GFLOP/s, "
          f"{g['flops_per_sample']} flops per sample")

print("\nsteps, microseconds per sample on one thread (moelab: full path, batches of 256; NumPy: batches of 8192 on the BLAS threads)")
print(f"{'(m, k, d)':14s} {'who':7s} {'draw':>8s} {'GEMM':>8s} {'top-k+rank':>11s} {'histogram':>10s} {'GEMM GFLOP/s':>13s}")
for who, steps in (("moelab", m_steps), ("NumPy", n_steps)):
    for s in steps:
        print(f"({s['m']}, {s['k']}, {s['d']}){'':3s} {who:7s} {float(s['draw_us']):8.3f} {float(s['gemm_us']):8.3f} "
              f"{float(s['topk_rank_us']):11.3f} {float(s['histogram_us']):10.3f} {float(s['gemm_gflops']):13.1f}")


def chi2_two_sample(a, b):
    """Pearson homogeneity statistic over the cells hit by either sample, its dof, and the
    Wilson-Hilferty z (chi2/dof)^(1/3) standardised (accurate for large dof)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    keep = (a + b) > 0
    a, b = a[keep], b[keep]
    na, nb = a.sum(), b.sum()
    ea, eb = (a + b) * na / (na + nb), (a + b) * nb / (na + nb)
    chi2 = float(np.sum((a - ea) ** 2 / ea + (b - eb) ** 2 / eb))
    k = keep.sum() - 1
    z = ((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return chi2, k, z


print("\nagreement (moelab vs NumPy, independent points, same R)")
for nr in n_runs:
    m, k, d = nr["m"], nr["k"], nr["d"]
    na = np.loadtxt(f"{tmp}/numpy_{m}_{k}_{d}_activation.txt")
    for path in ("full", "projected"):
        stem = f"{tmp}/moelab_{m}_{k}_{d}_{path}"
        if not os.path.exists(stem + "_activation.txt"):
            continue
        ma = np.loadtxt(stem + "_activation.txt")
        p1, p2 = ma / points, na / points
        pool = (ma + na) / (2 * points)
        z = (p1 - p2) / np.sqrt(pool * (1 - pool) * 2 / points)
        zmax = float(np.max(np.abs(z)))
        msg = (f"({m}, {k}, {d}) {path:9s}: expert activation max |z| {zmax:.2f} over {len(z)} experts "
               f"(Bonferroni p {min(1.0, len(z) * math.erfc(zmax / math.sqrt(2))):.2g}) "
               f"(mean activation moelab {p1.mean():.5f}, NumPy {p2.mean():.5f}, k/m {int(k) / int(m):.5f})")
        if os.path.exists(stem + "_regions.txt"):
            chi2, dof, zc = chi2_two_sample(np.loadtxt(stem + "_regions.txt"), np.loadtxt(f"{tmp}/numpy_{m}_{k}_{d}_regions.txt"))
            msg += f"; regions: chi2 {chi2:.0f} on {dof} dof, z {zc:+.2f}"
        print(msg)
    mr = [r for r in m_runs if (r["m"], r["k"], r["d"]) == (m, k, d)]
    print(f"({m}, {k}, {d}) C^2 E mu^2 estimates: " + ", ".join(f"moelab {r['path']} {float(r['normalized_second_moment']):.4f}" for r in mr)
          + f", NumPy {float(nr['normalized_second_moment']):.4f}; occupied regions: "
          + ", ".join(f"moelab {r['path']} {r['occupied']}" for r in mr) + f", NumPy {nr['occupied']}")
PY
