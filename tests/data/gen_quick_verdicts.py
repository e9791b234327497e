#!/usr/bin/env python3
"""Writes lib/moelab/catalogue/documented_verdicts.txt (the verdict pins of tests/catalogue/suite_verdicts_test.cpp)
from the check.csv of one whole-suite run at seed 1:

    build/bin/moelab check --quick --seed 1 --out-dir /tmp/qv
    python3 tests/data/gen_quick_verdicts.py /tmp/qv/check.csv > lib/moelab/catalogue/documented_verdicts.txt

Review the diff before committing: a changed verdict is a finding to explain (docs/claims.md), not
something to pin silently.
"""
import csv
import sys


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: gen_quick_verdicts.py CHECK_CSV")
    with open(sys.argv[1], newline="") as f:
        rows = [line for line in f if not line.startswith("#")]
    reader = csv.DictReader(rows)
    print("# The documented verdict of every claim: `moelab check --quick --seed 1` (every test at alpha = 0.01 / the")
    print("# number of registered claims), reviewed and recorded in docs/claims.md. Compiled into the catalogue")
    print("# (`moelab check` reports each claim as documented or changed); checked by tests/catalogue/suite_verdicts_test.cpp.")
    print("# Regenerate: build/bin/moelab check --quick --seed 1 --out-dir /tmp/qv &&")
    print("#   python3 tests/data/gen_quick_verdicts.py /tmp/qv/check.csv > lib/moelab/catalogue/documented_verdicts.txt")
    print("# Columns: id, verdict, then the pins suite_verdicts_test also checks: the printed estimate and its")
    print("# standard error (the estimate must stay within 4 of these standard errors: the draws are keyed by")
    print("# (seed, id), so a change means the experiment changed), and a ceiling on the smallest detectable")
    print("# deviation, 1.25 x today's (a claim that loses its power fails the test, whatever its verdict).")
    print("# id verdict printed_estimate printed_std_error min_detectable_ceiling")
    for r in reader:
        mdd = float(r['min_detectable'])
        ceiling = f"{1.25 * mdd:.6g}" if mdd == mdd else "nan"
        print(f"{r['id']} {r['verdict']} {float(r['printed_estimate']):.17g} {float(r['printed_std_error']):.6g} {ceiling}")


if __name__ == "__main__":
    main()
