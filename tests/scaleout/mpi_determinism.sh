#!/bin/bash
# mpi_determinism.sh MOELAB_EXE SOURCE_DIR WORK_DIR: `moelab run` and `moelab check --only` under
# mpirun with 1, 2 and 3 ranks (one OpenMP thread each, --oversubscribe on this 2-core machine) must
# give the bytes of the run without mpirun; a bad scenario must give exit 2 and one message.
# Exit 77 (CTest: skipped) when the build has no MPI or mpirun is missing.
set -u
exe=$1 src=$2 work=$3
if ! "$exe" --version | grep -Eq 'MPI +yes'; then
  echo "SKIPPED: moelab was built without MPI (MOELAB_MPI=OFF, or no MPI found at configure time)"
  exit 77
fi
if ! command -v mpirun >/dev/null; then
  echo "SKIPPED: mpirun not found (Debian: openmpi-bin)"
  exit 77
fi
# Containers run as root; Open MPI refuses root without these (docs/scaleout.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
mpi() { local n=$1; shift; mpirun -n "$n" --oversubscribe --bind-to none "$exe" "$@"; }
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
same() {  # same LABEL FILE_A FILE_B
  if cmp -s "$2" "$3"; then echo "ok: $1"; else echo "FAILED: $1 ($2 and $3 differ)"; diff "$2" "$3" | head -5; failures=$((failures + 1)); fi
}

# 1. A sweep of 9 points of a Monte-Carlo study (whole points shared out by weight; the heaviest,
#    n = 400, is over 1/R of the work, so its trials are split over the ranks).
cat > "$work/sweep.toml" <<'TOML'
study = "noisy.excess_risk"
[model]
k = 2
block_size = 3
sigma2 = 0.5
[model.covariance]
kind = "toeplitz"
rho = 0.3
[model.beta]
kind = "random"
seed = 5
[sweep]
"params.n" = [4, 6, 8, 12, 16, 24, 40, 60, 400]
[monte_carlo]
trials = 41
seed = 3
TOML
"$exe" run "$work/sweep.toml" --threads 1 -o "$work/sweep_serial.csv" >/dev/null || { echo "FAILED: serial run"; exit 1; }
for r in 1 2 3; do
  mpi "$r" run "$work/sweep.toml" -o "$work/sweep_$r.csv" > "$work/sweep_$r.log" 2>&1 || { echo "FAILED: run under $r ranks"; cat "$work/sweep_$r.log"; exit 1; }
  same "run, $r ranks vs no mpirun" "$work/sweep_serial.csv" "$work/sweep_$r.csv"
  [ -e "$work/sweep_$r.csv.journal" ] && { echo "FAILED: journal left after a successful run"; failures=$((failures + 1)); }
done
# Exactly one "wrote" line: ranks > 0 print nothing.
n=$(grep -c '^wrote ' "$work/sweep_3.log"); [ "$n" = 1 ] || { echo "FAILED: $n 'wrote' lines under 3 ranks"; failures=$((failures + 1)); }

# 2. One point only: its trials are split over every rank.
sed -e 's/^"params.n" = .*/"params.n" = [30]/' "$work/sweep.toml" > "$work/one.toml"
"$exe" run "$work/one.toml" --threads 1 -o "$work/one_serial.csv" >/dev/null || exit 1
for r in 2 3; do
  mpi "$r" run "$work/one.toml" -o "$work/one_$r.csv" >/dev/null 2>&1 || { echo "FAILED: one-point run under $r ranks"; exit 1; }
  same "one point, trials split over $r ranks" "$work/one_serial.csv" "$work/one_$r.csv"
done

# 3. check on a small subset of claims, shared out over ranks.
only='sparsity.*'
"$exe" check --quick --only "$only" --threads 1 --out-dir "$work/check_serial" >/dev/null
rc_serial=$?
for r in 1 2 3; do
  mpi "$r" check --quick --only "$only" --out-dir "$work/check_$r" >/dev/null 2>&1
  rc=$?
  [ "$rc" = "$rc_serial" ] || { echo "FAILED: check under $r ranks exited $rc, without mpirun $rc_serial"; failures=$((failures + 1)); }
  same "check.csv, $r ranks" "$work/check_serial/check.csv" "$work/check_$r/check.csv"
  same "check.md, $r ranks" "$work/check_serial/check.md" "$work/check_$r/check.md"
done

# 4. Bad input under 3 ranks: exit 2, one message from moelab, no output.
sed -e 's/^sigma2 = .*/sigma2 = -1/' "$work/sweep.toml" > "$work/bad.toml"
mpi 3 run "$work/bad.toml" -o "$work/bad.csv" > "$work/bad.log" 2>&1
rc=$?
n=$(grep -c '^moelab: error' "$work/bad.log")
if [ "$rc" = 2 ] && [ "$n" = 1 ] && [ ! -e "$work/bad.csv" ]; then echo "ok: bad input under 3 ranks: exit 2, one message, no output"
else echo "FAILED: bad input under 3 ranks: exit $rc, $n messages"; cat "$work/bad.log"; failures=$((failures + 1)); fi

echo "$failures failure(s)"
[ "$failures" = 0 ]
