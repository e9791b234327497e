#!/usr/bin/env python3
"""CPU-vs-CUDA agreement of two moelab CSVs of the same scenario (bench/gpu_run.sh).

Rows must match in number and in every non-numeric column; numeric columns are compared value by
value and the largest absolute and relative differences are printed per column.

Default: every numeric column must agree to 1e-6 relative. The device draws the same random numbers
at the same addresses, so differences come only from rounding (scores summed in another order, CUDA's
log/sin/cos): a routing point changes region only on a rounding tie (~1e-13 a point), an eigenvalue
moves by the solvers' backward error (~1e-13 relative).

--assert COLUMN=TOL (repeatable): only the named columns are asserted, each at its own relative
tolerance; the others are tabled, not asserted. For trained studies (trained.sraven: initial_loss_mean
at 1e-5, one float32 forward pass of the same parameters on the same problems, the bound of
tests/moe/transformer_device_emulation_test.cpp), whose other columns come from two float32 training
trajectories that drift apart step by step and from argmaxes of their logits.

Exit 0 when every asserted column agrees, 1 otherwise (the table says where), 2 on bad input.
  gpu_compare_csv.py [--assert COLUMN=TOL ...] CPU.csv CUDA.csv
"""
import csv
import math
import sys


def read(path):
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    except OSError as e:
        print(f"gpu_compare_csv: {path}: {e.strerror}")
        sys.exit(2)
    if not rows:
        print(f"gpu_compare_csv: {path}: no header")
        sys.exit(2)
    return rows[0], rows[1:]


def number(s):
    try:
        return float(s)
    except ValueError:
        return None


def parse_args(argv):
    asserted, files = {}, []
    i = 0
    while i < len(argv):
        if argv[i] == "--assert":
            if i + 1 == len(argv) or "=" not in argv[i + 1]:
                print("gpu_compare_csv: --assert needs COLUMN=TOL")
                sys.exit(2)
            name, tol = argv[i + 1].split("=", 1)
            tol_value = number(tol)
            if tol_value is None or not tol_value >= 0:
                print(f"gpu_compare_csv: --assert {argv[i + 1]}: the tolerance must be a number >= 0")
                sys.exit(2)
            asserted[name] = tol_value
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if len(files) != 2:
        print(__doc__)
        sys.exit(2)
    return asserted, files


def main():
    asserted, (file_a, file_b) = parse_args(sys.argv[1:])
    ha, ra = read(file_a)
    hb, rb = read(file_b)
    if ha != hb or len(ra) != len(rb):
        print(f"structure differs: columns {ha} vs {hb}, rows {len(ra)} vs {len(rb)}")
        sys.exit(1)
    missing = [c for c in asserted if c not in ha]
    if missing:
        print(f"gpu_compare_csv: --assert {missing[0]}: no such column in {file_a}")
        sys.exit(2)
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
    print(f"{'column':32s} {'max_abs_diff':>14s} {'max_rel_diff':>14s} {'cells_differing':>16s}  check")
    bad = text_mismatch > 0
    for name, (ab, rel, n) in worst.items():
        tol = asserted.get(name) if asserted else 1e-6
        verdict = "tabled" if tol is None else ("ok" if rel <= tol else f"FAIL (> {tol:g})")
        bad |= tol is not None and not rel <= tol
        print(f"{name:32s} {ab:14.3e} {rel:14.3e} {n:16d}  {verdict}")
    what = ", ".join(f"{c} <= {t:g}" for c, t in asserted.items()) if asserted else "every relative difference <= 1e-6"
    print(f"AGREE ({what})" if not bad else f"DISAGREE (asserted: {what}; or a key column)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
