#!/usr/bin/env python3
"""NumPy baseline for the spectra benchmark: what a user would write without moelab.

Workload 1 (ipn): all M eigenvalues of Sigma Sigma' for one M x N information-plus-noise matrix
Sigma = B + W, W iid N(0, sigma2 / N) (sigma2 = 1), B with squared singular values 9 and 4 on its first
two diagonal entries:
    S = rng.standard_normal((M, N)) / np.sqrt(N); S[0, 0] += 3; S[1, 1] += 2
    ev = np.linalg.eigvalsh(S @ S.T)          # S @ S.T is a syrk in NumPy's matmul; eigvalsh = LAPACK syevd
`reps` independent matrices, timed one after the other (each step timed too).

Workload 2 (wishart): the largest eigenvalue of `trials` real white Wishart matrices X'X, X n x p iid
N(0, 1) (unnormalised, Johnstone's convention), batched:
    X = rng.standard_normal((batch, n, p)); l1 = np.linalg.eigvalsh(X.transpose(0, 2, 1) @ X)[:, -1]

Usage: /usr/bin/python3 bench/numpy_spectra.py --threads 2 [--reps 3] [--trials 1000] [--part all|ipn|wishart]
Prints `key value ...` lines like bench_spectra (bench/spectra_side_by_side.sh puts them side by side).
"""
import argparse
import os
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="BLAS/LAPACK threads (set before importing numpy)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions (ipn: independent matrices)")
    ap.add_argument("--trials", type=int, default=1000, help="Wishart matrices")
    ap.add_argument("--batch", type=int, default=100, help="Wishart matrices per stacked eigvalsh call")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--part", choices=["all", "ipn", "wishart"], default="all")
    ap.add_argument("--M", type=int, default=2000)
    ap.add_argument("--N", type=int, default=4000)
    ap.add_argument("--n", type=int, default=400, help="Wishart samples (rows of X)")
    ap.add_argument("--p", type=int, default=200, help="Wishart variables (columns of X)")
    return ap.parse_args()


args = parse_args()
# BLAS thread pools are sized when numpy is imported: set every common knob first.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = str(args.threads)

import numpy as np  # noqa: E402  (must follow the environment set-up)


def loaded_blas():
    """The BLAS/LAPACK shared objects actually mapped (Debian switches them via update-alternatives)."""
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "blas" in line or "lapack" in line}
        return ",".join(sorted(os.path.realpath(lib) for lib in libs if lib.startswith("/"))) or "unknown"
    except OSError:
        return "unknown"


def info_plus_noise():
    M, N, sigma2 = args.M, args.N, 1.0
    sv2 = np.array([9.0, 4.0])
    rng = np.random.default_rng([args.seed, 1])
    print(f"# ipn: M {M} N {N} sigma2 {sigma2} sv2 9 4, default_rng([{args.seed}, 1])")
    secs, cpus, tops = [], [], []
    phases = np.zeros(3)
    for r in range(args.reps):
        t0 = time.perf_counter()
        c0 = time.process_time()
        S = rng.standard_normal((M, N)) * np.sqrt(sigma2 / N)
        idx = np.arange(sv2.size)
        S[idx, idx] += np.sqrt(sv2)
        t1 = time.perf_counter()
        G = S @ S.T
        t2 = time.perf_counter()
        ev = np.linalg.eigvalsh(G)[::-1]           # descending
        t3 = time.perf_counter()
        secs.append(t3 - t0)
        cpus.append(time.process_time() - c0)
        phases += (t1 - t0, t2 - t1, t3 - t2)
        tops.append((ev[0], ev[1], ev[2], ev[-1]))
        print(f"ipn_rep {r} seconds {secs[-1]:.3f} l1 {ev[0]:.6f} l2 {ev[1]:.6f} l3 {ev[2]:.6f} lmin {ev[-1]:.6f}",
              flush=True)
    print(f"ipn_seconds_median {np.median(secs):.3f}\nipn_seconds_best {min(secs):.3f}\n"
          f"ipn_cpu_median {np.median(cpus):.4f}")
    tops = np.array(tops)
    for j, key in enumerate(("ipn_l1", "ipn_l2", "ipn_l3", "ipn_lmin")):
        sd = tops[:, j].std(ddof=1) if args.reps > 1 else 0.0
        print(f"{key}_mean {tops[:, j].mean():.6f} {key}_sd {sd:.6f}")
    rng_s, gram_s, eig_s = phases / args.reps
    print(f"ipn_phases rng {rng_s:.3f} gram {gram_s:.3f} eig {eig_s:.3f} (mean over reps)")


def wishart():
    n, p, K, B = args.n, args.p, args.trials, args.batch
    print(f"# wishart: X {n} x {p} iid N(0,1), largest eigenvalue of X'X, {K} matrices, batches of {B}")
    secs, cpus = [], []
    for r in range(args.reps):
        rng = np.random.default_rng([args.seed, 2])     # same matrices every repetition: timing only
        l1 = np.empty(K)
        t0 = time.perf_counter()
        c0 = time.process_time()
        for k in range(0, K, B):
            X = rng.standard_normal((min(B, K - k), n, p))
            l1[k:k + B] = np.linalg.eigvalsh(X.transpose(0, 2, 1) @ X)[:, -1]
        secs.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    # Where the time goes (one more pass, each step timed).
    rng = np.random.default_rng([args.seed, 2])
    phases = np.zeros(3)
    for k in range(0, K, B):
        t0 = time.perf_counter()
        X = rng.standard_normal((min(B, K - k), n, p))
        t1 = time.perf_counter()
        G = X.transpose(0, 2, 1) @ X
        t2 = time.perf_counter()
        np.linalg.eigvalsh(G)
        phases += (t1 - t0, t2 - t1, time.perf_counter() - t2)
    print(f"wishart_numpy_phases draw {phases[0]:.3f} gram {phases[1]:.3f} eig {phases[2]:.3f}")
    sd = l1.std(ddof=1)
    print(f"wishart_numpy seconds_median {np.median(secs):.3f} seconds_best {min(secs):.3f} "
          f"l1_mean {l1.mean():.4f} l1_se {sd / np.sqrt(K):.4f} l1_sd {sd:.4f} cpu_median {np.median(cpus):.3f}", flush=True)


def main():
    print(f"# numpy {np.__version__}, threads {args.threads}, blas {loaded_blas()}")
    t0 = time.perf_counter()
    if args.part != "wishart":
        info_plus_noise()
    if args.part != "ipn":
        wishart()
    print(f"numpy_total_seconds {time.perf_counter() - t0:.3f}")


if __name__ == "__main__":
    main()
