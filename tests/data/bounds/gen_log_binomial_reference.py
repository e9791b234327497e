#!/usr/bin/python3
"""Reference values of log C(n, k) and of the Sauer-Shelah / Haussler-Long sums for tests/bounds/growth_test.cpp.

Run from the repository root:  /usr/bin/python3 tests/data/bounds/gen_log_binomial_reference.py
(a few seconds; Debian python3-mpmath). Writes tests/data/bounds/log_binomial_reference.csv.

Independent of lib/moelab/bounds/growth.cpp (which sums logs for min(k, n - k) <= 64 and uses Stirling's series
with the n log n terms cancelled analytically above): here log C(n, k) = loggamma(n + 1) - loggamma(k + 1)
- loggamma(n - k + 1) in mpmath at mp.dps = 60 (the cancellation of up to 17 digits at n = 1e15 leaves > 40),
and the sums sum_{i=0}^{min(d, m)} C(m, i) w^i (w = 1: Sauer-Shelah; w = C(labels, 2): Haussler-Long) are
summed exactly in mpmath from the binomials. Every value is rounded once to double.

CSV columns: kind (binomial | sauer_shelah | haussler_long), n (or m), k (or d), labels (0 for binomial and
Sauer-Shelah), value (the natural log).
"""
import datetime
import os

import mpmath as mp

mp.mp.dps = 60
HERE = os.path.dirname(os.path.abspath(__file__))

NS = [130, 1000, 10 ** 4, 10 ** 6, 10 ** 9, 10 ** 12, 10 ** 15, 2 ** 53 - 1]
KS = [1, 2, 63, 64, 65, 66, 100, 200, 1000, 10 ** 4, 10 ** 6, 10 ** 9, 10 ** 12]
SUMS = [(10 ** 15, 200, 2), (10 ** 15, 200, 3), (10 ** 12, 100, 2), (10 ** 9, 1000, 5), (10 ** 6, 65, 2),
        (10 ** 6, 2000, 2), (5000, 4000, 2), (10 ** 15, 64, 2), (10 ** 15, 65, 2)]


def log_binomial(n, k):
    n, k = mp.mpf(n), mp.mpf(k)
    return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)


def log_sum(m, d, w):
    total = mp.mpf(0)
    term = mp.mpf(1)  # C(m, i) w^i by the exact term ratio
    for i in range(0, min(d, m) + 1):
        if i > 0:
            term = term * (m - i + 1) / i * w
        total += term
    return mp.log(total)


def main():
    lines = [
        "# reference: log C(n, k) and log sums of C(m, i) w^i (natural logs)",
        "# generator: tests/data/bounds/gen_log_binomial_reference.py",
        f"# mpmath: {mp.__version__}, mp.dps = {mp.mp.dps} (loggamma differences; exact term sums); values rounded once to double",
        f"# date: {datetime.date.today().isoformat()}",
        "kind,n,k,labels,value",
    ]
    for n in NS:
        ks = sorted(set([k for k in KS if k <= n] + [n // 2, n - 65, n - 64, n]))
        for k in ks:
            lines.append(f"binomial,{n},{k},0,{float(log_binomial(n, k))!r}")
    for m, d, labels in SUMS:
        lines.append(f"sauer_shelah,{m},{d},0,{float(log_sum(m, d, 1))!r}")
        lines.append(f"haussler_long,{m},{d},{labels},{float(log_sum(m, d, labels * (labels - 1) // 2))!r}")
    with open(os.path.join(HERE, "log_binomial_reference.csv"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
