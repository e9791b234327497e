#!/usr/bin/env python3
"""CPU-vs-CUDA agreement of two moelab CSVs of the same scenario (bench/gpu_run.sh).

Rows must match in number and in every non-numeric column; numeric columns are compared value by
value and the largest absolute and relative differences are printed per column. The device draws
the same random numbers at the same addresses, so differences come only from rounding (scores
summed in another order, CUDA's log/sin/cos): a routing point changes region only on a rounding tie
(~1e-13 a point), an eigenvalue moves by the solvers' backward error (~1e-13 relative).
Exit 0 when every relative difference is <= 1e-6, 1 otherwise (the table says where), 2 on bad input.
  gpu_compare_csv.py CPU.csv CUDA.csv
"""
import csv
import math
import sys


def read(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    if not rows:
        sys.exit(f"gpu_compare_csv: {path}: no header")
    return rows[0], rows[1:]


def number(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    ha, ra = read(sys.argv[1])
    hb, rb = read(sys.argv[2])
    if ha != hb or len(ra) != len(rb):
        print(f"structure differs: columns {ha} vs {hb}, rows {len(ra)} vs {len(rb)}")
        sys.exit(1)
    worst = {}
    text_mismatch = 0
    for x, y in zip(ra, rb):
        for c, (u, v) in enumerate(zip(x, y)):
            nu, nv = number(u), number(v)
            if nu is None or nv is None:
                text_mismatch += u != v
                continue
            if math.isnan(nu) and math.isnan(nv):
                continue
            ab = abs(nu - nv)
            rel = ab / max(abs(nu), abs(nv), 1e-300) if ab > 0 else 0.0
            w = worst.setdefault(ha[c], [0.0, 0.0, 0])
            w[0] = max(w[0], ab)
            w[1] = max(w[1], rel)
            w[2] += u != v
    print(f"{len(ra)} rows, {len(ha)} columns; non-numeric mismatches: {text_mismatch}")
    print(f"{'column':32s} {'max_abs_diff':>14s} {'max_rel_diff':>14s} {'cells_differing':>16s}")
    bad = text_mismatch > 0
    for name, (ab, rel, n) in worst.items():
        print(f"{name:32s} {ab:14.3e} {rel:14.3e} {n:16d}")
        bad |= rel > 1e-6
    print("AGREE (every relative difference <= 1e-6)" if not bad else "DISAGREE (a relative difference > 1e-6, or a key column)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
