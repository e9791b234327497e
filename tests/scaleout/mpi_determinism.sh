#!/bin/bash
# mpi_determinism.sh MOELAB_EXE SOURCE_DIR WORK_DIR: `moelab run` and `moelab check --only` under
# mpirun with 1, 2 and 3 ranks (one OpenMP thread each, --oversubscribe on this 2-core machine) must
# give the bytes of the run without mpirun; a bad scenario must give exit 2 and one message;
# `check --seeds` under 1 and 2 ranks the bytes of the serial run; a 2-rank run killed part-way and
# resumed (under 2 ranks, and under 1) the bytes of the uninterrupted run; SIGINT to the ranks gives
# mpirun's exit 130.
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
cp "$src/tests/scaleout/sweep.toml" "$work/sweep.toml"
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

# 5. check --seeds: several suite seeds' (seed, claim) units dealt over the ranks; 1 and 2 ranks give
#    the bytes of the run without mpirun (stability.csv and stability.md: every seed's verdicts).
"$exe" check --quick --only "$only" --seeds 1..3 --threads 1 --out-dir "$work/seeds_serial" >/dev/null 2>&1
rc_serial=$?
for r in 1 2; do
  mpi "$r" check --quick --only "$only" --seeds 1..3 --out-dir "$work/seeds_$r" >/dev/null 2>&1
  rc=$?
  [ "$rc" = "$rc_serial" ] || { echo "FAILED: check --seeds under $r ranks exited $rc, without mpirun $rc_serial"; failures=$((failures + 1)); }
  same "check --seeds 1..3 stability.csv, $r ranks" "$work/seeds_serial/stability.csv" "$work/seeds_$r/stability.csv"
  same "check --seeds 1..3 stability.md, $r ranks" "$work/seeds_serial/stability.md" "$work/seeds_$r/stability.md"
done

# 6. Resume under mpirun: a 2-rank run killed part-way (SIGTERM to mpirun, which forwards it to the
#    ranks; SIGKILL to every process of the job in the second round) and resumed with --resume, under
#    2 ranks and then under 1 (the journal does not depend on the rank count), gives the bytes of the
#    uninterrupted run. The kill is sent once rank 0 has journalled some points and before the CSV
#    exists; a round where the run finished first is reported and not counted as a pass.
n_list=$(seq -s ', ' 4 2 122)  # 60 points, ~50-100 ms each (6000 trials: at 1500 the whole run took 1.2 s
# after the Fig. 3 speed-ups and could finish before the kill)
sed -e "s/^\"params.n\" = .*/\"params.n\" = [$n_list]/" -e 's/^trials = .*/trials = 6000/' "$work/sweep.toml" > "$work/long.toml"
"$exe" run "$work/long.toml" --threads 1 -o "$work/long_serial.csv" >/dev/null || { echo "FAILED: serial long run"; exit 1; }
for round in 1 2; do
  out="$work/long_$round.csv"
  journal="$out.journal"
  rm -f "$out" "$journal"
  mpirun -n 2 --oversubscribe --bind-to none "$exe" run "$work/long.toml" -o "$out" > "$work/long_$round.log" 2>&1 &
  job=$!
  # Wait (at most 60 s) for the journal to hold two records after its header: some points done.
  for _ in $(seq 600); do
    [ -s "$journal" ] && awk '/^end-of-header/ { h = 1; next } h { n++ } END { exit !(n >= 2) }' "$journal" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  if [ "$round" = 1 ]; then
    kill -TERM "$job" 2>/dev/null
  else
    kill -KILL $(pgrep -P "$job") "$job" 2>/dev/null  # mpirun and its rank processes, no signal handler runs
  fi
  wait "$job" 2>/dev/null
  if [ -e "$out" ] || [ ! -s "$journal" ]; then
    echo "FAILED: resume round $round: the 2-rank run was not interrupted part-way (CSV present or no journal)"
    failures=$((failures + 1))
    continue
  fi
  ranks=$((3 - round))  # round 1 resumes under 2 ranks, round 2 under 1 (no mpirun)
  if [ "$ranks" = 2 ]; then
    mpi 2 run "$work/long.toml" -o "$out" --resume > "$work/long_resume_$round.log" 2>&1
  else
    "$exe" run "$work/long.toml" --threads 1 -o "$out" --resume > "$work/long_resume_$round.log" 2>&1
  fi
  rc=$?
  [ "$rc" = 0 ] || { echo "FAILED: --resume under $ranks rank(s) exited $rc"; cat "$work/long_resume_$round.log"; failures=$((failures + 1)); continue; }
  same "killed 2-rank run (round $round) resumed under $ranks rank(s)" "$work/long_serial.csv" "$out"
  [ -e "$journal" ] && { echo "FAILED: journal left after the resumed run"; failures=$((failures + 1)); }
done

# 7. An interrupt under mpirun gives the interrupt's code, not 1 ("a verdict changed"): SIGINT sent to
#    the ranks (as srun, a scheduler or `kill` on the rank processes do) stops every rank, which print
#    the message and keep the journal; mpirun then exits 130. (SIGINT to mpirun itself: Open MPI's
#    mpirun sends SIGTERM to the ranks, which stop the same way, but mpirun's own status is 1; see
#    docs/scaleout.md.)
out="$work/int.csv"
rm -f "$out" "$out.journal"
mpirun -n 2 --oversubscribe --bind-to none "$exe" run "$work/long.toml" -o "$out" > "$work/int.log" 2>&1 &
job=$!
for _ in $(seq 600); do
  [ -s "$out.journal" ] && awk '/^end-of-header/ { h = 1; next } h { n++ } END { exit !(n >= 1) }' "$out.journal" && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
kill -INT $(pgrep -P "$job") 2>/dev/null
wait "$job"
rc=$?
if [ -e "$out" ]; then echo "note: interrupt test: the run finished before the signal"
elif [ "$rc" = 130 ] && [ -s "$out.journal" ] && grep -q 'interrupted by SIGINT' "$work/int.log"; then
  echo "ok: SIGINT to the ranks under mpirun: exit 130, message, journal kept"
else echo "FAILED: SIGINT to the ranks under mpirun: exit $rc"; tail -5 "$work/int.log"; failures=$((failures + 1)); fi

echo "$failures failure(s)"
[ "$failures" = 0 ]
