#!/usr/bin/python3
"""Reference values of the information-plus-noise spike map for tests/spectra/info_plus_noise_test.cpp.

Run from the repository root:  /usr/bin/python3 tests/data/spectra/gen_info_plus_noise_reference.py
(under a second; Debian python3-mpmath). Writes tests/data/spectra/info_plus_noise_reference.csv.

The closed forms (Loubaton & Vallet 2011, Thm 6; Benaych-Georges & Nadakuditi 2012, Sec. 3.1) evaluated in mpmath
at mp.dps = 40, where nothing overflows, for lambda up to 1e308 (the library's product
(sigma2 + lambda)(c sigma2 + lambda) overflowed above lambda ~ 1e154):
    rho = (sigma2 + lambda)(c sigma2 + lambda) / lambda            (lambda > sqrt(c) sigma2),
    inverse: the larger root of l^2 + (sigma2 + c sigma2 - rho) l + c sigma2^2 = 0, at rho = the double of rho,
    left overlap (t^2 - c)/(t (t + c)), right overlap (t^2 - c)/(t (t + 1)), t = lambda / sigma2.
Inputs are the doubles written in the CSV; every value is rounded once to double.
"""
import datetime
import os

import mpmath as mp

mp.mp.dps = 40
HERE = os.path.dirname(os.path.abspath(__file__))
LAMBDAS = ["2", "1e10", "1e150", "1e154", "1e160", "1e200", "1e300", "1e308"]
RATIOS = ["0.5", "1e-6", "1e6"]
SCALES = ["1", "1e-3", "10"]


def main():
    lines = [
        "# reference: information-plus-noise spike limit, its inverse and the singular-vector overlaps",
        "# generator: tests/data/spectra/gen_info_plus_noise_reference.py",
        f"# mpmath: {mp.__version__}, mp.dps = {mp.mp.dps}; values rounded once to double",
        f"# date: {datetime.date.today().isoformat()}",
        "lambda,c,sigma2,eigenvalue_limit,inverse_of_limit,left_overlap,right_overlap",
    ]
    for ls in LAMBDAS:
        for cs in RATIOS:
            for ss in SCALES:
                lam, c, s2 = mp.mpf(float(ls)), mp.mpf(float(cs)), mp.mpf(float(ss))
                if not lam > mp.sqrt(c) * s2:
                    continue
                rho = (s2 + lam) * (c * s2 + lam) / lam
                if rho > mp.mpf(float("1.7976931348623157e308")):
                    continue  # not a double
                rho_d = mp.mpf(float(rho))
                b = rho_d - s2 - c * s2
                inverse = (b + mp.sqrt(b * b - 4 * c * s2 * s2)) / 2
                t = lam / s2
                left = (t * t - c) / (t * (t + c))
                right = (t * t - c) / (t * (t + 1))
                lines.append(",".join([repr(float(lam)), repr(float(c)), repr(float(s2)), repr(float(rho)),
                                       repr(float(inverse)), repr(float(left)), repr(float(right))]))
    with open(os.path.join(HERE, "info_plus_noise_reference.csv"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
