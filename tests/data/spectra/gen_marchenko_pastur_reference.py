#!/usr/bin/python3
"""Reference values of the Marchenko-Pastur law for tests/spectra/marchenko_pastur_test.cpp.

Independent code path from lib/moelab/spectra/marchenko_pastur.cpp: only the density
    f(x) = sqrt((b - x)(x - a)) / (2 pi c sigma2 x),  a, b = sigma2 (1 -+ sqrt c)^2,
plus the atom max(0, 1 - 1/c) at 0 is used here. The CDF and survival function are mpmath
tanh-sinh quadratures of f, quantiles are mpmath.findroot (bracketing Anderson-Bjorck) on that
CDF (bisection where that stalls), moments and Stieltjes transforms are quadratures of x^k f and f/(x - z). Every abscissa is a
double (the C++ side evaluates at the same double) and every value is rounded once to double.

Run with Debian's interpreter from the repository root:
    /usr/bin/python3 tests/data/spectra/gen_marchenko_pastur_reference.py
It rewrites marchenko_pastur_{reference,quantiles,moments,stieltjes}.csv next to this file.
"""
import datetime
import os

import mpmath as mp

# 50 digits: at c = 1e-20 the support [a, b] is 4e-10 wide around 1, so differences x - a keep ~40 digits.
mp.mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))
RATIOS = ["0.1", "0.5", "1", "2", "10"]
SCALES = ["1", "0.25", "3"]
# Ratios far from 1 (the closed form cancelled there; the semicircle limit c -> 0 and its mirror
# c -> inf). Only density / cdf / survival / quantiles are tabulated for them.
EXTREME_RATIOS = ["1e-20", "1e-14", "1e-8", "1e-4", "0.01", "0.05", "20", "1e4", "1e8", "1e14"]
EXTREME_SCALES = ["1", "3"]
# Relative positions inside [a, b] (edges approached geometrically to probe edge accuracy).
POSITIONS = ["1e-10", "1e-8", "1e-6", "1e-4", "0.001", "0.01", "0.04", "0.06", "0.1", "0.25", "0.5",
             "0.75", "0.9", "0.94", "0.96", "0.99", "0.999", "0.9999", "0.999999", "0.99999999", "0.9999999999"]
PROBS = ["1e-9", "1e-6", "0.001", "0.01", "0.1", "0.25", "0.5", "0.75", "0.9", "0.99", "0.999", "0.999999"]


def law(c, s2):
    rc = mp.sqrt(c)
    a, b = s2 * (1 - rc) ** 2, s2 * (1 + rc) ** 2
    atom = 1 - 1 / c if c > 1 else mp.mpf(0)
    return a, b, atom


def density(c, s2, x):
    a, b, _ = law(c, s2)
    if x <= a or x >= b:
        return mp.mpf(0)
    return mp.sqrt((b - x) * (x - a)) / (2 * mp.pi * c * s2 * x)


def cdf(c, s2, x):
    a, b, atom = law(c, s2)
    if x < 0:
        return mp.mpf(0)
    if x <= a:
        return atom
    if x >= b:
        return mp.mpf(1)
    return atom + mp.quad(lambda t: density(c, s2, t), [a, x])


def survival(c, s2, x):
    a, b, atom = law(c, s2)
    if x < 0:
        return mp.mpf(1)
    if x <= a:
        return 1 - atom
    if x >= b:
        return mp.mpf(0)
    return mp.quad(lambda t: density(c, s2, t), [x, b])


def quantile(c, s2, p):
    a, b, atom = law(c, s2)
    lower_half = p <= atom + (1 - atom) / 2
    f = (lambda x: cdf(c, s2, x) - p) if lower_half else (lambda x: (1 - p) - survival(c, s2, x))
    try:
        return mp.findroot(f, (a, b), solver="anderson", tol=mp.mpf(10) ** (-45))
    except ValueError:  # Anderson-Bjorck stalls for some ratios far from 1: plain bisection (2^-170 of b - a)
        lo, hi = a, b
        for _ in range(170):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2


def fmt(v):
    return repr(float(v))


def header(name, columns):
    return [
        f"# reference: {name}",
        "# generator: tests/data/spectra/gen_marchenko_pastur_reference.py",
        f"# mpmath: {mp.__version__}",
        f"# precision: mp.dps = {mp.mp.dps} (values rounded once to double)",
        f"# date: {datetime.date.today().isoformat()}",
        "# convention: S = (1/N) X X', X is M x N iid variance sigma2, c = M/N; atom 1 - 1/c at 0 for c > 1",
        ",".join(columns),
    ]


def main():
    ref = header("Marchenko-Pastur density, cdf = P(x' <= x), survival = P(x' > x)",
                 ["c", "sigma2", "x", "density", "cdf", "survival"])
    qs = header("Marchenko-Pastur quantiles inf{x: cdf(x) >= p}", ["c", "sigma2", "p", "x"])
    moms = header("Marchenko-Pastur moments E[x^k] by quadrature of x^k f (atom adds 0)", ["c", "sigma2", "k", "moment"])
    sts = header("Marchenko-Pastur Stieltjes transform m(z) = E[1/(x - z)] by quadrature", ["c", "sigma2", "z_re", "z_im", "m_re", "m_im"])
    for cs in RATIOS + EXTREME_RATIOS:
        c = mp.mpf(cs)
        for ss in (SCALES if cs in RATIOS else EXTREME_SCALES):
            s2 = mp.mpf(ss)
            a, b, atom = law(c, s2)
            xs = [mp.mpf(float(a + mp.mpf(u) * (b - a))) for u in POSITIONS]
            xs += [mp.mpf(float(-s2)), mp.mpf(float(b * 1.5))]
            if a > 0:
                xs += [mp.mpf(float(a / 2))]
            if c > 1:
                xs += [mp.mpf(0)]
            for x in xs:
                ref.append(",".join([cs, ss, fmt(x), fmt(density(c, s2, x)), fmt(cdf(c, s2, x)), fmt(survival(c, s2, x))]))
            ps = [mp.mpf(p) for p in PROBS if mp.mpf(p) > atom]
            if c > 1 and cs in RATIOS:
                ps += [mp.mpf(float(atom + mp.mpf("1e-6"))), mp.mpf(float(atom + mp.mpf("0.01")))]
            elif c > 1:  # the continuous part has mass 1/c: probabilities as fractions of it
                ps = [mp.mpf(float(atom + (1 - atom) * mp.mpf(f))) for f in ["1e-6", "0.01", "0.3", "0.5", "0.9"]]
                ps = [p for p in ps if max(atom, mp.mpf(float(atom))) < p < 1]  # above the double atom too
            for p in ps:
                p = mp.mpf(float(p))
                qs.append(",".join([cs, ss, fmt(p), fmt(quantile(c, s2, p))]))
            if cs not in RATIOS:
                continue
            for k in range(1, 9):
                mk = mp.quad(lambda t: t ** k * density(c, s2, t), [a, (a + b) / 2, b])
                moms.append(",".join([cs, ss, str(k), fmt(mk)]))
            zs = [mp.mpc(float(a + (b - a) * mp.mpf("0.3")), float(s2 / 2)), mp.mpc(float(b + s2), 0),
                  mp.mpc(float(-s2), 0), mp.mpc(float((a + b) / 2), float(2 * s2)), mp.mpc(float(3 * b), float(s2 / 10))]
            for z in zs:
                m = mp.quad(lambda t: density(c, s2, t) / (t - z), [a, (a + b) / 2, b]) - atom / z
                sts.append(",".join([cs, ss, fmt(z.real), fmt(z.imag), fmt(m.real), fmt(m.imag)]))
    for name, lines in [("reference", ref), ("quantiles", qs), ("moments", moms), ("stieltjes", sts)]:
        with open(os.path.join(HERE, f"marchenko_pastur_{name}.csv"), "w") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
