# moelab: build, test, run the default scenarios and plot them.
#   make run     build, run `moelab check --quick`, the default scenarios, then the plots
#   make test    build, run the fast tests (ctest -L fast)
# Everything comes from Debian 12 packages; `make deps` checks them (and installs them as root).

SHELL := /bin/bash

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
CMAKE_ARGS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
MOELAB     := ./$(BUILD_DIR)/bin/moelab
RESULTS    ?= results
# Extra arguments for `moelab run` (e.g. RUN_ARGS='--trials 200').
RUN_ARGS   ?=

DEFAULT_SCENARIOS ?= scenarios/noisy_thm2_robustness.toml \
                     scenarios/noisy_fig6_table1.toml \
                     scenarios/noisy_fig3.toml \
                     scenarios/noisy_qda_router.toml \
                     scenarios/spectra_mp_density.toml \
                     scenarios/spectra_spike_transition.toml \
                     scenarios/spectra_tw_wishart.toml \
                     scenarios/bounds_theorem1_terms.toml \
                     scenarios/bounds_pattern_counts.toml \
                     scenarios/sparsity_kstar_regimes.toml \
                     scenarios/scaling_compute_optimal.toml \
                     scenarios/routing_table1.toml \
                     scenarios/routing_mass_histogram.toml \
                     scenarios/routing_balance.toml \
                     scenarios/routing_packing.toml \
                     scenarios/routing_separation.toml \
                     scenarios/moe_granularity_fig2_quick.toml \
                     scenarios/moe_granularity_fig4_quick.toml \
                     scenarios/moe_noisy_b3_table2.toml \
                     scenarios/moe_noisy_b3_table3.toml \
                     scenarios/moe_moefication.toml \
                     scenarios/moe_block_discovery.toml \
                     scenarios/trained_generalization_gap.toml \
                     scenarios/trained_compositional_kstar.toml \
                     scenarios/trained_sraven_difficulty_quick.toml \
                     scenarios/trained_scaling.toml

DEB_PACKAGES := libeigen3-dev libboost-dev libfmt-dev catch2 libcli11-dev libtomlplusplus-dev \
                cmake ninja-build g++ gnuplot-nox pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest \
                libopenblas-dev liblapacke-dev libopenmpi-dev openmpi-bin
BENCH_PACKAGES := python3 python3-numpy python3-scipy libopenblas0-pthread python3-torch python3-pandas

.PHONY: all deps deps-bench configure build install run plots test test-slow test-asan fuzz bench clean clean-results

all: build

# Install-or-explain: as root, apt-get installs what is missing; otherwise print the exact command.
define check_debs
	@missing=""; \
	for p in $(1); do \
	  if ! dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed"; then \
	    missing="$$missing $$p"; \
	  fi; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "deps: all Debian packages present ($(strip $(1)))"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else \
	  echo "deps: missing Debian packages:$$missing"; \
	  echo "  sudo apt-get install -y$$missing"; \
	  exit 1; \
	fi
endef

deps:
	$(call check_debs,$(DEB_PACKAGES))

deps-bench:
	$(call check_debs,$(BENCH_PACKAGES))

# Configure once; later builds reuse the cache (re-run `make clean` to change BUILD_TYPE).
$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: deps
	@$(MAKE) --no-print-directory $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# `moelab check` exits 1 when a verdict differs from the documented one (docs/claims.md): report it
# and go on (the scenarios and plots do not depend on it).
run: build
	@mkdir -p $(RESULTS)
	@rc=0; $(MOELAB) check --quick || rc=$$?; \
	if [ $$rc = 1 ]; then echo "make run: a verdict changed against docs/claims.md (exit 1); see CHANGED in its report. Continuing."; \
	elif [ $$rc != 0 ]; then echo "make run: moelab check failed with exit code $$rc"; exit $$rc; fi
	@set -e; for s in $(DEFAULT_SCENARIOS); do \
	  echo "== moelab run $$s"; \
	  $(MOELAB) run $$s $(RUN_ARGS); \
	done
	@$(MAKE) --no-print-directory plots

# results/NAME.csv is plotted by the script its scenario names (`plot = ...` in scenarios/NAME.toml;
# several scenarios share one script), else by plots/NAME.gp.
plots:
	@command -v gnuplot >/dev/null || { echo "plots: gnuplot not found (apt-get install gnuplot-nox)"; exit 1; }
	@n=0; for csv in $(RESULTS)/*.csv; do \
	  [ -e "$$csv" ] || continue; \
	  name=$$(basename "$$csv" .csv); png="$(RESULTS)/$$name.png"; gp="plots/$$name.gp"; \
	  if [ -f "scenarios/$$name.toml" ]; then \
	    named=$$(sed -n 's/^plot *= *"\(.*\)".*/\1/p' "scenarios/$$name.toml" | head -n 1); \
	    [ -n "$$named" ] && gp="$$named"; \
	  fi; \
	  if [ -f "$$gp" ]; then \
	    echo "plot $$csv -> $$png"; \
	    gnuplot -e "csv='$$csv'; png='$$png'" "$$gp" || exit 1; n=$$((n+1)); \
	  fi; \
	done; echo "plots: $$n written to $(RESULTS)/"

# The binary, the library and headers, the CMake package, and the scenarios + plot scripts
# (<prefix>/share/moelab), so that moelab works from any directory. PREFIX=/usr/local by default.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

test: build
	ctest --test-dir $(BUILD_DIR) -L fast --output-on-failure -j2

test-slow: build
	ctest --test-dir $(BUILD_DIR) -L slow --output-on-failure -j2

# The fast suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build directory
# (cmake/MoelabSanitize.cmake; a full build, slow on 2 cores). Results: docs/hardening.md.
ASAN_DIR ?= build-asan
test-asan:
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DMOELAB_SANITIZE=address,undefined \
	  -DMOELAB_CUDA=OFF -DMOELAB_BUILD_BENCH=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_DIR) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_DIR) -L fast --output-on-failure -j$(JOBS)

# Deterministic mutation fuzzing of the scenario parser and the CLI option parsers
# (tests/fuzz/fuzz_test.cpp); FUZZ_SECONDS split over both targets. Findings: $(BUILD_DIR)/fuzz-findings.
FUZZ_SECONDS ?= 60
fuzz: build
	MOELAB_FUZZ_SECONDS=$(FUZZ_SECONDS) ./$(BUILD_DIR)/tests/test_fuzz "[.fuzz_long]" --durations yes

# Each workload once, moelab side by side with the NumPy baseline on the same CPU (bench/*_side_by_side.sh;
# the exact commands and the recorded numbers are in bench/RESULTS.md). BENCH_TRIALS: Fig. 3 trials per n.
BENCH_TRIALS ?= 20
bench: build deps-bench
	cmake --build $(BUILD_DIR) --target moelab_bench -j$(JOBS)
	MOELAB=$(MOELAB) bench/fig3_side_by_side.sh $(BENCH_TRIALS) $(JOBS)
	BENCH_SPECTRA=$(BUILD_DIR)/bin/bench_spectra bench/spectra_side_by_side.sh $(JOBS)
	BENCH_ROUTING=$(BUILD_DIR)/bin/bench_routing bench/routing_side_by_side.sh $(JOBS)

clean:
	rm -rf $(BUILD_DIR)

clean-results:
	rm -rf $(RESULTS)
