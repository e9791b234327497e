#!/usr/bin/env python3
"""NumPy baseline for the routing benchmark: the region-mass Monte-Carlo written the way a user would.

For a routing matrix R (m x d; read from R_<m>_<d>.bin written by bench_routing, so both programs route
with the same R), draw points x ~ N(0, I_d / d) in batches and count top-k routing regions:
    X = rng.standard_normal((B, d)) / np.sqrt(d)
    S = X @ R.T                                         # (B, m) scores: a GEMM through OpenBLAS
    top = np.argpartition(S, m - k, axis=1)[:, m - k:]  # the k largest, unordered
    top.sort(axis=1)
    rank = table[np.arange(k), top].sum(axis=1)         # combinatorial number system, table[i, c] = C(c, i + 1)
    counts += np.bincount(rank, minlength=C)            # C(m, k) <= 2^22; otherwise np.unique at the end
Each configuration is timed `reps` times over `points` points (median reported); each step is timed
too. Prints `key value ...` lines like bench_routing; writes expert-activation counts (and, for a dense
histogram, all region counts) to --out for bench/routing_side_by_side.sh to compare.

Usage: /usr/bin/python3 bench/numpy_routing.py --threads 2 [--reps 3] [--points 1000000] [--out DIR]
"""
import argparse
import os
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (set before importing numpy)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--points", type=int, default=1000000)
    ap.add_argument("--batch", type=int, default=8192, help="points per GEMM")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shapes", default="16,8,256:256,8,256")
    ap.add_argument("--out", required=True, help="directory with R_<m>_<d>.bin from bench_routing")
    return ap.parse_args()


args = parse_args()
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = str(args.threads)

import numpy as np  # noqa: E402  (must follow the environment set-up)
from math import comb  # noqa: E402


def route(R, k, points, rng, batch, dense, steps=None):
    """Counts of the top-k regions of `points` Gaussian points; returns (counts or (ranks, counts), activation)."""
    m, d = R.shape
    table = np.array([[comb(c, i + 1) for c in range(m + 1)] for i in range(k)], dtype=np.int64)
    C = comb(m, k)
    counts = np.zeros(C, dtype=np.int64) if dense else None
    ranks = []
    activation = np.zeros(m, dtype=np.int64)
    rows = np.arange(k)
    scale = 1.0 / np.sqrt(d)
    done = 0
    while done < points:
        b = min(batch, points - done)
        t0 = time.perf_counter()
        X = rng.standard_normal((b, d)) * scale
        t1 = time.perf_counter()
        S = X @ R.T
        t2 = time.perf_counter()
        top = np.argpartition(S, m - k, axis=1)[:, m - k:]
        top.sort(axis=1)
        rank = table[rows, top].sum(axis=1)
        t3 = time.perf_counter()
        if dense:
            counts += np.bincount(rank, minlength=C)
        else:
            ranks.append(rank)
        activation += np.bincount(top.ravel(), minlength=m)
        t4 = time.perf_counter()
        if steps is not None:
            steps += (t1 - t0, t2 - t1, t3 - t2, t4 - t3)
        done += b
    if not dense:
        t0 = time.perf_counter()
        _, counts = np.unique(np.concatenate(ranks), return_counts=True)
        if steps is not None:
            steps[3] += time.perf_counter() - t0
    return counts, activation


def gemm_rate(r, c, n, rng):
    A, B = rng.standard_normal((r, c)), rng.standard_normal((c, n))
    A @ B
    reps, t0 = 0, time.perf_counter()
    while True:
        A @ B
        reps += 1
        s = time.perf_counter() - t0
        if s > 0.3:
            return 2.0 * r * c * n * reps / s / 1e9


def main():
    print(f"# NumPy {np.__version__}, BLAS threads {args.threads}, batch {args.batch}")
    t_all = time.perf_counter()
    for shape in args.shapes.split(":"):
        m, k, d = (int(x) for x in shape.split(","))
        R = np.fromfile(os.path.join(args.out, f"R_{m}_{d}.bin"), dtype="<f8").reshape(m, d)
        C = comb(m, k)
        dense = C <= 1 << 22
        print(f"# shape m {m} k {k} d {d}: C(m,k) = {C} regions ({'bincount' if dense else 'np.unique'}), {args.points} points")
        secs = []
        for _ in range(args.reps):
            rng = np.random.default_rng([args.seed, m, d])   # same points every repetition
            t0 = time.perf_counter()
            counts, activation = route(R, k, args.points, rng, args.batch, dense)
            secs.append(time.perf_counter() - t0)
        med = float(np.median(secs))
        c = counts.astype(np.float64)
        collisions = float(np.sum(c * (c - 1)))
        n = float(args.points)
        occupied = int(np.count_nonzero(counts))
        print(f"routing m {m} k {k} d {d} path numpy threads {args.threads} seconds_median {med:.4f} seconds_best {min(secs):.4f} "
              f"samples_per_second {n / med:.4g} occupied {occupied} collisions {collisions:.0f} "
              f"normalized_second_moment {C * collisions / (n * (n - 1)):.6f}", flush=True)
        stem = os.path.join(args.out, f"numpy_{m}_{k}_{d}")
        np.savetxt(stem + "_activation.txt", activation, fmt="%d")
        if dense:
            np.savetxt(stem + "_regions.txt", counts, fmt="%d")
        steps = np.zeros(4)
        route(R, k, 100 * 1024, np.random.default_rng([args.seed, m, d, 1]), args.batch, dense, steps)
        us = 1e6 / (100 * 1024)
        print(f"routing_steps m {m} k {k} d {d} draw_us {steps[0] * us:.4f} gemm_us {steps[1] * us:.4f} "
              f"topk_rank_us {steps[2] * us:.4f} histogram_us {steps[3] * us:.4f} "
              f"gemm_gflops {2.0 * m * d * 100 * 1024 / steps[1] / 1e9:.2f}", flush=True)
    print(f"gemm_peak n 2000 gflops {gemm_rate(2000, 2000, 2000, np.random.default_rng(0)):.2f}")
    print(f"numpy_total_seconds {time.perf_counter() - t_all:.3f}")


main()
