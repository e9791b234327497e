#!/usr/bin/env bash
# bench/gpu_run.sh: the ONE command for a session with a GPU (issue 18, item 4). It configures and
# builds moelab (Release, CUDA, sm_90) with the carried Debian dependencies, runs the GPU tests with
# MOELAB_REQUIRE_GPU=1 (a skip is a failure there), the CPU-vs-GPU agreement runs, and every GPU
# benchmark (bench_routing's CUDA paths, the batched spectra, PyTorch / CuPy baselines written as a
# user would, a measured device-to-device copy bandwidth for the HBM roofline), and writes
# $OUT/gpu_results.md plus one combined log, all within a 9-minute budget (every step under
# `timeout`, none started without the time it needs).
#
# On the device machine (docs/gpu.md, "On a machine with a GPU"): prepare the dependencies here once,
#   ../shared/tools/device-deps.sh .devroot        (.devroot/ is git-ignored)
# then call the device tool with   command = "bench/gpu_run.sh",   carry = [".devroot"].
# Here, without a GPU:   bench/gpu_run.sh --dry-run --build build-routing-cuda --out /tmp/gpu_dry
# builds the same targets in an existing build folder, runs the same steps (the GPU tests then
# report skipped, the device runs are refused with their reason) and writes the same report.
#
#   bench/gpu_run.sh [--dry-run] [--build DIR] [--out DIR] [--jobs N] [--budget SECONDS]
set -uo pipefail

dry=0
build=build-gpu
out=${OUT:-$PWD/gpu_out}
jobs=$(nproc)
budget=540
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1 ;;
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --budget) budget=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "gpu_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -f CMakeLists.txt ] || [ ! -d kernels ]; then
  echo "gpu_run.sh: run from the moelab repository root" >&2; exit 2
fi
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi
if [ $dry -eq 0 ] && [ $have_gpu -eq 0 ]; then
  echo "gpu_run.sh: no GPU found (nvidia-smi): running as --dry-run"; dry=1
fi
# The Python that holds PyTorch: plain python3 on the device image; here /usr/bin/python3 (CPU torch).
py=${PYTHON:-python3}
[ $dry -eq 1 ] && [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
# Sizes: the device's, or small ones that only show that every step runs (dry run).
pts_gpu=100000000; pts_cpu=20000000; pts_py=20000000; trials_opt=()
if [ $dry -eq 1 ]; then
  # Here the build shares 2 loaded cores: no time budget, and -j2 unless told.
  [ "$jobs" = "$(nproc)" ] && jobs=2
  budget=100000
  pts_gpu=1000000; pts_cpu=200000; pts_py=200000; trials_opt=(--trials 2)
fi

mkdir -p "$out/steps"
results=$out/gpu_results.md
log=$out/gpu_run.log
: > "$log"
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
bin=$build/bin
declare -a table=()

# step NAME TIMEOUT CMD...: runs CMD under `timeout` (never longer than the budget left, less a 10 s
# reserve for the report), logs to steps/NAME.log and the combined log, records status and time.
step() {
  local name=$1 limit=$2; shift 2
  local avail=$(( $(left) - 10 ))
  if [ $avail -lt 5 ]; then
    table+=("| $name | not run: budget spent | 0 |"); echo "== $name: not run (budget spent)" >> "$log"; return 99
  fi
  { [ "$limit" -gt "$avail" ] || [ $dry -eq 1 ]; } && limit=$avail  # a dry run has no time limits
  local s=$(date +%s)
  echo "== $name (limit ${limit}s): $*" | tee -a "$log"
  timeout --kill-after=5 "$limit" "$@" > "$out/steps/$name.log" 2>&1
  local rc=$?
  local dt=$(( $(date +%s) - s ))
  cat "$out/steps/$name.log" >> "$log"
  local status="ok"
  case $rc in
    0) ;;
    124|137) status="TIMEOUT after ${limit}s" ;;
    *) status="FAILED (exit $rc)" ;;
  esac
  echo "== $name: $status, ${dt}s" | tee -a "$log"
  table+=("| $name | $status | $dt |")
  return $rc
}

# ---- 1. environment ----
env_report() {
  date -u
  echo "mode: $([ $dry -eq 1 ] && echo dry-run || echo device)"
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

# ---- 2. configure (the carried .devroot when present) ----
devflags=()
if [ -d .devroot/usr ]; then
  # Boost travels as headers only (no BoostConfig.cmake): FindBoost's own header search finds them.
  devflags=(-DCMAKE_PREFIX_PATH="$PWD/.devroot/usr" -DCMAKE_CXX_FLAGS="-isystem $PWD/.devroot/usr/include"
            -DBoost_NO_BOOST_CMAKE=ON -DBoost_INCLUDE_DIR="$PWD/.devroot/usr/include")
  export LD_LIBRARY_PATH="$PWD/.devroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ $dry -eq 1 ] && [ -f "$build/CMakeCache.txt" ]; then
  # Dry run in an existing build folder: regenerate it, with the benchmarks on.
  step configure 100000 cmake "$build" -DMOELAB_BUILD_BENCH=ON
else
  # -Xptxas=-v: every kernel's registers, stack frame and spills land in the build log (read below).
  step configure 90 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOELAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="-Xptxas=-v" -DMOELAB_PYTHON=OFF "${devflags[@]}"
fi

# ---- 3. build: the GPU tests and benchmarks first, the moelab program (all topics) after ----
targets_a=()
known=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\([A-Za-z0-9_]*\): phony$/\1/p' | sort -u)
for t in test_gpu_philox test_gpu_routing test_gpu_spectra gpu_bench_spectra bench_routing bench_moe_epoch \
         $(echo "$known" | grep '^test_gpu_'); do  # other helpers' GPU tests (noisy, moe, ...) too
  if echo "$known" | grep -qx "$t"; then
    [[ " ${targets_a[*]} " == *" $t "* ]] || targets_a+=("$t")
  else
    table+=("| target $t | not in this build (MOELAB_BUILD_BENCH / MOELAB_CUDA off?) | 0 |")
  fi
done
# -k 0: a target that fails to build (another part mid-edit) does not stop the others.
step build_gpu_targets 300 cmake --build "$build" --target "${targets_a[@]}" -j "$jobs" -- -k 0
build_b_pid=""
if [ $dry -eq 1 ]; then
  step build_moelab 100000 cmake --build "$build" --target moelab_exe -j "$jobs" -- -k 0
else
  # In the background while the GPU runs (a note in the report: CPU timings wait for it).
  ( nice -n 10 timeout --kill-after=5 $(( $(left) - 60 )) cmake --build "$build" --target moelab_exe -j "$jobs" -- -k 0 \
      > "$out/steps/build_moelab.log" 2>&1; echo "exit $?" >> "$out/steps/build_moelab.log" ) &
  build_b_pid=$!
fi

# ---- 4. the GPU tests: a skip is a failure on a device ----
if [ $dry -eq 1 ]; then
  step ctest_gpu 100000 ctest --test-dir "$build" -L gpu --output-on-failure
else
  step ctest_gpu 150 env MOELAB_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 140
fi

# ---- 5. GPU benchmarks ----
# Dense shapes at 1e8 points; the hashed shape (C(256, 8) = 4e14 regions: every point its own run,
# merged and inserted into a hashed histogram on the host) at a fifth of that.
step bench_routing_cuda 90 "$bin/bench_routing" --paths cuda-full,cuda-projected --points "$pts_gpu" --reps 3 --shapes 16,8,256:64,8,1024
step bench_routing_cuda_hashed 90 "$bin/bench_routing" --paths cuda-full,cuda-projected --points "$(( pts_gpu / 5 ))" --reps 3 --shapes 256,8,256
cat "$out/steps/bench_routing_cuda_hashed.log" >> "$out/steps/bench_routing_cuda.log" 2>/dev/null
step bench_spectra_cuda 90 "$bin/gpu_bench_spectra"
step baselines_torch_cupy 150 "$py" bench/gpu_baselines.py --points "$pts_py" --routing-log "$out/steps/bench_routing_cuda.log"
# W4 (docs/gpu.md, the trainer's section): one epoch's steps on the device, moelab and PyTorch.
if [ -x "$bin/bench_moe_epoch" ]; then
  step moe_epoch_cuda 90 "$bin/bench_moe_epoch" --device cuda --steps 20 --warmup 2
  if [ $dry -eq 0 ]; then
    step moe_epoch_torch_cuda 90 "$py" bench/moe_pytorch_epoch.py --device cuda --steps 20 --warmup 2
  else
    table+=("| moe_epoch_torch_cuda | skipped in a dry run (PyTorch on 2 CPU cores) | 0 |")
  fi
fi

# ---- 6. CPU-vs-GPU agreement runs (need the moelab program) ----
if [ -n "$build_b_pid" ]; then
  s=$(date +%s); wait "$build_b_pid"; dt=$(( $(date +%s) - s ))
  cat "$out/steps/build_moelab.log" >> "$log"
  table+=("| build_moelab (background; waited ${dt}s) | $(tail -1 "$out/steps/build_moelab.log") | - |")
fi
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
if [ -x "$bin/moelab" ]; then
  step agree_routing_balance 120 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree scenarios/routing_balance.toml routing_balance"
  # spectra.esd with Rademacher entries: the CPU draws every entry there (Sampler::entries), as the
  # device does, so the rows agree point by point (Gaussian M <= N uses the tridiagonal model on the CPU).
  sed -e 's/^law = .*/law = "rademacher"/' -e 's/^trials = .*/trials = 40/' scenarios/spectra_mp_density.toml > "$out/steps/spectra_esd_rademacher.toml"
  step agree_spectra_esd 120 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree $out/steps/spectra_esd_rademacher.toml spectra_esd"
  # W1 (docs/gpu.md, the noisy section): Fig. 3 rows on both backends at 20 trials (its CPU side is
  # estimated at 3.6e10 operations a trial: 100 trials would not fit the step on 16 cores), then the
  # device at the paper's 1000 trials and the PyTorch baselines of bench/torch_fig3_gpu.py.
  if [ -f scenarios/noisy_fig3.toml ]; then
    step agree_noisy_fig3 150 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree scenarios/noisy_fig3.toml noisy_fig3 --trials 20"
    step noisy_fig3_cuda_1000 120 "$bin/moelab" run scenarios/noisy_fig3.toml --backend cuda --trials 1000 --no-journal -o "$out/steps/noisy_fig3_cuda_1000.csv"
    if [ $dry -eq 0 ] && [ -f bench/torch_fig3_gpu.py ]; then
      for method in cholesky lstsq; do
        step "torch_fig3_$method" 90 "$py" bench/torch_fig3_gpu.py --n 240 480 720 840 888 900 912 960 1080 1200 1500 1800 2400 3000 3600 \
          --trials 1000 --batch 100 --method "$method"
      done
    fi
  fi
  # More device paths: one "scenario [moelab run options]" per line in bench/gpu_agreement.list.
  if [ -f bench/gpu_agreement.list ]; then
    while read -r toml extra; do
      [ -n "$toml" ] && [ "${toml#\#}" = "$toml" ] || continue
      tag=$(basename "$toml" .toml)
      step "agree_$tag" 120 bash -c "$(declare -f agree); bin=$bin out=$out trials=\"${trials_opt[*]}\"; agree $toml $tag $extra"
    done < bench/gpu_agreement.list
  fi
else
  table+=("| agreement runs | not run: $bin/moelab was not built | 0 |")
fi
# CPU paths of bench_routing last (after the background build, so they measure an idle CPU).
step bench_routing_cpu 90 "$bin/bench_routing" --paths full,projected --points "$pts_cpu" --reps 3 --shapes 16,8,256:256,8,256

# ---- 7. the report ----
{
  echo "# GPU run of $(git rev-parse --short HEAD 2>/dev/null || echo '?') ($(date -u '+%Y-%m-%d %H:%M UTC'))"
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
  echo '```'; grep -E "Test +#|tests passed|tests failed|Skipped|usable|CUDA runtime|FAILED|skipped" "$out/steps/ctest_gpu.log" 2>/dev/null | head -40; echo '```'
  echo
  echo "## Kernel resources (ptxas -v: registers, stack frame, spills)"
  echo '```'
  grep -hE "Compiling entry|Used [0-9]+ registers|bytes stack frame" "$out/steps/build_gpu_targets.log" 2>/dev/null | sed 's/^ *//' | head -60
  echo '```'
  echo
  for s in bench_routing_cuda bench_spectra_cuda baselines_torch_cupy moe_epoch_cuda moe_epoch_torch_cuda noisy_fig3_cuda_1000 \
           torch_fig3_cholesky torch_fig3_lstsq bench_routing_cpu; do  # (bench_routing_cuda holds the hashed run too)
    [ -f "$out/steps/$s.log" ] || continue
    echo "## $s"
    echo '```'; grep -vE "^\s*$" "$out/steps/$s.log" 2>/dev/null | tail -40; echo '```'
  done
  echo "## Agreement (CPU vs CUDA rows)"
  for f in "$out"/steps/agree_*.log; do
    [ -f "$f" ] || continue
    echo "### $(basename "$f" .log)"; echo '```'; tail -25 "$f"; echo '```'
  done
} > "$results"
# At most 8 files come back from $OUT: the report, the combined log, and the steps folder packed.
tar -C "$out" -czf "$out/gpu_steps.tar.gz" steps 2>/dev/null && rm -rf "$out/steps"
echo "gpu_run.sh: wrote $results ($(wc -l < "$results") lines), $log, $out/gpu_steps.tar.gz"
tail -n +1 "$results" | grep -E "^\| " | head -30
