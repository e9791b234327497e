#!/usr/bin/python3
"""Reference values of log C(n, k) at non-integer arguments for tests/core/log_binomial_test.cpp.

Run from the repository root:  /usr/bin/python3 tests/data/core/gen_log_binomial_real_reference.py
(under a second; Debian python3-mpmath). Writes tests/data/core/log_binomial_real_reference.csv.

log C(n, k) = loggamma(n + 1) - loggamma(k + 1) - loggamma(n - k + 1) in mpmath at mp.dps = 60 (the
cancellation of up to 14 digits at n = 1e12 leaves > 40), rounded once to double. The integer-argument
reference is tests/data/bounds/log_binomial_reference.csv (gen_log_binomial_reference.py beside it).
Every n and k below is exactly representable in double, so the C++ test reads the same numbers.

CSV columns: n, k, value (the natural log).
"""
import os

import mpmath as mp

mp.mp.dps = 60
HERE = os.path.dirname(os.path.abspath(__file__))

# Real n with integer j = min(k, n - k) (the product branch), non-integer j <= 64 (lgamma), j > 64 (Stirling).
NS = [2.5, 7.75, 50.5, 130.25, 1000.5, 65536.25, 1e6 + 0.5, 1e9 + 0.5, 1e12 + 0.25]
KS = [0.5, 1.0, 2.5, 3.0, 17.25, 63.5, 64.0, 64.5, 65.0, 100.25, 1000.0, 12345.5]


def log_binomial(n, k):
    n, k = mp.mpf(n), mp.mpf(k)
    return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)


def main():
    lines = [
        "# reference: log C(n, k) at real (non-integer) arguments, natural logs",
        "# generator: tests/data/core/gen_log_binomial_real_reference.py",
        f"# mpmath: {mp.__version__}, mp.dps = {mp.mp.dps} (loggamma differences); values rounded once to double",
        "n,k,value",
    ]
    for n in NS:
        ks = sorted(set([k for k in KS if k <= n] + [n / 2, n - 3.0, n - 64.5, n - 100.0]))
        for k in ks:
            if 0 <= k <= n:
                lines.append(f"{n!r},{k!r},{float(log_binomial(n, k))!r}")
    with open(os.path.join(HERE, "log_binomial_real_reference.csv"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
