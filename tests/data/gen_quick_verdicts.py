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
    print("# id verdict")
    for r in reader:
        print(f"{r['id']} {r['verdict']}")


if __name__ == "__main__":
    main()
