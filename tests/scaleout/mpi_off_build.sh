#!/bin/bash
# mpi_off_build.sh MOELAB_EXE SOURCE_DIR WORK_DIR GENERATOR BUILD_TYPE BLAS ARCH: configures and builds
# the executable with -DMOELAB_MPI=OFF (the same generator, build type, BLAS and -march choice as the
# build under test, CUDA off) and checks that it runs the scenario of mpi_determinism.sh to the same
# CSV as MOELAB_EXE (an MPI build, run without mpirun), the `# tool:` line aside (it names the
# backends compiled in: "MPI no" against "MPI yes"). The non-MPI build must stay what it was before
# MPI: same library, same numbers.
# Cost: a second build of the whole library (1010 s the first time on this 2-core machine under a load
# of 10-15; 5 s when nothing changed since), hence the label
# "slow" (`make test-slow`), not `make test`. The build directory is kept, so a re-run only
# rebuilds what changed. Exit 77 (skipped) when MOELAB_EXE has no MPI: then it IS the non-MPI build.
set -u
exe=$1 src=$2 work=$3 generator=$4 build_type=$5 blas=$6 arch=$7
if ! "$exe" --version | grep -Eq 'MPI +yes'; then
  echo "SKIPPED: the build under test has no MPI: it is itself the MOELAB_MPI=OFF build"
  exit 77
fi
mkdir -p "$work" || exit 1
cmake -S "$src" -B "$work/build" -G "$generator" -DCMAKE_BUILD_TYPE="$build_type" -DMOELAB_MPI=OFF -DMOELAB_CUDA=OFF \
  -DMOELAB_BLAS="$blas" -DMOELAB_ARCH="$arch" -DMOELAB_PYTHON=OFF -DMOELAB_BUILD_TESTS=OFF -DMOELAB_BUILD_BENCH=OFF \
  > "$work/configure.log" 2>&1 || { echo "FAILED: configure with -DMOELAB_MPI=OFF"; tail -20 "$work/configure.log"; exit 1; }
cmake --build "$work/build" --target moelab_exe -j "$(nproc)" > "$work/build.log" 2>&1 ||
  { echo "FAILED: build with -DMOELAB_MPI=OFF"; tail -30 "$work/build.log"; exit 1; }
off="$work/build/bin/moelab"
if ! "$off" --version | grep -Eq 'MPI +no'; then
  echo "FAILED: the -DMOELAB_MPI=OFF build reports MPI:"; "$off" --version; exit 1
fi
cp "$src/tests/scaleout/sweep.toml" "$work/sweep.toml"
"$exe" run "$work/sweep.toml" --threads 1 -o "$work/mpi.csv" >/dev/null || { echo "FAILED: run with the MPI build"; exit 1; }
"$off" run "$work/sweep.toml" --threads 2 -o "$work/off.csv" >/dev/null || { echo "FAILED: run with the non-MPI build"; exit 1; }
if cmp -s <(grep -v '^# tool:' "$work/mpi.csv") <(grep -v '^# tool:' "$work/off.csv"); then
  echo "ok: -DMOELAB_MPI=OFF builds, and its CSV equals the MPI build's (tool line aside)"
else
  echo "FAILED: the -DMOELAB_MPI=OFF build's CSV differs from the MPI build's"
  diff <(grep -v '^# tool:' "$work/mpi.csv") <(grep -v '^# tool:' "$work/off.csv") | head -5
  exit 1
fi
