#!/usr/bin/python3
"""Deep-left-tail reference values of the Tracy-Widom laws F1, F2, F4u for tests/spectra/tracy_widom_test.cpp.

Run from the repository root:  /usr/bin/python3 tests/data/spectra/gen_tracy_widom_left_tail.py
(about four minutes; Debian python3-mpmath). Writes tests/data/spectra/tracy_widom_left_tail.csv.

Method, independent of the library's Fredholm determinants (and of its left-tail series): the Painleve II
representation (Tracy-Widom 1994, 1996). q is the Hastings-McLeod solution of q'' = s q + 2 q^3, q ~ Ai(s) as
s -> +inf; with I(s) = int_s^inf q^2, J(s) = int_s^inf x q^2, u(s) = int_s^inf q:
    log F2(s) = -(J - s I),               f2 = F2 I,
    F1(s) = exp(-u/2) F2^(1/2),           f1 = F1 (q + I) / 2,
    F4u(s) = cosh(u/2) F2^(1/2),          f4u = F4u (I - q tanh(u/2)) / 2   (unscaled beta = 4; F4 in the
                                          sqrt(2) convention is F4u(sqrt(2) s)).
The system (q, q', I, J, u) is integrated by mpmath.odefun (Taylor series method, tolerance = working precision)
from s0 = 30, started on the Airy solution (q = Ai + O(Ai^3): relative error Ai(30)^2 ~ 1e-96) with I, J, u from
quadratures of Ai. Backward integration is stable for s > 0 (the Ai mode grows); for s < 0 perturbations grow
like exp((2 sqrt 2 / 3) |s|^(3/2)) (about 1e26 at s = -16), so mp.dps = 60 leaves > 30 correct digits.
Every value is rounded once to double. The script checks itself against two published values
(F2(0) = 0.96937282835526..., F2(-2) = 0.41322414250512..., Bornemann 2010 / Prahofer-Spohn tables) and the
library's determinant range overlaps the grid (s >= -9 / -10 / -12), which the test also compares.

CSV columns: beta (1, 2, 4 = unscaled F4u), s, cdf, pdf, log_cdf (natural log of the cdf: the deep tail
underflows double below s ~ -20).
"""
import datetime
import os
import time

import mpmath as mp

mp.mp.dps = 60
HERE = os.path.dirname(os.path.abspath(__file__))
S0 = mp.mpf(30)
# Grid (s): the library's determinant range down to its old cuts and the series range beyond them.
GRID = [mp.mpf(k) / 8 for k in range(-24, -16 * 8 - 1, -1)]  # -3 ... -16 step 1/8


def main():
    start = time.time()
    a0, a1 = mp.airyai(S0), mp.airyai(S0, derivative=1)
    i0 = mp.quad(lambda x: mp.airyai(x) ** 2, [S0, mp.inf])
    j0 = mp.quad(lambda x: x * mp.airyai(x) ** 2, [S0, mp.inf])
    u0 = mp.quad(mp.airyai, [S0, mp.inf])

    # Integrate in r = -s upward (mpmath.odefun integrates forward).
    def rhs(r, y):
        s = -r
        q, qp, _, _, _ = y
        return [-qp, -(s * q + 2 * q ** 3), q * q, s * q * q, q]

    sol = mp.odefun(rhs, -S0, [a0, a1, i0, j0, u0])

    def laws(s):
        q, _, i, j, u = sol(-s)
        log_f2 = -(j - s * i)
        f2 = mp.exp(log_f2)
        log_f1 = -u / 2 + log_f2 / 2
        log_f4 = mp.log(mp.cosh(u / 2)) + log_f2 / 2
        return {
            1: (mp.exp(log_f1), mp.exp(log_f1) * (q + i) / 2, log_f1),
            2: (f2, f2 * i, log_f2),
            4: (mp.exp(log_f4), mp.exp(log_f4) * (i - q * mp.tanh(u / 2)) / 2, log_f4),
        }

    check0 = laws(mp.mpf(0))[2][0]
    check2 = laws(mp.mpf(-2))[2][0]
    assert abs(check0 - mp.mpf("0.96937282835526")) < 1e-14, check0
    assert abs(check2 - mp.mpf("0.41322414250512")) < 1e-14, check2
    rows = {1: [], 2: [], 4: []}
    for s in GRID:
        for beta, (cdf, pdf, log_cdf) in laws(s).items():
            rows[beta].append(f"{beta},{float(s)!r},{float(cdf)!r},{float(pdf)!r},{float(log_cdf)!r}")
    lines = [
        "# reference: Tracy-Widom F1, F2, F4u (unscaled) in the deep left tail, by Painleve II (Hastings-McLeod)",
        "# generator: tests/data/spectra/gen_tracy_widom_left_tail.py",
        f"# mpmath: {mp.__version__}, mp.dps = {mp.mp.dps}, odefun (taylor) from s0 = {int(S0)} on the Airy solution",
        f"# self-check: F2(0) = {mp.nstr(check0, 17)}, F2(-2) = {mp.nstr(check2, 17)} (published 0.96937282835526, "
        "0.41322414250512)",
        f"# date: {datetime.date.today().isoformat()}",
        "beta,s,cdf,pdf,log_cdf",
    ]
    for beta in (1, 2, 4):
        lines += rows[beta]
    with open(os.path.join(HERE, "tracy_widom_left_tail.csv"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"wrote tracy_widom_left_tail.csv in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
