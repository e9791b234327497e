#!/usr/bin/env python3
"""Writes tests/data/quick_verdicts.txt (the verdict pins of tests/catalogue/suite_verdicts_test.cpp)
from the check.csv of one whole-suite run at seed 1:

    build/bin/moelab check --quick --seed 1 --out-dir /tmp/qv
    python3 tests/data/gen_quick_verdicts.py /tmp/qv/check.csv > tests/data/quick_verdicts.txt

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
    print("# Verdict of every claim under `moelab check --quick --seed 1` (the whole suite: Holm at alpha = 0.01")
    print("# over every printed + exact test, controls at alpha/m). Checked by tests/catalogue/suite_verdicts_test.cpp.")
    print("# Regenerate: build/bin/moelab check --quick --seed 1 --out-dir /tmp/qv &&")
    print("#   python3 tests/data/gen_quick_verdicts.py /tmp/qv/check.csv > tests/data/quick_verdicts.txt")
    print("# id verdict")
    for r in reader:
        print(f"{r['id']} {r['verdict']}")


if __name__ == "__main__":
    main()
