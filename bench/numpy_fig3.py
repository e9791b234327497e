#!/usr/bin/env python3
"""NumPy baseline for the `noisy` Fig. 3 excess-risk sweep: what a user would write without moelab.

Model (noisy paper, Sec. 3 / Fig. 3): d = 900 features in k = 12 equal blocks of 75; expert i owns
block i with covariance Sigma_i = Toeplitz(0.5^|a-b|); routing probabilities p_i = 1/k; feature-noise
variance s = sigma2 = 1 on all d coordinates; beta* ~ N(0, I/d) drawn once (default_rng(0)).

Per n (a multiple of k) and per trial: n_i = n/k rows per expert (balanced allocation). A row of
expert i is x_i ~ N(0, Sigma_i) in block i and zeros elsewhere, plus N(0, s) noise on all d coords;
its label is y = x_i' beta_i (noiseless). Estimators:
  dense  = min-norm least squares on all rows and all d columns (np.linalg.lstsq),
  sparse = per expert, min-norm least squares on its rows and its 75 block columns.
Excess risks are exact quadratic forms (no test set):
  dense : (b - b_B)' H (b - b_B),  H = blockdiag(p_i Sigma_i) + s I,
          b_B (block i) = p_i (p_i Sigma_i + s I)^-1 Sigma_i beta_i  (dense Bayes estimator)
  sparse: sum_i p_i (b_i - s_i)' (Sigma_i + s I) (b_i - s_i),  s_i = (Sigma_i + s I)^-1 Sigma_i beta_i.
H is block diagonal, so both forms are evaluated block by block.

Usage: /usr/bin/python3 bench/numpy_fig3.py --n 600 900 1200 --trials 20 --threads 2
Prints per n the mean (and standard error) of both excess risks, then
`numpy_seconds <wall seconds of the trial loops>` (setup and beta* excluded).
"""
import argparse
import os
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[600, 900, 1200], help="sample sizes (multiples of k)")
    ap.add_argument("--trials", type=int, default=20, help="Monte-Carlo trials per n")
    ap.add_argument("--threads", type=int, default=1, help="BLAS/LAPACK threads (set before importing numpy)")
    ap.add_argument("--seed", type=int, default=0, help="seed of beta* (trial data use seed 1 + ...)")
    ap.add_argument("--d", type=int, default=900, help="features")
    ap.add_argument("--k", type=int, default=12, help="experts (equal blocks)")
    ap.add_argument("--rho", type=float, default=0.5, help="Toeplitz correlation rho^|a-b|")
    ap.add_argument("--sigma2", type=float, default=1.0, help="feature-noise variance s")
    ap.add_argument("--solver", choices=["lstsq", "cholesky"], default="lstsq",
                    help="lstsq: np.linalg.lstsq (SVD) for every fit; cholesky: what a careful user writes, the normal "
                         "equations of the smaller Gram matrix (X'X when n >= d, XX' below) by Cholesky, with lstsq "
                         "only where that Gram is ill-conditioned (near n = d)")
    return ap.parse_args()


args = parse_args()
# BLAS thread pools are sized when numpy is imported: set every common knob first.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = str(args.threads)

import numpy as np  # noqa: E402  (must follow the environment set-up)

try:  # Debian python3-scipy: cho_solve's triangular solves; without it, two np.linalg.solve calls
    import scipy.linalg as scipy_linalg  # noqa: E402
except ImportError:
    scipy_linalg = None


def loaded_blas():
    """The BLAS/LAPACK shared objects actually mapped (Debian switches them via update-alternatives)."""
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "blas" in line or "lapack" in line}
        return ",".join(sorted(os.path.realpath(lib) for lib in libs if lib.startswith("/"))) or "unknown"
    except OSError:
        return "unknown"


def min_norm(x, y):
    """The min-norm least-squares solution, by the solver chosen on the command line."""
    if args.solver == "lstsq":
        return np.linalg.lstsq(x, y, rcond=None)[0]
    n, d = x.shape
    g = x.T @ x if n >= d else x @ x.T
    try:
        chol = np.linalg.cholesky(g)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(x, y, rcond=None)[0]
    diag = np.abs(np.diag(chol))
    # cond(G) = cond(L)^2 >= (max diag / min diag)^2: past ~1e-8 relative the normal equations lose
    # the digits the excess risk needs, and the careful user falls back to the SVD.
    if diag.min() < 1e-4 * diag.max():
        return np.linalg.lstsq(x, y, rcond=None)[0]
    if scipy_linalg is not None:
        factor = (chol, True)
        return scipy_linalg.cho_solve(factor, x.T @ y) if n >= d else x.T @ scipy_linalg.cho_solve(factor, y)
    solve = lambda r: np.linalg.solve(chol.T, np.linalg.solve(chol, r))  # noqa: E731
    return solve(x.T @ y) if n >= d else x.T @ solve(y)


def main():
    d, k, s = args.d, args.k, args.sigma2
    if d % k:
        sys.exit(f"d = {d} is not a multiple of k = {k}")
    b = d // k
    for n in args.n:
        if n % k:
            sys.exit(f"n = {n} is not a multiple of k = {k} (balanced allocation)")
    p = np.full(k, 1.0 / k)

    # Model: one Toeplitz block, shared by all experts (scale 1).
    idx = np.arange(b)
    sigma = args.rho ** np.abs(idx[:, None] - idx[None, :])
    chol = np.linalg.cholesky(sigma)
    beta = np.random.default_rng(args.seed).standard_normal(d) / np.sqrt(d)
    beta_blocks = beta.reshape(k, b)
    eye = np.eye(b)

    # Bayes estimators and the blocks of the risk quadratic forms.
    h_dense = [p[i] * sigma + s * eye for i in range(k)]               # blocks of H
    b_bayes = np.stack([p[i] * np.linalg.solve(h_dense[i], sigma @ beta_blocks[i]) for i in range(k)])
    h_sparse = sigma + s * eye
    s_bayes = np.linalg.solve(h_sparse, (sigma @ beta_blocks.T)).T     # (k, b)
    h_dense = np.stack(h_dense)                                        # (k, b, b)

    print(f"# solver {args.solver}{' (scipy cho_solve)' if args.solver == 'cholesky' and scipy_linalg else ''}")
    print(f"# numpy {np.__version__}, threads {args.threads}, d {d}, k {k}, rho {args.rho}, sigma2 {s}, "
          f"trials {args.trials}")
    print(f"# blas {loaded_blas()}")
    total = 0.0
    cpu0 = time.process_time()
    for n in args.n:
        n_i = n // k
        rng = np.random.default_rng([args.seed + 1, n])
        dense_ex = np.empty(args.trials)
        sparse_ex = np.empty(args.trials)
        t0 = time.perf_counter()
        for t in range(args.trials):
            # Design: rows grouped by expert; signal x_i = L z in block i, noise on all coordinates.
            signal = rng.standard_normal((k, n_i, b)) @ chol.T                 # (k, n_i, b)
            xbar = np.sqrt(s) * rng.standard_normal((n, d))
            xr = xbar.reshape(k, n_i, k, b)                                    # view: expert, row, block, col
            xr[np.arange(k), :, np.arange(k), :] += signal
            y = np.einsum("knb,kb->kn", signal, beta_blocks)                  # (k, n_i), noiseless labels

            dense = min_norm(xbar, y.reshape(n)).reshape(k, b)
            sparse = np.stack([min_norm(xr[i, :, i, :], y[i]) for i in range(k)])

            e = dense - b_bayes
            dense_ex[t] = np.einsum("ka,kab,kb->", e, h_dense, e)
            f = sparse - s_bayes
            sparse_ex[t] = np.einsum("k,ka,ab,kb->", p, f, h_sparse, f)
        seconds = time.perf_counter() - t0
        total += seconds
        se = lambda a: a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else float("nan")  # noqa: E731
        print(f"n {n} dense_excess_mean {dense_ex.mean():.6g} dense_excess_se {se(dense_ex):.3g} "
              f"sparse_excess_mean {sparse_ex.mean():.6g} sparse_excess_se {se(sparse_ex):.3g} "
              f"seconds {seconds:.3f}")
    print(f"numpy_seconds {total:.3f}")
    # CPU seconds of the process (all BLAS threads) over the trial loops (and the few prints between them).
    print(f"numpy_cpu_seconds {time.process_time() - cpu0:.3f}")


if __name__ == "__main__":
    main()
