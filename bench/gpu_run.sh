#!/usr/bin/env bash
# bench/gpu_run.sh: the ONE command for a session with a GPU. It configures and builds moelab (Release,
# CUDA, sm_90) with the carried Debian dependencies, then runs, in order of value and each under
# `timeout` inside one 9-minute device call (540 s, the build's ~90 s included):
#   1. ctest -L gpu with MOELAB_REQUIRE_GPU=1 (a skip is a failure there) and the CPU test of the
#      GPU tests' tolerances (test_gpu_tolerance);
#   1b. the device ensemble (many runs at once) against batched PyTorch at the paper's Fig. 2 size:
#      128 runs, d = 256, batch 2048 (bench/ensemble_side_by_side.sh), and with TF32;
#   1c. the granularity paper-size scenarios on the device ensemble (Fig. 2, then Figs. 3, 4;
#      --backend cuda), with the time left less 140 s for the steps below: their CSVs and journals go
#      to $OUT/granularity.tar.gz, and a later call continues them (--resume-from DIR: the unpacked
#      folder of an earlier call);
#   1d. SRAVEN on the device (trained.sraven --backend cuda): a tiny scenario on both backends (the
#      untrained model's test loss must agree to float rounding; the trained columns are tabled), the
#      device's time per training step at the paper size (M = 1, 200 steps), then the paper-size
#      scenario (scenarios/trained_sraven_paper.toml) under the time left, journaled: its CSV and
#      journal go to $OUT/sraven.tar.gz, and a later call continues it (--resume-from DIR: the
#      unpacked sraven folder of an earlier call);
#   2. W2 region masses on the device (bench_routing): dense (16,8,256) at 1e8 points, hashed
#      (256,8,256) and (64,8,1024) at 2e7 points, 3 repetitions each;
#   3. W1 noisy Fig. 3: moelab's 1000-trial sweep on the device (its compute time printed apart from
#      process start and CUDA initialisation), the PyTorch baselines on the SAME model instance
#      (bench_noisy_model -> torch_fig3_gpu.py --model, --compare: agreement within Monte-Carlo error);
#   4. `moelab check --backend cuda` against `--backend cpu` on every claim with a device path: same verdicts;
#   5. CPU-vs-CUDA agreement of the validated studies' rows (routing.balance, spectra.esd, noisy Fig. 3);
#   6. W3 batched spectra, the PyTorch / CuPy baselines of W2 and W3 and the copy roofline, W4 trainer
#      epoch (moelab and PyTorch);
#   7. compute-sanitizer memcheck and racecheck over a small case of each GPU test, when time allows;
# It writes $OUT/gpu_results.md (steps, test summary, ptxas resources, every benchmark line, agreement
# tables), $OUT/gpu_run.log, $OUT/gpu_steps.tar.gz and $OUT/granularity.tar.gz.
#
# On the device machine (docs/gpu.md, "On a machine with a GPU"): prepare the dependencies here once,
#   ../shared/tools/device-deps.sh .devroot        (.devroot/ is git-ignored)
#   git rev-parse --short=12 HEAD > .moelab-revision   (the copy there is no git checkout: the stamp
#                                                      names the revision in every CSV's tool line)
# then call the device tool with   command = "bench/gpu_run.sh",   carry = [".devroot"].
# Continue the granularity runs in a later call: unpack the returned granularity.tar.gz into a folder
# of the working tree (e.g. gpu_resume/, not git-ignored so that it travels) and call
#   bench/gpu_run.sh --resume-from gpu_resume/granularity --stages build,granularity
# Continue the SRAVEN paper-size run likewise: unpack sraven.tar.gz (e.g. into gpu_resume/) and call
#   bench/gpu_run.sh --resume-from gpu_resume/sraven --stages build,sraven
# Here, without a GPU:   bench/gpu_run.sh --dry-run --build build --out /tmp/gpu_dry
# builds the same targets in an existing build folder and runs every step at small sizes (the GPU tests
# then report skipped, the device runs are refused with their reason, the granularity stage runs the
# quick scenarios on the CPU under a short limit, so that its journal and --resume are exercised).
#
#   bench/gpu_run.sh [--dry-run] [--build DIR] [--out DIR] [--jobs N] [--budget SECONDS]
#                    [--resume-from DIR] [--stages LIST] [--granularity-limit SECONDS] [--granularity-list LIST]
#   --stages: comma-separated subset of build,tests,ensemble,granularity,sraven,w2,w1,check,agree,bench,sanitizer
#             (default: all, in that order; "build" = configure + build)
#   --granularity-list: the paper-size scenarios of the granularity stage, in order (default
#             fig2,fig3,fig4; fig5 -- 500 epochs of a fixed training set, students up to 16x -- costs
#             several times Fig. 3 and is left out of the default)
set -uo pipefail

dry=0
build=build-gpu
out=${OUT:-$PWD/gpu_out}
jobs=$(nproc)
budget=540
resume_from=""
stages="build,tests,ensemble,granularity,sraven,w2,w1,check,agree,bench,sanitizer"
gran_limit=""
gran_figs="fig2,fig3,fig4"
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1 ;;
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --budget) budget=$2; shift ;;
    --resume-from) resume_from=$2; shift ;;
    --stages) stages=$2; shift ;;
    --granularity-limit) gran_limit=$2; shift ;;
    --granularity-list) gran_figs=$2; shift ;;
    -h|--help) sed -n '2,53p' "$0"; exit 0 ;;
    *) echo "gpu_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -f CMakeLists.txt ] || [ ! -d kernels ]; then
  echo "gpu_run.sh: run from the moelab repository root" >&2; exit 2
fi
if [ -n "$resume_from" ] && [ ! -d "$resume_from" ]; then
  echo "gpu_run.sh: --resume-from '$resume_from' is not a folder" >&2; exit 2
fi
want() { [[ ",$stages," == *",$1,"* ]]; }
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi
if [ $dry -eq 0 ] && [ $have_gpu -eq 0 ]; then
  echo "gpu_run.sh: no GPU found (nvidia-smi): running as --dry-run"; dry=1
fi
# The Python that holds PyTorch: plain python3 on the device image; here /usr/bin/python3.
py=${PYTHON:-python3}
[ $dry -eq 1 ] && [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
# Sizes on the device (H100/H200; seconds from the H200 run at a8b58ee where known) and in a dry run
# (small: they only show that every step runs).
pts_dense=100000000     # W2 dense (16,8,256): 3.9e8/s -> 0.3 s a repetition
pts_hashed=20000000     # W2 hashed shapes: 6.5 s a repetition at the old 3e6/s, under 1 s at 3x torch
pts_py=20000000         # gpu_baselines.py (PyTorch / CuPy W2 at the same shapes)
fig3_trials=1000        # W1: the paper's 1000 trials x 15 n (moelab 3 s whole process; torch Cholesky 2.3 s)
lstsq_trials=100        # torch lstsq: 64 s at 1000 trials, so a tenth
agree_trials=20         # noisy Fig. 3 agreement: CPU side 3.6e10 flops a trial
moe_steps=200           # W4 epoch steps (1.9 ms a step on the H200)
trials_opt=()
if [ $dry -eq 1 ]; then
  [ "$jobs" = "$(nproc)" ] && jobs=2   # here the build shares 2 loaded cores
  budget=100000                         # no time budget in a dry run
  pts_dense=1000000; pts_hashed=200000; pts_py=200000; fig3_trials=2; lstsq_trials=2; agree_trials=2; moe_steps=5
  trials_opt=(--trials 2)
fi

mkdir -p "$out/steps"
results=$out/gpu_results.md
log=$out/gpu_run.log
: > "$log"
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
bin=$build/bin
declare -a table=()
strict=0
# timed CMD...: runs CMD and prints its whole-process wall time (process start and CUDA initialisation
# included), "whole process 3.142 s", beside what the program prints of its own compute time.
timed() {
  local s e rc
  s=$(date +%s.%N); "$@"; rc=$?; e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "whole process %.3f s\n", e - s }'
  return $rc
}

# step NAME TIMEOUT CMD...: runs CMD under `timeout` (never longer than the budget left, less a 15 s
# reserve for the report and the packing), logs to steps/NAME.log and the combined log, records status
# and time. SIGTERM first (moelab keeps its journal), SIGKILL 15 s later.
step() {
  local name=$1 limit=$2; shift 2
  local avail=$(( $(left) - 15 ))
  if [ $avail -lt 5 ]; then
    table+=("| $name | not run: budget spent | 0 |"); echo "== $name: not run (budget spent)" >> "$log"; return 99
  fi
  # A dry run has no time limits, except where a step sets strict=1 (the granularity stage's short limit).
  { [ "$limit" -gt "$avail" ] || { [ $dry -eq 1 ] && [ "$strict" -eq 0 ]; }; } && limit=$avail
  local s=$(date +%s)
  echo "== $name (limit ${limit}s): $*" | tee -a "$log"
  timeout --kill-after=15 "$limit" "$@" > "$out/steps/$name.log" 2>&1
  local rc=$?
  local dt=$(( $(date +%s) - s ))
  cat "$out/steps/$name.log" >> "$log"
  local status="ok"
  case $rc in
    0) ;;
    124|137) status="TIMEOUT after ${limit}s" ;;
    *) status="FAILED (exit $rc)"
       # Without a GPU a device step ends in moelab's refusal: say so, so that a dry run's report separates
       # the expected refusals from real failures (the exit code and the flow are unchanged).
       if [ $dry -eq 1 ] && grep -q -e "no usable CUDA device" -e "no CUDA device" "$out/steps/$name.log"; then
         status="refused: no CUDA device (expected in a dry run; exit $rc)"
       fi ;;
  esac
  echo "== $name: $status, ${dt}s" | tee -a "$log"
  table+=("| $name | $status | $dt |")
  return $rc
}
skip() { table+=("| $1 | $2 | 0 |"); echo "== $1: $2" >> "$log"; }

# The project's own revision, never an enclosing checkout's (cmake/MoelabGitRevision.cmake's rule).
revision() {
  local top
  top=$(git rev-parse --show-toplevel 2>/dev/null || true)
  if [ -n "$top" ] && [ "$(realpath "$top")" = "$(realpath "$PWD")" ]; then git rev-parse --short=12 HEAD; return; fi
  if [ -f .moelab-revision ]; then echo "$(head -c 40 .moelab-revision | tr -dc '0-9a-f')-stamp"; return; fi
  echo unknown
}

# ---- 0. environment ----
env_report() {
  date -u
  echo "mode: $([ $dry -eq 1 ] && echo dry-run || echo device); revision $(revision); stages $stages"
  if [ $have_gpu -eq 1 ]; then
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  else
    echo "nvidia-smi: no GPU"
  fi
  nvcc --version 2>/dev/null | tail -2 || /usr/local/cuda/bin/nvcc --version | tail -2
  cmake --version | head -1; ninja --version; ${CXX:-g++} --version | head -1
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
  "$py" - <<'PY' || true
import importlib
for name in ("torch", "cupy", "numpy"):
    try:
        m = importlib.import_module(name)
        extra = ""
        if name == "torch":
            extra = f", cuda {m.version.cuda}, device {m.cuda.get_device_name(0) if m.cuda.is_available() else 'none'}"
        print(f"{name} {m.__version__}{extra}")
    except Exception as e:
        print(f"{name}: not usable ({type(e).__name__}: {e})")
PY
}
env_report > "$out/steps/env.log" 2>&1; cat "$out/steps/env.log" >> "$log"; table+=("| env | ok | 0 |")

# ---- 1. configure and build (the carried .devroot when present) ----
devflags=()
if [ -d .devroot/usr ]; then
  # Boost travels as headers only (no BoostConfig.cmake): FindBoost's own header search finds them.
  devflags=(-DCMAKE_PREFIX_PATH="$PWD/.devroot/usr" -DCMAKE_CXX_FLAGS="-isystem $PWD/.devroot/usr/include"
            -DBoost_NO_BOOST_CMAKE=ON -DBoost_INCLUDE_DIR="$PWD/.devroot/usr/include")
  export LD_LIBRARY_PATH="$PWD/.devroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
build_b_pid=""
if want build; then
  if [ $dry -eq 1 ] && [ -f "$build/CMakeCache.txt" ]; then
    step configure 100000 cmake "$build" -DMOELAB_BUILD_BENCH=ON
  else
    # -Xptxas=-v: every kernel's registers, stack frame and spills land in the build log (read below).
    step configure 90 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOELAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_FLAGS="-Xptxas=-v" -DMOELAB_PYTHON=OFF -DMOELAB_BUILD_BENCH=ON "${devflags[@]}"
  fi
  # The GPU tests and benchmarks first, the moelab program (all topics) after.
  targets_a=()
  known=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\([A-Za-z0-9_]*\): phony$/\1/p' | sort -u)
  for t in test_gpu_philox test_gpu_routing test_gpu_spectra test_gpu_noisy test_gpu_moe test_gpu_tolerance gpu_bench_spectra \
           bench_routing bench_moe_epoch bench_moe_ensemble bench_noisy_model $(echo "$known" | grep '^test_gpu_'); do
    if echo "$known" | grep -qx "$t"; then
      [[ " ${targets_a[*]} " == *" $t "* ]] || targets_a+=("$t")
    else
      skip "target $t" "not in this build (MOELAB_BUILD_BENCH / MOELAB_CUDA off?)"
    fi
  done
  # -k 0: a target that fails to build (another part mid-edit) does not stop the others.
  step build_gpu_targets 300 cmake --build "$build" --target "${targets_a[@]}" -j "$jobs" -- -k 0
  if [ $dry -eq 1 ]; then
    step build_moelab 100000 cmake --build "$build" --target moelab_exe -j "$jobs" -- -k 0
  else
    # In the background while the GPU runs; the steps that need the program wait for it.
    ( nice -n 10 timeout --kill-after=5 $(( $(left) - 60 )) cmake --build "$build" --target moelab_exe -j "$jobs" -- -k 0 \
        > "$out/steps/build_moelab.log" 2>&1; echo "exit $?" >> "$out/steps/build_moelab.log" ) &
    build_b_pid=$!
  fi
fi
wait_moelab() {
  if [ -n "$build_b_pid" ]; then
    local s=$(date +%s); wait "$build_b_pid"; local dt=$(( $(date +%s) - s ))
    cat "$out/steps/build_moelab.log" >> "$log"
    table+=("| build_moelab (background; waited ${dt}s) | $(tail -1 "$out/steps/build_moelab.log") | - |")
    build_b_pid=""
  fi
}

# ---- 2. tests: a skip is a failure on a device ----
if want tests; then
  if [ $dry -eq 1 ]; then
    step ctest_gpu 100000 ctest --test-dir "$build" -L gpu --output-on-failure
  else
    step ctest_gpu 150 env MOELAB_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 140
  fi
  # The TF32 tolerance of gpu:moe_trainer against TF32 emulated on the CPU (prints the failing case's
  # table and the control's ratios). CPU only (~30 s on one core): on a device it runs in the
  # background beside the GPU steps and is collected before the report.
  tol_exe=$build/tests/gpu/test_gpu_tolerance
  if [ $dry -eq 1 ]; then
    step tolerance_cpu 100000 "$tol_exe"
  elif [ -x "$tol_exe" ]; then
    ( timeout --kill-after=5 $(( $(left) - 30 )) "$tol_exe" > "$out/steps/tolerance_cpu.log" 2>&1; echo "exit $?" >> "$out/steps/tolerance_cpu.log" ) &
    tol_pid=$!
  fi
fi

# ---- 2b. many runs at once: the device ensemble against batched PyTorch, at the paper's Fig. 2 size ----
# All 64 (teacher k, student k) pairs of Fig. 2 x 2 learning rates = 128 runs, d = 256, batch 2048:
# bench/ensemble_side_by_side.sh (moelab's EnsembleCuda and bench/torch_ensemble.py on the same dump,
# after torch_ensemble.py --check on moelab's step-0 batch), then moelab alone with TF32. The Fig. 2
# grid's device time is about 12800 x its seconds per step.
fig2_pairs=$(for t in 2 4 6 8 10 12 14 16; do for s in 2 4 6 8 10 12 14 16; do printf '%s:%s,' $t $s; done; done | sed 's/,$//')
if want ensemble; then
  if [ -x "$bin/bench_moe_ensemble" ]; then
    if [ $dry -eq 0 ]; then
      step ensemble_side_by_side 200 bench/ensemble_side_by_side.sh --device cuda --d 256 --batch 2048 --pairs "$fig2_pairs" --seeds 1 --steps 20
      step ensemble_tf32 60 "$bin/bench_moe_ensemble" --device cuda --tf32 --d 256 --batch 2048 --pairs "$fig2_pairs" --seeds 1 --steps 20 --test-size 4096
    else
      # Here: the same script on the CPU at a small size (the device runs are refused with their reason).
      step ensemble_side_by_side 300 bench/ensemble_side_by_side.sh --device cpu --steps 20
      # Without a device the device ensemble must refuse with its reason and exit 2 (the step passes then).
      step ensemble_cuda_refused 30 bash -c '"$0" --device cuda --steps 2; test $? -eq 2' "$bin/bench_moe_ensemble"
    fi
  else
    skip ensemble "not run: $bin/bench_moe_ensemble was not built"
  fi
fi

# ---- 2c. granularity paper-size scenarios on the device (device ensembles), continued across calls ----
if want granularity; then wait_moelab; fi
gran_dir=$out/granularity
if want granularity; then
  mkdir -p "$gran_dir"
  if [ $dry -eq 0 ]; then
    gran_list=$(echo "$gran_figs" | tr ',' '\n' | sed 's/^/moe_granularity_/; s/$/_paper/' | tr '\n' ' ')
    gran_backend=cuda
  else
    # Here: the quick scenarios on the CPU under a short limit, to exercise the journal and --resume.
    gran_list="moe_granularity_fig3_quick moe_granularity_fig2_quick"
    gran_backend=cpu
    [ -z "$gran_limit" ] && gran_limit=60
  fi
  if [ -x "$bin/moelab" ]; then
    for name in $gran_list; do
      csv=$gran_dir/$name.csv
      opts=()
      if [ -n "$resume_from" ] && [ -f "$resume_from/$name.csv" ]; then
        cp "$resume_from/$name.csv" "$csv"; skip "granularity_$name" "finished in an earlier call (copied from $resume_from)"; continue
      fi
      if [ -n "$resume_from" ] && [ -f "$resume_from/$name.csv.journal" ]; then
        cp "$resume_from/$name.csv.journal" "$csv.journal"; opts=(--resume)
      fi
      # Every remaining second (less the report's reserve, and 120 s for the stages after this one) goes
      # to the first unfinished scenario; a later one starts only with at least 240 s left. A device
      # ensemble journals its points when all its runs finish; its state file (next to the journal,
      # saved each minute and on SIGTERM) resumes it within a call or on a still-warm machine, but it is
      # too large to come back in $OUT.
      reserve=20
      for later in sraven w2 w1 check agree bench sanitizer; do want "$later" && reserve=140 && break; done
      limit=$(( $(left) - reserve ))
      if [ -n "${gran_started:-}" ] && [ "$limit" -lt 240 ]; then skip "granularity_$name" "not run: under 240 s left (continue with --resume-from, --stages build,granularity)"; continue; fi
      if [ "$limit" -lt 30 ]; then skip "granularity_$name" "not run: budget spent (continue with --resume-from)"; continue; fi
      gran_started=1
      [ -n "$gran_limit" ] && [ "$gran_limit" -lt "$limit" ] && limit=$gran_limit
      strict=1
      step "granularity_$name" "$limit" "$bin/moelab" run "scenarios/$name.toml" --backend "$gran_backend" -o "$csv" "${opts[@]}"
      strict=0
      if [ -f "$csv.journal" ]; then
        echo "granularity_$name: unfinished, $(grep -c '^unit ' "$csv.journal" 2>/dev/null || echo 0) points journaled" >> "$out/steps/granularity_$name.log"
      fi
    done
  else
    skip granularity "not run: $bin/moelab was not built"
  fi
  tar -C "$out" -czf "$out/granularity.tar.gz" granularity 2>/dev/null
  ls -l "$gran_dir" > "$out/steps/granularity_files.log" 2>&1
fi
# ---- 2d. SRAVEN: the transformer block's training on the device (trained.sraven --backend cuda) ----
# (a) agreement: a tiny scenario on both backends. The untrained model's ID test loss
# (initial_loss_mean) is one float32 forward pass: it must agree to 1e-5 relative (summation orders
# and CUDA's exp/log; the emulation test bounds the same pass at 1e-5). The trained columns follow
# two float32 trajectories whose rounding differences grow with every AdamW step: tabled, not
# asserted (the device-vs-CPU training check in float64 is gpu:transformer_trainer, stage 1).
# (b) the device's time per step at the paper size (M = 1, k = 1 and 8, 2 seeds), whole process.
# (c) scenarios/trained_sraven_paper.toml under the time left, journaled per sweep point (one M: 4 k x
# 4 seeds x 20000 steps), continued by a later call with --resume-from.
sraven_dir=$out/sraven
if want sraven; then wait_moelab; fi
if want sraven; then
  mkdir -p "$sraven_dir"
  tiny=$out/steps/sraven_tiny.toml
  sed -e 's/^steps = .*/steps = 20/' -e 's/^test_size = .*/test_size = 256/' -e 's/^k_list = .*/k_list = [1, 2]/' \
      -e 's/^width = .*/width = 16/' -e 's/^d = .*/d = 0/' -e 's/^heads = .*/heads = 2/' -e 's/^d_head = .*/d_head = 8/' \
      -e 's/^"params.M" = .*/"params.M" = [1, 2]/' -e 's/^trials = .*/trials = 2/' scenarios/trained_sraven.toml > "$tiny"
  timing=$out/steps/sraven_timing.toml
  sraven_timing_steps=200; [ $dry -eq 1 ] && sraven_timing_steps=5
  sed -e "s/^steps = .*/steps = $sraven_timing_steps/" -e 's/^k_list = .*/k_list = [1, 8]/' -e 's/^test_size = .*/test_size = 512/' \
      -e 's/^"params.M" = .*/"params.M" = [1]/' -e 's/^trials = .*/trials = 2/' scenarios/trained_sraven_paper.toml > "$timing"
  sraven_limit=""
  if [ -x "$bin/moelab" ]; then
    if [ $dry -eq 0 ]; then
      step sraven_agree_cpu 120 "$bin/moelab" run "$tiny" --backend cpu --no-journal -o "$out/steps/sraven_tiny_cpu.csv"
      step sraven_agree_cuda 120 "$bin/moelab" run "$tiny" --backend cuda --no-journal -o "$out/steps/sraven_tiny_cuda.csv"
      step sraven_agree 10 python3 bench/gpu_compare_csv.py --assert initial_loss_mean=1e-5 "$out/steps/sraven_tiny_cpu.csv" "$out/steps/sraven_tiny_cuda.csv"
      step sraven_timing 150 bash -c "$(declare -f timed); timed \"\$@\"" _ "$bin/moelab" run "$timing" --backend cuda --no-journal \
        -o "$out/steps/sraven_timing.csv"
      sraven_backend=cuda; sraven_scenario=scenarios/trained_sraven_paper.toml
    else
      # Here: the tiny scenario on the CPU (the comparison script against itself), the device refused
      # with exit 2, the timing scenario at 5 steps on the CPU, and the CPU-size scenario at 100 steps
      # under a short limit in place of the paper size (so that its journal and --resume are exercised).
      step sraven_agree_cpu 300 "$bin/moelab" run "$tiny" --backend cpu --no-journal -o "$out/steps/sraven_tiny_cpu.csv"
      step sraven_agree 10 python3 bench/gpu_compare_csv.py --assert initial_loss_mean=1e-5 "$out/steps/sraven_tiny_cpu.csv" "$out/steps/sraven_tiny_cpu.csv"
      step sraven_cuda_refused 60 bash -c '"$0" run "$1" --backend cuda --no-journal -o /dev/null; test $? -eq 2' "$bin/moelab" "$tiny"
      step sraven_timing 600 bash -c "$(declare -f timed); timed \"\$@\"" _ "$bin/moelab" run "$timing" --backend cpu --no-journal \
        -o "$out/steps/sraven_timing.csv"
      sed -e 's/^steps = .*/steps = 100/' -e 's/^test_size = .*/test_size = 128/' scenarios/trained_sraven.toml > "$out/steps/trained_sraven_paper.toml"
      sraven_backend=cpu; sraven_scenario=$out/steps/trained_sraven_paper.toml
      sraven_limit=60
    fi
    csv=$sraven_dir/trained_sraven_paper.csv
    opts=()
    if [ -n "$resume_from" ] && [ -f "$resume_from/trained_sraven_paper.csv" ]; then
      cp "$resume_from/trained_sraven_paper.csv" "$csv"; skip sraven_paper "finished in an earlier call (copied from $resume_from)"
    else
      if [ -n "$resume_from" ] && [ -f "$resume_from/trained_sraven_paper.csv.journal" ]; then
        cp "$resume_from/trained_sraven_paper.csv.journal" "$csv.journal"; opts=(--resume)
      fi
      reserve=20
      for later in w2 w1 check agree bench sanitizer; do want "$later" && reserve=140 && break; done
      limit=$(( $(left) - reserve ))
      [ -n "$sraven_limit" ] && [ "$sraven_limit" -lt "$limit" ] && limit=$sraven_limit
      if [ "$limit" -lt 30 ]; then
        skip sraven_paper "not run: budget spent (continue with --resume-from)"
      else
        strict=1
        step sraven_paper "$limit" "$bin/moelab" run "$sraven_scenario" --backend "$sraven_backend" -o "$csv" "${opts[@]}"
        strict=0
        if [ -f "$csv.journal" ]; then
          echo "sraven_paper: unfinished, $(grep -c '^unit ' "$csv.journal" 2>/dev/null || echo 0) points journaled" >> "$out/steps/sraven_paper.log"
        fi
      fi
    fi
  else
    skip sraven "not run: $bin/moelab was not built"
  fi
  tar -C "$out" -czf "$out/sraven.tar.gz" sraven 2>/dev/null
  ls -l "$sraven_dir" > "$out/steps/sraven_files.log" 2>&1
fi
# ---- 3. W2: region masses on the device ----
if want w2; then
  step w2_dense 60 "$bin/bench_routing" --paths cuda-full,cuda-projected --points "$pts_dense" --reps 3 --shapes 16,8,256
  # Hashed: C(256,8) = 4.1e14 and C(64,8) = 4.4e9 regions, almost every point its own region.
  step w2_hashed 90 "$bin/bench_routing" --paths cuda-full,cuda-projected --points "$pts_hashed" --reps 3 --shapes 256,8,256:64,8,1024
  cat "$out/steps/w2_dense.log" "$out/steps/w2_hashed.log" > "$out/steps/bench_routing_cuda.log" 2>/dev/null
fi

# ---- 4. W1: the noisy Fig. 3 sweep, moelab and PyTorch on the same model instance ----
if want w1 || want check || want agree || want granularity; then wait_moelab; fi
if want w1; then
  if [ -x "$bin/moelab" ]; then
    # The compute-time line ("moelab: noisy.excess_risk on cuda: compute ... s") is on stderr, in the log.
    step w1_moelab_cuda 90 bash -c "$(declare -f timed); timed \"\$@\"" _ "$bin/moelab" run scenarios/noisy_fig3.toml --backend cuda \
      --trials "$fig3_trials" --no-journal -o "$out/steps/noisy_fig3_cuda.csv"
  else
    skip w1_moelab_cuda "not run: $bin/moelab was not built"
  fi
  step w1_model_instance 30 "$bin/bench_noisy_model" scenarios/noisy_fig3.toml "$out/steps/noisy_fig3_model.txt"
  ns="240 480 720 840 888 900 912 960 1080 1200 1500 1800 2400 3000 3600"
  cmp=(); [ -f "$out/steps/noisy_fig3_cuda.csv" ] && cmp=(--compare "$out/steps/noisy_fig3_cuda.csv")
  if [ $dry -eq 0 ]; then
    step w1_torch_cholesky 90 "$py" bench/torch_fig3_gpu.py --n $ns --trials "$fig3_trials" --batch 100 --method cholesky \
      --model "$out/steps/noisy_fig3_model.txt" "${cmp[@]}"
    step w1_torch_lstsq 90 "$py" bench/torch_fig3_gpu.py --n $ns --trials "$lstsq_trials" --batch 100 --method lstsq \
      --model "$out/steps/noisy_fig3_model.txt"
  else
    skip w1_torch "skipped in a dry run (no PyTorch here; the script's model reader and comparison are CPU-tested)"
  fi
fi

# ---- 5. check: the claims with a device path give the same verdicts on both backends ----
# The claims whose Claim::cuda is set (tests/catalogue/cuda_status_test.cpp pins the list).
device_claims="routing.lemma32.region_masses"
if want check; then
  if [ -x "$bin/moelab" ]; then
    for c in $device_claims; do
      step "check_cpu_$c" 120 "$bin/moelab" check --quick --only "$c" --backend cpu --no-journal --out-dir "$out/steps/check_cpu"
      step "check_cuda_$c" 120 "$bin/moelab" check --quick --only "$c" --backend cuda --no-journal --out-dir "$out/steps/check_cuda"
      # Without the device's check.csv (a dry run's refusal) there is nothing to compare.
      if [ ! -f "$out/steps/check_cuda/check.csv" ]; then skip "check_same_verdicts_$c" "not run: no device check.csv"; continue; fi
      step "check_same_verdicts_$c" 10 python3 - "$out/steps/check_cpu/check.csv" "$out/steps/check_cuda/check.csv" <<'PY'
import csv, sys
def verdicts(p):
    return {r["id"]: r["verdict"] for r in csv.DictReader(l for l in open(p) if not l.startswith("#"))}
a, b = verdicts(sys.argv[1]), verdicts(sys.argv[2])
for k in sorted(a):
    print(f"{k}: cpu {a[k]}, cuda {b.get(k, 'missing')}")
sys.exit(0 if a == b and a else 1)
PY
    done
  else
    skip check "not run: $bin/moelab was not built"
  fi
fi

# ---- 6. CPU-vs-CUDA agreement of the validated studies' rows ----
agree() {  # agree TOML TAG [moelab run options...]; a dry run's $trials (--trials 2) replaces theirs
  local toml=$1 tag=$2; shift 2
  local args=() skip=0 a
  for a in "$@"; do
    if [ $skip -eq 1 ]; then skip=0; continue; fi
    if [ -n "$trials" ] && [ "$a" = "--trials" ]; then skip=1; continue; fi
    args+=("$a")
  done
  "$bin/moelab" run "$toml" --backend cpu -o "$out/steps/${tag}_cpu.csv" --no-journal "${args[@]}" $trials || return 1
  "$bin/moelab" run "$toml" --backend cuda -o "$out/steps/${tag}_cuda.csv" --no-journal "${args[@]}" $trials || return 1
  python3 bench/gpu_compare_csv.py "$out/steps/${tag}_cpu.csv" "$out/steps/${tag}_cuda.csv"
}
if want agree; then
  if [ -x "$bin/moelab" ]; then
    step agree_routing_balance 90 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree scenarios/routing_balance.toml routing_balance"
    # spectra.esd with Rademacher entries: the CPU draws every entry there (Sampler::entries), as the
    # device does, so the rows agree point by point (Gaussian M <= N uses the tridiagonal model on the CPU).
    sed -e 's/^law = .*/law = "rademacher"/' -e 's/^trials = .*/trials = 40/' scenarios/spectra_mp_density.toml > "$out/steps/spectra_esd_rademacher.toml"
    step agree_spectra_esd 90 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree $out/steps/spectra_esd_rademacher.toml spectra_esd"
    step agree_noisy_fig3 150 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree scenarios/noisy_fig3.toml noisy_fig3 --trials $agree_trials"
    if [ -f bench/gpu_agreement.list ]; then  # more device paths: "scenario [moelab run options]" a line
      while read -r toml extra; do
        [ -n "$toml" ] && [ "${toml#\#}" = "$toml" ] || continue
        tag=$(basename "$toml" .toml)
        step "agree_$tag" 120 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree $toml $tag $extra"
      done < bench/gpu_agreement.list
    fi
  else
    skip agree "not run: $bin/moelab was not built"
  fi
fi

# ---- 7. W3 spectra, the baselines, W4 trainer ----
if want bench; then
  step w3_spectra_cuda 90 "$bin/gpu_bench_spectra"
  if [ $dry -eq 0 ]; then
    step baselines_torch_cupy 150 "$py" bench/gpu_baselines.py --points "$pts_py" --routing-log "$out/steps/bench_routing_cuda.log"
  else
    skip baselines_torch_cupy "skipped in a dry run (no PyTorch / CuPy here)"
  fi
  if [ -x "$bin/bench_moe_epoch" ]; then
    step w4_moe_epoch_cuda 60 "$bin/bench_moe_epoch" --device cuda --steps "$moe_steps" --warmup 5
    if [ $dry -eq 0 ]; then
      step w4_moe_epoch_torch 90 "$py" bench/moe_pytorch_epoch.py --device cuda --steps "$moe_steps" --warmup 5
    else
      skip w4_moe_epoch_torch "skipped in a dry run (PyTorch on 2 CPU cores)"
    fi
  fi
fi

# ---- 8. compute-sanitizer: a small case of each GPU test (memcheck; racecheck where shared memory is used) ----
if want sanitizer; then
  san=$(command -v compute-sanitizer || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && echo /usr/local/cuda/bin/compute-sanitizer; } || true)
  if [ -z "$san" ]; then
    skip sanitizer "not run: compute-sanitizer not found"
  elif [ "$(left)" -lt 150 ]; then
    skip sanitizer "not run: under 150 s left"
  else
    tb=$build/tests/gpu
    [ -x "$tb/test_gpu_philox" ] || tb=$build/tests
    sanitize() {  # sanitize TOOL NAME EXE [Catch test spec]
      local tool=$1 name=$2 exe=$3; shift 3
      step "sanitizer_${tool}_$name" 60 env MOELAB_REQUIRE_GPU=$([ $dry -eq 1 ] && echo 0 || echo 1) \
        "$san" --tool "$tool" --error-exitcode 9 --print-limit 20 "$exe" "$@"
    }
    sanitize memcheck philox "$tb/test_gpu_philox"
    sanitize memcheck routing "$tb/test_gpu_routing" "device histograms equal the CPU histograms (dense and hashed)"
    sanitize memcheck spectra "$tb/test_gpu_spectra" "device matrices equal the CPU's iid matrices entry by entry"
    sanitize memcheck noisy "$tb/test_gpu_noisy" "gpu noisy: device designs equal draw_training_set"
    sanitize memcheck moe "$tb/test_gpu_moe" "control: TF32 GEMMs are visibly less exact than float32 on the Fig. 2 student"
    sanitize memcheck transformer "$tb/test_gpu_transformer" "device transformer training agrees with the CPU trainer in float32"
    # racecheck: shared-memory hazards (CUB's radix sort and run-length encoding in routing and moe).
    sanitize racecheck routing "$tb/test_gpu_routing" "device histograms equal the CPU histograms (dense and hashed)"
    sanitize racecheck moe "$tb/test_gpu_moe" "control: TF32 GEMMs are visibly less exact than float32 on the Fig. 2 student"
  fi
fi

wait_moelab
if [ -n "${tol_pid:-}" ]; then
  wait "$tol_pid"; cat "$out/steps/tolerance_cpu.log" >> "$log"
  table+=("| tolerance_cpu (background) | $(tail -1 "$out/steps/tolerance_cpu.log") | - |")
fi

# ---- the report ----
{
  echo "# GPU run of $(revision) ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Mode: $([ $dry -eq 1 ] && echo '**dry run** (no GPU: tests skip, device runs are refused)' || echo device). Total $(( $(date +%s) - t0 )) s of a ${budget} s budget."
  echo
  echo '```'; cat "$out/steps/env.log" 2>/dev/null; echo '```'
  echo
  echo "| step | status | seconds |"
  echo "|---|---|---|"
  printf '%s\n' "${table[@]}"
  echo
  echo "## GPU tests (ctest -L gpu$([ $dry -eq 0 ] && echo ', MOELAB_REQUIRE_GPU=1'))"
  echo '```'; grep -E "Test +#|tests passed|tests failed|Skipped|usable|CUDA runtime|FAILED|skipped|with expansion|REQUIRE|:[0-9]+: " "$out/steps/ctest_gpu.log" 2>/dev/null | head -60; echo '```'
  echo "## TF32 tolerance (CPU emulation)"
  echo '```'; grep -vE "^\s*$|^~~~|^-----|^\.\.\.\.|Catch v2|Run with -\?" "$out/steps/tolerance_cpu.log" 2>/dev/null | head -60; echo '```'
  echo
  echo "## Kernel resources (ptxas -v: registers, stack frame, spills)"
  echo '```'
  grep -hE "Compiling entry|Used [0-9]+ registers|bytes stack frame" "$out/steps/build_gpu_targets.log" 2>/dev/null | sed 's/^ *//' | head -60
  echo '```'
  echo
  for s in sraven_agree sraven_timing ensemble_side_by_side ensemble_tf32 w2_dense w2_hashed w1_moelab_cuda w1_torch_cholesky w1_torch_lstsq w3_spectra_cuda baselines_torch_cupy \
           w4_moe_epoch_cuda w4_moe_epoch_torch; do
    [ -f "$out/steps/$s.log" ] || continue
    echo "## $s"
    echo '```'; grep -vE "^\s*$" "$out/steps/$s.log" 2>/dev/null | tail -40; echo '```'
  done
  echo "## check: CPU vs CUDA verdicts"
  for f in "$out"/steps/check_same_verdicts_*.log; do [ -f "$f" ] && { echo '```'; cat "$f"; echo '```'; }; done
  echo "## Agreement (CPU vs CUDA rows)"
  for f in "$out"/steps/agree_*.log; do
    [ -f "$f" ] || continue
    echo "### $(basename "$f" .log)"; echo '```'; tail -25 "$f"; echo '```'
  done
  echo "## compute-sanitizer"
  for f in "$out"/steps/sanitizer_*.log; do
    [ -f "$f" ] || continue
    echo "### $(basename "$f" .log)"; echo '```'; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|error|passed|failed|skipped" "$f" | head -15; echo '```'
  done
  echo "## SRAVEN paper-size run ($sraven_dir -> sraven.tar.gz)"
  echo '```'; cat "$out/steps/sraven_files.log" 2>/dev/null; grep -h "unfinished\|wrote\|resum" "$out"/steps/sraven_paper.log 2>/dev/null | head -20; echo '```'
  echo "## Granularity paper-size runs ($gran_dir -> granularity.tar.gz)"
  echo '```'; cat "$out/steps/granularity_files.log" 2>/dev/null; grep -h "unfinished\|wrote\|resum" "$out"/steps/granularity_*.log 2>/dev/null | head -20; echo '```'
} > "$results"
# Few files come back from $OUT: the report, the combined log, the steps folder and the granularity folder packed.
tar -C "$out" -czf "$out/gpu_steps.tar.gz" steps 2>/dev/null && rm -rf "$out/steps"
[ -f "$out/granularity.tar.gz" ] && rm -rf "$gran_dir"
[ -f "$out/sraven.tar.gz" ] && rm -rf "$sraven_dir"
echo "gpu_run.sh: wrote $results ($(wc -l < "$results") lines), $log, $out/gpu_steps.tar.gz$([ -f "$out/granularity.tar.gz" ] && echo ", $out/granularity.tar.gz")$([ -f "$out/sraven.tar.gz" ] && echo ", $out/sraven.tar.gz")"
grep -E "^\| " "$results" | head -60
