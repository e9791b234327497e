#!/usr/bin/env python3
"""CPU-vs-CUDA agreement of two trained.sraven CSVs of the same scenario (bench/gpu_run.sh, stage sraven).

Rows must match in number and in every non-numeric column. initial_loss_mean (the untrained model's ID
test cross-entropy: one float32 forward pass of the same parameters on the same problems) must agree
to 1e-5 relative: the two sides differ only in summation orders and CUDA's exp/log (the emulation test,
tests/moe/transformer_device_emulation_test.cpp, bounds the same pass at 1e-5). Every other numeric
column comes from two float32 training trajectories whose rounding differences grow with each AdamW
step, and from argmaxes of their logits: their largest differences are printed, not asserted (the
training itself is compared in float64 by tests/gpu/transformer_gpu_main.cpp).
Exit 0 when the structure matches and initial_loss_mean agrees, 1 otherwise, 2 on bad input.
  gpu_compare_sraven.py CPU.csv CUDA.csv
"""
import csv
import math
import sys

ASSERTED = {"initial_loss_mean": 1e-5}


def read(path):
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    except OSError as e:
        print(f"gpu_compare_sraven: {path}: {e.strerror}")
        sys.exit(2)
    if not rows:
        print(f"gpu_compare_sraven: {path}: no header")
        sys.exit(2)
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
    missing = [c for c in ASSERTED if c not in ha]
    if missing:
        print(f"gpu_compare_sraven: not a trained.sraven CSV (no column {missing[0]})")
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
            w = worst.setdefault(ha[c], [0.0, 0.0])
            w[0], w[1] = max(w[0], ab), max(w[1], rel)
    print(f"{len(ra)} rows, {len(ha)} columns; non-numeric mismatches: {text_mismatch}")
    print(f"{'column':32s} {'max_abs_diff':>14s} {'max_rel_diff':>14s}  check")
    bad = text_mismatch > 0
    for name, (ab, rel) in worst.items():
        tol = ASSERTED.get(name)
        verdict = "tabled" if tol is None else ("ok" if rel <= tol else f"FAIL (> {tol:g})")
        bad = bad or (tol is not None and not rel <= tol)
        print(f"{name:32s} {ab:14.3e} {rel:14.3e}  {verdict}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
