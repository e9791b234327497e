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

The same model INSTANCE as moelab's scenario: `--model FILE` reads Sigma_i, p_i, sigma2 and beta_i*
as `bench_noisy_model scenarios/noisy_fig3.toml FILE` writes them (moelab's own beta*, seed 7, not
default_rng's: without it the baseline's excess risks differed from moelab's by about 10% at n = 240
on the H200, a different instance, not an error). `--compare CSV` then checks, per n and estimator,
that the two means agree within Monte-Carlo error: |mean_torch - mean_moelab| <= 4 sqrt(se_torch^2 +
se_moelab^2) (4 standard errors of the difference of two independent means; the trial data differ);
it prints every row's z and exits 1 when a row is outside (rows with non-finite torch trials are
reported, not judged: Cholesky without moelab's fallback fails near n = d).

Usage: /usr/bin/python3 bench/torch_fig3_gpu.py --n 600 900 1200 --trials 100 --batch 50 [--method cholesky]
                        [--model model.txt] [--compare moelab.csv]
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
    ap.add_argument("--model", help="model instance written by bench_noisy_model (overrides --d/--k/--rho/--sigma2/--seed's beta*)")
    ap.add_argument("--compare", help="moelab's CSV of the same scenario: check agreement within Monte-Carlo error")
    return ap.parse_args()


def read_model(path):
    """k, sigma2, p (k), sigma (k, b, b), beta (k, b) from bench_noisy_model's text file."""
    k, sigma2, p, sig, beta = None, None, None, [], []
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "k":
            k = int(f[1])
        elif f[0] == "sigma2":
            sigma2 = float(f[1])
        elif f[0] == "p":
            p = [float(x) for x in f[1:]]
        elif f[0] == "sigma":
            v = np.array([float(x) for x in f[1:]])
            b = int(round(np.sqrt(v.size)))
            sig.append(v.reshape(b, b))
        elif f[0] == "beta":
            beta.append(np.array([float(x) for x in f[1:]]))
    sizes = {m.shape[0] for m in sig}
    if k is None or len(sig) != k or len(beta) != k or len(sizes) != 1:
        sys.exit(f"{path}: need k equal blocks (this batched baseline stacks them), got sizes {sorted(sizes)}")
    return k, sigma2, np.array(p), np.stack(sig), np.stack(beta)


def compare(rows, path):
    """rows: {(n, estimator): (mean, se, nonfinite)} of this run against moelab's CSV."""
    import csv
    lines = [l for l in open(path) if not l.startswith("#")]
    ref = {(int(r["n"]), r["estimator"]): (float(r["excess_mean"]), float(r["excess_std_error"]))
           for r in csv.DictReader(lines)}
    bad = 0
    print("compare n estimator torch_mean moelab_mean z (|z| <= 4 agrees)")
    for key in sorted(rows):
        if key not in ref:
            continue
        (mt, st, nf), (mm, sm) = rows[key], ref[key]
        z = (mt - mm) / np.sqrt(st * st + sm * sm) if st > 0 or sm > 0 else 0.0
        verdict = "not judged (non-finite torch trials)" if nf else ("agrees" if abs(z) <= 4 else "DISAGREES")
        bad += verdict == "DISAGREES"
        print(f"compare {key[0]} {key[1]} {mt:.6g} {mm:.6g} {z:+.2f} {verdict}")
    print(f"compare_summary rows {len([k for k in rows if k in ref])} disagree {bad}")
    return bad


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
    f64 = dict(dtype=torch.float64, device=dev)
    if args.model:
        k, s, p_np, sig_np, beta_np = read_model(args.model)
        b = sig_np.shape[1]
        d = k * b
        p = torch.as_tensor(p_np, **f64)
        sigma = torch.as_tensor(sig_np, **f64)                                           # (k, b, b)
        beta = torch.as_tensor(beta_np, **f64)                                           # (k, b)
    else:
        d, k, s = args.d, args.k, args.sigma2
        if d % k:
            sys.exit(f"d = {d} is not a multiple of k = {k}")
        b = d // k
        p = torch.full((k,), 1.0 / k, **f64)
        idx = torch.arange(b, device=dev)
        sigma = (args.rho ** (idx[:, None] - idx[None, :]).abs().to(torch.float64)).expand(k, b, b).contiguous()
        beta = torch.as_tensor(np.random.default_rng(args.seed).standard_normal(d) / np.sqrt(d), **f64).reshape(k, b)
    for n in args.n:
        if n % k:
            sys.exit(f"n = {n} is not a multiple of k = {k} (balanced allocation)")
    chol = torch.linalg.cholesky(sigma)                                                  # (k, b, b)
    eye = torch.eye(b, **f64)
    h_dense = torch.stack([p[i] * sigma[i] + s * eye for i in range(k)])                  # blocks of H
    b_bayes = torch.stack([p[i] * torch.linalg.solve(h_dense[i], sigma[i] @ beta[i]) for i in range(k)])
    h_sparse = sigma + s * eye                                                           # (k, b, b)
    s_bayes = torch.stack([torch.linalg.solve(h_sparse[i], sigma[i] @ beta[i]) for i in range(k)])  # (k, b)

    def run(n, trials, gen):
        n_i = n // k
        dense_ex, sparse_ex, failed = [], [], 0
        for t0 in range(0, trials, args.batch):
            T = min(args.batch, trials - t0)
            signal = torch.randn(T, k, n_i, b, generator=gen, **f64) @ chol.mT.unsqueeze(0)  # (T, k, n_i, b): x_i = L_i g
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
            se = torch.einsum("k,tka,kab,tkb->t", p, f, h_sparse, f)
            failed += int((~torch.isfinite(de)).sum() + (~torch.isfinite(se)).sum())
            dense_ex.append(de)
            sparse_ex.append(se)
        return torch.cat(dense_ex).cpu().numpy(), torch.cat(sparse_ex).cpu().numpy(), failed

    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    inst = f"model {args.model}" if args.model else f"rho {args.rho}, beta* from default_rng({args.seed})"
    print(f"# torch {torch.__version__}, device {name}, method {args.method}, d {d}, k {k}, {inst}, "
          f"sigma2 {s}, trials {args.trials}, batch {args.batch}")
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    run(args.n[0], min(args.batch, args.trials), torch.Generator(device=dev).manual_seed(12345))  # warm-up
    sync()
    total = 0.0
    rows = {}
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
        rows[(n, "dense")] = (float(np.mean(dense_ex)), float(se(dense_ex)), int((~np.isfinite(dense_ex)).sum()))
        rows[(n, "sparse")] = (float(np.mean(sparse_ex)), float(se(sparse_ex)), int((~np.isfinite(sparse_ex)).sum()))
    print(f"torch_seconds {total:.3f}")
    if args.compare:
        return 1 if compare(rows, args.compare) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
