#!/usr/bin/env python3
"""Independent NumPy reference for the noisy topic's estimators and excess risks.

Writes tests/data/noisy_numpy_reference.txt, read by tests/noisy/numpy_reference_test.cpp. For one
model of the noisy paper (k experts, feature blocks, routing probabilities p_i, feature noise
sigma^2) and fixed designs, it computes, with NumPy only and from the data model's second moments
(not from moelab's formulas):
  dense:  b = pinv(X) y (min-norm least squares), b* = E[xbar xbar']^-1 E[xbar y] with
          E[xbar xbar'] = blockdiag(p_i Sigma_i) + sigma^2 I and E[xbar y] = (p_i Sigma_i beta_i)_i,
          excess = R(b) - R(b*) = (b - b*)' E[xbar xbar'] (b - b*)   (R quadratic in b).
  sparse: per expert b_i = pinv(X_i) y_i on its rows and block, b_i* = (Sigma_i + sigma^2 I)^-1 Sigma_i beta_i,
          excess = sum_i p_i (b_i - b_i*)' (Sigma_i + sigma^2 I) (b_i - b_i*).
Run: /usr/bin/python3 tests/data/gen_noisy_numpy_reference.py > tests/data/noisy_numpy_reference.txt
"""
import numpy as np

blocks = [2, 3, 2]
k, d = len(blocks), sum(blocks)
offsets = np.cumsum([0] + blocks[:-1])
p = np.array([0.5, 0.3, 0.2])
sigma2 = 0.4
Sigma = []
beta = []
for i, b in enumerate(blocks):
    idx = np.arange(b)
    S = 0.6 ** np.abs(idx[:, None] - idx[None, :]) * (1.0 + 0.5 * i)  # Toeplitz, scaled per expert
    Sigma.append(S)
    beta.append(np.cos(1.0 + 0.7 * np.arange(b) + 2.0 * i))

M = np.zeros((d, d))
g = np.zeros(d)
beta_full = np.concatenate(beta)
for i in range(k):
    s = slice(offsets[i], offsets[i] + blocks[i])
    M[s, s] += p[i] * Sigma[i]
    g[s] = p[i] * Sigma[i] @ beta[i]
M += sigma2 * np.eye(d)
b_star = np.linalg.solve(M, g)
b_star_sparse = [np.linalg.solve(Sigma[i] + sigma2 * np.eye(blocks[i]), Sigma[i] @ beta[i]) for i in range(k)]


def design(counts, case):
    n = sum(counts)
    r = np.arange(n)[:, None]
    c = np.arange(d)[None, :]
    X = np.sin(0.37 * (r + 1) * (c + 1) + 0.11 * case) + 0.3 * np.cos(1.3 * r - 0.7 * c + case)
    y = np.cos(0.9 * np.arange(n) + 0.2 * case) + 0.1 * np.arange(n) / n
    return X, y


def fmt(v):
    return " ".join(repr(float(x)) for x in np.ravel(v))


print("# noisy topic: NumPy reference (tests/data/gen_noisy_numpy_reference.py); one model, several designs")
print("blocks", " ".join(map(str, blocks)))
print("p", fmt(p))
print("sigma2", repr(sigma2))
for i in range(k):
    print(f"sigma_{i}", fmt(Sigma[i]))  # row-major (symmetric)
    print(f"beta_{i}", fmt(beta[i]))
# counts per expert: n < d, n = d, n > d with an empty expert and an expert with fewer rows than its block
for case, counts in enumerate([[2, 2, 1], [3, 2, 2], [6, 5, 4], [20, 0, 1], [15, 12, 13]]):
    X, y = design(counts, case)
    b = np.linalg.pinv(X) @ y
    dense = (b - b_star) @ M @ (b - b_star)
    sparse = 0.0
    row = 0
    for i in range(k):
        ni = counts[i]
        if ni == 0:
            bi = np.zeros(blocks[i])
        else:
            bi = np.linalg.pinv(X[row:row + ni, offsets[i]:offsets[i] + blocks[i]]) @ y[row:row + ni]
        delta = bi - b_star_sparse[i]
        sparse += p[i] * delta @ (Sigma[i] + sigma2 * np.eye(blocks[i])) @ delta
        row += ni
    print(f"case_{case}_counts", " ".join(map(str, counts)))
    print(f"case_{case}_X", fmt(X))  # row-major
    print(f"case_{case}_y", fmt(y))
    print(f"case_{case}_dense_beta", fmt(b))
    print(f"case_{case}_dense_excess", repr(float(dense)))
    print(f"case_{case}_sparse_excess", repr(float(sparse)))
