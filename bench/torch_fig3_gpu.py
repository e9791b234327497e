#!/usr/bin/env python3
"""PyTorch baseline for the `noisy` Fig. 3 excess-risk sweep on a GPU: what a user would write with torch.

The same model and estimators as bench/numpy_fig3.py (read its docstring): d = 900 features in k = 12
equal blocks of 75, Toeplitz(0.5) covariances, p_i = 1/k, feature noise sigma2 = 1, beta* ~ N(0, I/d)
from default_rng(0); per n (a multiple of k) and trial: balanced allocation n_i = n/k, the min-norm dense
fit on all rows and columns, the min-norm fit of each expert on its rows and block, exact excess risks.
Here the trials of one n run as batches of float64 tensors on the device (--batch trials at a time):
  --method lstsq    torch.linalg.lstsq (QR, the 'gels' driver on CUDA) where rows >= cols; for the
                    under-determined problems, which CUDA's lstsq refuses, X' (X X')^-1 y by
                    torch.linalg.solve (what a user writes for the min-norm interpolant);
  --method cholesky the normal equations as moelab solves them: Gram X'X or X X', torch.linalg.cholesky_ex,
                    torch.cholesky_solve (no fallback near n = d: a failed factor gives NaN, counted).
Without a GPU (or with --device cpu) the same code runs on the CPU (a check of the script, not a baseline).

Usage: /usr/bin/python3 bench/torch_fig3_gpu.py --n 600 900 1200 --trials 100 --batch 50 [--method cholesky]
Prints per n the mean (and standard error) of both excess risks and the seconds, then
`torch_seconds <wall seconds of the trial loops, device synchronised>` (setup and a warm-up excluded).
"""
import argparse
import sys
import time

import numpy as np
import torch


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[600, 900, 1200], help="sample sizes (multiples of k)")
    ap.add_argument("--trials", type=int, default=20, help="Monte-Carlo trials per n")
    ap.add_argument("--batch", type=int, default=20, help="trials per batched device call")
    ap.add_argument("--method", choices=["lstsq", "cholesky"], default="lstsq")
    ap.add_argument("--device", default="auto", help="auto (cuda if available), cuda or cpu")
    ap.add_argument("--seed", type=int, default=0, help="seed of beta* (trial data: torch generator seeded 1 + n)")
    ap.add_argument("--d", type=int, default=900)
    ap.add_argument("--k", type=int, default=12)
    ap.add_argument("--rho", type=float, default=0.5)
    ap.add_argument("--sigma2", type=float, default=1.0)
    return ap.parse_args()


def min_norm(X, y, method):
    """Batched minimum-norm least squares: X (B, r, c), y (B, r) -> (B, c)."""
    r, c = X.shape[-2], X.shape[-1]
    y = y.unsqueeze(-1)
    if method == "lstsq":
        if r >= c:
            return torch.linalg.lstsq(X, y).solution.squeeze(-1)
        return (X.mT @ torch.linalg.solve(X @ X.mT, y)).squeeze(-1)
    if r >= c:
        L, _ = torch.linalg.cholesky_ex(X.mT @ X)
        return torch.cholesky_solve(X.mT @ y, L).squeeze(-1)
    L, _ = torch.linalg.cholesky_ex(X @ X.mT)
    return (X.mT @ torch.cholesky_solve(y, L)).squeeze(-1)


def main():
    args = parse_args()
    dev = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                       ("cpu" if args.device == "auto" else args.device))
    d, k, s = args.d, args.k, args.sigma2
    if d % k:
        sys.exit(f"d = {d} is not a multiple of k = {k}")
    b = d // k
    for n in args.n:
        if n % k:
            sys.exit(f"n = {n} is not a multiple of k = {k} (balanced allocation)")
    f64 = dict(dtype=torch.float64, device=dev)
    p = torch.full((k,), 1.0 / k, **f64)
    idx = torch.arange(b, device=dev)
    sigma = args.rho ** (idx[:, None] - idx[None, :]).abs().to(torch.float64)
    chol = torch.linalg.cholesky(sigma)
    beta = torch.as_tensor(np.random.default_rng(args.seed).standard_normal(d) / np.sqrt(d), **f64).reshape(k, b)
    eye = torch.eye(b, **f64)
    h_dense = torch.stack([p[i] * sigma + s * eye for i in range(k)])                     # blocks of H
    b_bayes = torch.stack([p[i] * torch.linalg.solve(h_dense[i], sigma @ beta[i]) for i in range(k)])
    h_sparse = sigma + s * eye
    s_bayes = torch.linalg.solve(h_sparse, sigma @ beta.T).T                              # (k, b)

    def run(n, trials, gen):
        n_i = n // k
        dense_ex, sparse_ex, failed = [], [], 0
        for t0 in range(0, trials, args.batch):
            T = min(args.batch, trials - t0)
            signal = torch.randn(T, k, n_i, b, generator=gen, **f64) @ chol.T           # (T, k, n_i, b)
            xbar = s ** 0.5 * torch.randn(T, n, d, generator=gen, **f64)
            xr = xbar.view(T, k, n_i, k, b)
            ar = torch.arange(k, device=dev)
            xr[:, ar, :, ar, :] += signal.transpose(0, 1)                                # block i of expert i's rows
            y = torch.einsum("tknb,kb->tkn", signal, beta)                                # (T, k, n_i)
            dense = min_norm(xbar, y.reshape(T, n), args.method).view(T, k, b)
            blocks = xr[:, ar, :, ar, :].transpose(0, 1).reshape(T * k, n_i, b)          # (T k, n_i, b)
            sparse = min_norm(blocks, y.reshape(T * k, n_i), args.method).view(T, k, b)
            e = dense - b_bayes
            f = sparse - s_bayes
            de = torch.einsum("tka,kab,tkb->t", e, h_dense, e)
            se = torch.einsum("k,tka,ab,tkb->t", p, f, h_sparse, f)
            failed += int((~torch.isfinite(de)).sum() + (~torch.isfinite(se)).sum())
            dense_ex.append(de)
            sparse_ex.append(se)
        return torch.cat(dense_ex).cpu().numpy(), torch.cat(sparse_ex).cpu().numpy(), failed

    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(f"# torch {torch.__version__}, device {name}, method {args.method}, d {d}, k {k}, rho {args.rho}, "
          f"sigma2 {s}, trials {args.trials}, batch {args.batch}")
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    run(args.n[0], min(args.batch, args.trials), torch.Generator(device=dev).manual_seed(12345))  # warm-up
    sync()
    total = 0.0
    for n in args.n:
        gen = torch.Generator(device=dev).manual_seed(args.seed + 1 + n)
        t0 = time.perf_counter()
        dense_ex, sparse_ex, failed = run(n, args.trials, gen)
        sync()
        seconds = time.perf_counter() - t0
        total += seconds
        se = lambda a: a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else float("nan")  # noqa: E731
        print(f"n {n} dense_excess_mean {dense_ex.mean():.6g} dense_excess_se {se(dense_ex):.3g} "
              f"sparse_excess_mean {sparse_ex.mean():.6g} sparse_excess_se {se(sparse_ex):.3g} "
              f"nonfinite {failed} seconds {seconds:.3f}")
    print(f"torch_seconds {total:.3f}")


if __name__ == "__main__":
    main()
