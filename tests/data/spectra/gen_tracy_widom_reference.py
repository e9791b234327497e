#!/usr/bin/python3
"""Reference values of the Tracy-Widom laws F1, F2, F4 for tests/spectra/tracy_widom_test.cpp.

Run from the repository root:  /usr/bin/python3 tests/data/spectra/gen_tracy_widom_reference.py
(about two minutes; Debian python3 with mpmath and numpy). Writes tests/data/spectra/tracy_widom_reference.csv.

Method: Fredholm determinants (Bornemann 2010, Math. Comp. 79, 871-915) as in the library, but along an
independent path so that a shared mistake is unlikely:
  * Airy values: mpmath's airyai at mp.dps = 30 at anchors spaced 1/8 on [-32, 64], carried to the quadrature
    nodes by Taylor series of Ai'' = x Ai (degree 26) in numpy.longdouble (x87 extended, 64-bit significand,
    eps = 1.08e-19); Ai = 0 beyond x = 64 (Ai(64) < 1e-149).
  * Quadrature: mpmath's own Gauss-Legendre nodes (mpmath.calculus.quadrature.GaussLegendre, dps 30),
    96 nodes, mapped onto the WHOLE half line by x = a + c tan(pi (t + 1) / 4) (no truncation; the library
    truncates the interval and uses its own 48-node rule).
  * Determinants, solves and traces: LU with partial pivoting written here in numpy.longdouble.
  * F2(s) = det(I - K_Ai) on L^2(s, inf); F1(s) = det(I - B_s), F4u(s) = (det(I - B_s) + det(I + B_s)) / 2 with
    B_s(x, y) = Ai(x + y + s) on L^2(0, inf); F4 (Tracy-Widom 1996 original convention) = F4u(sqrt(2) s).
  * Densities: -tr((I - K_s)^(-1) dK_s/ds) times the determinant, with dK_s/ds formed from the kernel's
    derivative in s along the mapped nodes (general form; the library uses the special Ai x Ai identity for
    beta = 2); cross-checked here against an 8th-order central difference of the CDF (h = 1/128).
  * Quantiles: Newton's method on F(s) = p in longdouble, stopped at |step| < 1e-17.
The script checks itself (printed and written into the CSV header): 96 vs 192 nodes, and the finite-difference
density, at a subset of the grid.

CSV columns: kind (grid | quantile | moment), beta (4 = the original Tracy-Widom 1996 convention), s, cdf, pdf.
Quantile rows hold s = F^(-1)(p) with cdf = p exactly (the p of the row) and pdf = f(s). Moment rows hold the
order in s (1 mean, 2 variance, 3 skewness, 4 excess kurtosis) and the value in cdf (pdf = 0).
"""

import datetime
import math
import os
import sys

import mpmath
import numpy as np
from mpmath import mp
from mpmath.calculus.quadrature import GaussLegendre

mp.dps = 30
LD = np.longdouble

# ----------------------------------------------------------------------------------------------------------------
# Airy function: anchors from mpmath, Taylor propagation in longdouble.
AIRY_LO, AIRY_HI, AIRY_STEP, AIRY_DEGREE = -32, 64, mp.mpf(1) / 8, 26


def airy_anchor_table():
    count = int((AIRY_HI - AIRY_LO) / AIRY_STEP) + 1
    coeffs = np.zeros((count, AIRY_DEGREE + 1), dtype=LD)
    for a in range(count):
        x0 = mp.mpf(AIRY_LO) + a * AIRY_STEP
        c = [mp.airyai(x0), mp.airyai(x0, derivative=1)]
        c.append(x0 * c[0] / 2)
        for k in range(1, AIRY_DEGREE - 1):  # (k+1)(k+2) c_{k+2} = x0 c_k + c_{k-1}
            c.append((x0 * c[k] + c[k - 1]) / ((k + 1) * (k + 2)))
        coeffs[a, :] = [LD(mp.nstr(v, 25, strip_zeros=False)) for v in c]
    return coeffs


COEFFS = airy_anchor_table()


def airy(x):
    """Ai(x), Ai'(x) for a longdouble array x >= AIRY_LO (0 beyond AIRY_HI)."""
    x = np.asarray(x, dtype=LD)
    assert np.all(x >= AIRY_LO - 1e-12), "Airy argument below the anchor table"
    inside = x <= AIRY_HI
    xi = np.where(inside, x, LD(0))
    idx = np.rint((xi - LD(AIRY_LO)) * 8).astype(np.int64)
    h = xi - (LD(AIRY_LO) + idx.astype(LD) / 8)
    c = COEFFS[idx]
    value = c[..., AIRY_DEGREE].copy()
    slope = AIRY_DEGREE * c[..., AIRY_DEGREE]
    for k in range(AIRY_DEGREE - 1, 0, -1):
        value = value * h + c[..., k]
        slope = slope * h + k * c[..., k]
    value = value * h + c[..., 0]
    return np.where(inside, value, LD(0)), np.where(inside, slope, LD(0))


# ----------------------------------------------------------------------------------------------------------------
# Quadrature on [a, inf): x = a + c tan(pi (t + 1) / 4), t Gauss-Legendre on [-1, 1].
def gauss_legendre(degree):
    nodes = GaussLegendre(mp).calc_nodes(degree, mp.prec)  # 3 * 2^(degree - 1) nodes
    t = np.array([LD(mp.nstr(x, 25)) for x, _ in nodes], dtype=LD)
    w = np.array([LD(mp.nstr(v, 25)) for _, v in nodes], dtype=LD)
    return t, w


RULES = {96: gauss_legendre(6), 192: gauss_legendre(7)}
PI = LD(mp.nstr(mp.pi, 25))


def half_line(a, c, m):
    t, w = RULES[m]
    angle = PI * (t + 1) / 4
    x = LD(a) + c * np.tan(angle)
    dx = c * (PI / 4) / np.cos(angle) ** 2
    return x, w * dx


# ----------------------------------------------------------------------------------------------------------------
# Longdouble LU with partial pivoting.
def lu(a):
    a = a.copy()
    n = a.shape[0]
    perm = np.arange(n)
    sign = 1
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if p != k:
            a[[k, p]] = a[[p, k]]
            perm[[k, p]] = perm[[p, k]]
            sign = -sign
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a, perm, sign


def lu_det(factor):
    a, _, sign = factor
    return sign * np.prod(np.diag(a))


def lu_solve(factor, b):
    a, perm, _ = factor
    x = b[perm].copy()
    n = a.shape[0]
    for i in range(n):  # L y = P b (unit lower)
        x[i] -= a[i, :i] @ x[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (x[i] - a[i, i + 1:] @ x[i + 1:]) / a[i, i]
    return x


# ----------------------------------------------------------------------------------------------------------------
# F2 and f2: Airy kernel on (s, inf). dK_s/ds for K_s(x, y) = K_Ai(x, y) on nodes x = s + u (u fixed) is
# (d_x + d_y) K_Ai, formed here from the explicit partial derivatives (Ai'' = x Ai), N = Ai(x) Ai'(y) - Ai'(x) Ai(y):
#   d_x K = (Ai'(x) Ai'(y) - x Ai(x) Ai(y)) / (x - y) - K / (x - y),
#   d_y K = (y Ai(x) Ai(y) - Ai'(x) Ai'(y)) / (x - y) + K / (x - y).
def f2(s, m=96):
    x, w = half_line(s, LD(4), m)
    ai, aip = airy(x)
    rw = np.sqrt(w)
    X, Y = np.meshgrid(x, x, indexing="ij")
    AX, AY = np.meshgrid(ai, ai, indexing="ij")
    PX, PY = np.meshgrid(aip, aip, indexing="ij")
    diff = X - Y
    np.fill_diagonal(diff, 1)
    k = (AX * PY - PX * AY) / diff
    dxk = (PX * PY - X * AX * AY) / diff - k / diff
    dyk = (AX * Y * AY - PX * PY) / diff + k / diff
    dk = dxk + dyk
    diag_k = aip**2 - x * ai**2
    np.fill_diagonal(k, diag_k)
    # on the diagonal, d/ds [Ai'(x+s)^2 - (x+s) Ai(x+s)^2] = 2 Ai' x Ai - Ai^2 - 2 x Ai Ai' = -Ai^2
    np.fill_diagonal(dk, -ai**2)
    kw = rw[:, None] * k * rw[None, :]
    dkw = rw[:, None] * dk * rw[None, :]
    factor = lu(np.eye(m, dtype=LD) - kw)
    det = lu_det(factor)
    trace = np.trace(lu_solve(factor, dkw))
    return det, -det * trace


# F1, F4u and their densities: B_s(x, y) = Ai(x + y + s) on (0, inf).
def hankel(s, m=96):
    c = LD(max(3.0, 3.0 - s / 4.0))
    x, w = half_line(0, c, m)
    rw = np.sqrt(w)
    z = x[:, None] + x[None, :] + LD(s)
    ai, aip = airy(z)
    b = rw[:, None] * ai * rw[None, :]
    db = rw[:, None] * aip * rw[None, :]
    eye = np.eye(m, dtype=LD)
    minus, plus = lu(eye - b), lu(eye + b)
    dm, dp = lu_det(minus), lu_det(plus)
    dm_prime = -dm * np.trace(lu_solve(minus, db))
    dp_prime = dp * np.trace(lu_solve(plus, db))
    return dm, dp, dm_prime, dp_prime


SQRT2 = LD(mp.nstr(mp.sqrt(2), 25))


def tw(s, beta, m=96):
    """(F, f) at s; beta = 4 in the original Tracy-Widom convention F4(s) = F4u(sqrt 2 s)."""
    s = LD(s)
    if beta == 2:
        return f2(s, m)
    if beta == 1:
        dm, _, dmp, _ = hankel(s, m)
        return dm, dmp
    dm, dp, dmp, dpp = hankel(SQRT2 * s, m)
    return (dm + dp) / 2, SQRT2 * (dmp + dpp) / 2


def quantile(p, beta):
    s = LD({1: -1.2, 2: -1.77, 4: -2.3}[beta])
    for _ in range(60):
        cdf, pdf = tw(s, beta)
        step = (cdf - LD(p)) / pdf
        step = max(min(step, LD(1)), LD(-1))
        s -= step
        if abs(step) < 1e-17:
            break
    else:
        raise RuntimeError(f"quantile p={p} beta={beta} did not converge")
    return s


def moments(beta):
    """Mean, variance, skewness, excess kurtosis by 96-node Gauss-Legendre on panels of width 4 (the library uses
    20 nodes per unit panel) over ranges whose tails carry |s|^4 f(s) < 1e-17."""
    left, right = {1: (-10.5, 18.5), 2: (-9.5, 10.5), 4: (-9.0, 8.0)}[beta]
    t, w = RULES[96]
    raw = [LD(0)] * 5
    edges = np.linspace(left, right, int(math.ceil((right - left) / 4)) + 1)
    for a, b in zip(edges[:-1], edges[1:]):
        half, mid = LD(b - a) / 2, LD(b + a) / 2
        for ti, wi in zip(t, w):
            s = mid + half * ti
            weight = half * wi * tw(s, beta)[1]
            raw = [r + weight * s**j for j, r in enumerate(raw)]
    mean = raw[1] / raw[0]
    var = raw[2] / raw[0] - mean**2
    m3 = raw[3] / raw[0] - 3 * mean * raw[2] / raw[0] + 2 * mean**3
    m4 = raw[4] / raw[0] - 4 * mean * raw[3] / raw[0] + 6 * mean**2 * raw[2] / raw[0] - 3 * mean**4
    return [mean, var, m3 / var**LD(1.5), m4 / var**2 - 3, raw[0] - 1]


def fmt(v):
    return np.format_float_scientific(v, precision=20, unique=False)


def main():
    grids = {
        2: [i / 4 for i in range(-36, 25)],   # -9 .. 6
        1: [i / 4 for i in range(-40, 33)],   # -10 .. 8
        4: [i / 4 for i in range(-36, 21)],   # -9 .. 5 (original convention)
    }
    probabilities = ["0.01", "0.05", "0.1", "0.5", "0.9", "0.95", "0.99"]
    rows = []
    for beta, grid in grids.items():
        for s in grid:
            cdf, pdf = tw(s, beta)
            rows.append(("grid", beta, LD(s), cdf, pdf))
        print(f"beta {beta}: grid done", file=sys.stderr)
    for beta in (1, 2, 4):
        for p in probabilities:
            s = quantile(p, beta)
            _, pdf = tw(s, beta)
            rows.append(("quantile", beta, s, p, pdf))
        print(f"beta {beta}: quantiles done", file=sys.stderr)

    for beta in (1, 2, 4):
        values = moments(beta)
        for j, v in enumerate(values[:4], start=1):
            rows.append(("moment", beta, j, v, LD(0)))
        print(f"beta {beta}: moments {[float(v) for v in values]}", file=sys.stderr)

    # Self-checks on a subset: node doubling and finite-difference densities (8th order, h = 1/128).
    check_points = [-8.0, -6.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0]
    stencil = [(1, LD(4) / 5), (2, -LD(1) / 5), (3, LD(4) / 105), (4, -LD(1) / 280)]
    h = LD(1) / 128
    doubling, fd = 0.0, 0.0
    for beta in (1, 2, 4):
        for s in check_points:
            cdf, pdf = tw(s, beta)
            cdf2, pdf2 = tw(s, beta, 192)
            doubling = max(doubling, float(abs(cdf - cdf2)), float(abs(pdf - pdf2)))
            derivative = sum(c * (tw(LD(s) + j * h, beta)[0] - tw(LD(s) - j * h, beta)[0]) for j, c in stencil) / h
            fd = max(fd, float(abs(derivative - pdf)))
    print(f"self-check: 96 vs 192 nodes {doubling:.2e}, finite-difference density {fd:.2e}", file=sys.stderr)

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracy_widom_reference.csv")
    with open(path, "w") as out:
        out.write("# generator: tests/data/spectra/gen_tracy_widom_reference.py\n")
        out.write(f"# mpmath: {mpmath.__version__} (dps {mp.dps}: Airy anchors, Gauss-Legendre nodes);"
                  f" numpy {np.__version__} longdouble (eps {np.finfo(LD).eps:.3g}): Taylor propagation, kernels, LU\n")
        out.write("# quadrature: 96 Gauss-Legendre nodes mapped to the half line by a + c tan(pi (t + 1) / 4);"
                  " F2: Airy kernel on (s, inf), c = 4; F1, F4: Ai(x + y + s) on (0, inf), c = max(3, 3 - s/4)\n")
        out.write(f"# self-check: max |96 - 192 nodes| = {doubling:.2e} (CDF, density); max |8th-order finite"
                  f" difference (h = 1/128) - density| = {fd:.2e}; at s in {check_points}, beta 1, 2, 4\n")
        out.write("# beta 4: original Tracy-Widom (1996) convention F4(s) = F4u(sqrt(2) s)\n")
        out.write("# quantile rows: s = F^(-1)(p), cdf = p, pdf = f(s); Newton in longdouble to |step| < 1e-17\n")
        out.write("# moment rows: s = 1 mean, 2 variance, 3 skewness, 4 excess kurtosis; cdf = the value (96-node"
                  " Gauss-Legendre panels of width 4 over [-10.5, 18.5], [-9.5, 10.5], [-9, 8] for beta 1, 2, 4)\n")
        out.write(f"# date: {datetime.date.today().isoformat()}\n")
        out.write("kind,beta,s,cdf,pdf\n")
        for kind, beta, s, cdf, pdf in rows:
            s_text = repr(float(s)) if kind == "grid" else str(s) if kind == "moment" else fmt(s)
            cdf_text = cdf if kind == "quantile" else fmt(cdf)
            out.write(f"{kind},{beta},{s_text},{cdf_text},{fmt(pdf)}\n")
    print(f"wrote {len(rows)} rows to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
