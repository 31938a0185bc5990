# mpisw: convenience targets around CMake/CTest.
#
#   make deps      install missing tools from Debian's packages (scripts/install-deps.sh)
#   make build     configure and build build/mpich and build/openmpi (Ninja, RelWithDebInfo)
#   make test      deps + build, then ctest in build/mpich and in build/openmpi
#                  (SANITIZER_PASS=1 adds the sanitizer pass, make test-asan,
#                  which .ci/run runs as a step of its own; FLAVORS=mpich or
#                  FLAVORS=openmpi builds and tests one MPI only)
#   make test-extended  what make test leaves to .ci/run: MPICH's io tests
#                  linked (label extended), Open MPI's kill -9 trials (label
#                  reliability; make test runs MPICH's)
#   make test-asan ASan+UBSan build of MPICH (build/asan-mpich): its tests, and
#                  20 s of the parser fuzz target (tests/fuzz/)
#   make fuzz      the parser fuzz target for FUZZ_SECONDS (600) in build/asan-mpich
#   make demo      deps + build/mpich, then run the examples with MPISW_REPORT=1
#   make install   PREFIX=/opt/mpisw [MPI=mpich|openmpi]  (one MPI per prefix)
#   make clean     remove build/
#
# Both MPIs are always named exactly (mpicc.mpich, mpicc.openmpi): with both
# installed, the plain mpicc/mpiexec are Open MPI's.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

FLAVORS    := mpich openmpi
BUILD_TYPE ?= RelWithDebInfo
PREFIX     ?= /usr/local
MPI        ?= mpich
# Per-test time limit (s) for tests that do not set their own.
CTEST_TIMEOUT ?= 300

.PHONY: all deps build test test-asan build-asan fuzz demo install clean \
        $(addprefix build-,$(FLAVORS))

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@$(MAKE) --no-print-directory $(addprefix build-,$(FLAVORS))

# Configure once (Ninja), then let CMake re-run itself when CMakeLists change.
$(addprefix build-,$(FLAVORS)): build-%:
	@if [ ! -f build/$*/build.ninja ]; then \
	  gen=; [ -f build/$*/CMakeCache.txt ] || gen="-G Ninja"; \
	  echo "cmake -S . -B build/$* $$gen -DMPI_C_COMPILER=mpicc.$* -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)"; \
	  cmake -S . -B build/$* $$gen -DMPI_C_COMPILER=mpicc.$* -DCMAKE_BUILD_TYPE=$(BUILD_TYPE); \
	fi
	cmake --build build/$*

# Both suites run even when the first fails, and the sanitizer pass after
# them when SANITIZER_PASS=1 (by default it is .ci/run's own step, make
# test-asan, so that make test stays under 20 minutes on two cores); the
# exit status says whether any failed. Tests are MPI jobs on a small machine: run them one at a time.
# Left to .ci/run's further steps (make test-extended), so that make test
# stays under 20 minutes on two cores: label extended (MPICH's io tests
# linked with libmpisw) in both trees, and in build/openmpi the jobs killed
# at random instants (label reliability: 1-3 s a job start with Open MPI;
# build/mpich runs its own in make test).
# The unit tests (unit_*) are MPI-free, the same programs in both trees, and
# bench_smoke checks the benchmark driver (Python): build/mpich (and the
# sanitizer pass) runs them.
SANITIZER_PASS ?= 0
CTEST_EXCL_mpich   := extended
CTEST_EXCL_openmpi := reliability|extended
CTEST_EXCL_RE_openmpi := ^(unit_.*|bench_smoke)$$
test: build $(if $(filter 1,$(SANITIZER_PASS)),build-asan)
	@failed=; \
	for f in $(FLAVORS); do \
	  excl=$$(case $$f in mpich) echo "$(CTEST_EXCL_mpich)";; openmpi) echo "$(CTEST_EXCL_openmpi)";; esac); \
	  exre=$$(case $$f in openmpi) echo "$(CTEST_EXCL_RE_openmpi)";; esac); \
	  echo "==== ctest in build/$$f$${excl:+ (without label $$excl)}$${exre:+ (without $$exre)}"; \
	  if ! (cd build/$$f && ctest --output-on-failure --timeout $(CTEST_TIMEOUT) $${excl:+-LE $$excl} $${exre:+-E "$$exre"} </dev/null); then \
	    failed="$$failed $$f"; \
	  fi; \
	done; \
	trees="$(FLAVORS)"; \
	if [ "$(SANITIZER_PASS)" = 1 ]; then \
	  trees="$$trees asan-mpich"; \
	  if ! $(MAKE) --no-print-directory run-asan; then failed="$$failed asan-mpich"; fi; \
	fi; \
	if [ -n "$$failed" ]; then echo "make test: FAILED in:$$failed"; exit 1; fi; \
	echo "make test: all tests passed in: $$trees"

# What make test leaves out above, in each tree (.ci/run's further step).
.PHONY: test-extended
test-extended: build
	cd build/mpich && ctest --output-on-failure --timeout $(CTEST_TIMEOUT) -L '$(CTEST_EXCL_mpich)' </dev/null
	cd build/openmpi && ctest --output-on-failure --timeout $(CTEST_TIMEOUT) -L '$(CTEST_EXCL_openmpi)' </dev/null

# ---- Sanitizer pass: AddressSanitizer + UndefinedBehaviorSanitizer on MPICH.
# Every report aborts its process, so it fails its test (UBSan does not
# recover: -fno-sanitize-recover=all). Leaks: the MPI-free unit tests run with
# LeakSanitizer on (the core must free what it allocates); the MPI programs
# with it off, since MPICH keeps its allocations to exit and the test
# programs do not free their scratch strings; the library's own leaks of
# windows, files and mappings are what mpi_no_leaks_* and MPISW_REPORT
# check. So no suppressions file is needed: nothing is suppressed.
# Left out, with the reason:
#   label preload, example_preload*  an uninstrumented program with libmpisw
#        in LD_PRELOAD: ASan must be the first library of the process, and
#        the tests' drivers set LD_PRELOAD themselves
#   label demo   scripts/demo.sh runs the preload example too (and times runs)
#   label install  a consumer built without -fsanitize against the ASan
#        library is the same preload situation
#   label simcluster  jobs on the simulated cluster preload a guard for UCX's
#        TCP close (tests/tools/simcluster_ucx_close.c), the same preload
#        situation; build/mpich runs them
#   label reliability  jobs killed at random instants (kill -9, power cuts):
#        process deaths, not memory errors; build/mpich runs them
#   unit_test_pager_tsan  ThreadSanitizer, not ASan: build/mpich runs it
SAN_TREE   := build/asan-mpich
SANITIZE   ?= address,undefined
SAN_ASAN   := halt_on_error=1:abort_on_error=1
SAN_UBSAN  := halt_on_error=1:abort_on_error=1:print_stacktrace=1
SAN_EXCL_LABELS := preload|demo|install|reliability|simcluster
SAN_EXCL_NAMES  := ^(example_preload.*|readme_code)$$
FUZZ_SECONDS ?= 600

build-asan: deps
	@if [ ! -f $(SAN_TREE)/build.ninja ]; then \
	  gen=; [ -f $(SAN_TREE)/CMakeCache.txt ] || gen="-G Ninja"; \
	  echo "cmake -S . -B $(SAN_TREE) $$gen -DMPI_C_COMPILER=mpicc.mpich -DMPISW_SANITIZE=$(SANITIZE)"; \
	  cmake -S . -B $(SAN_TREE) $$gen -DMPI_C_COMPILER=mpicc.mpich \
	        -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DMPISW_SANITIZE=$(SANITIZE); \
	fi
	cmake --build $(SAN_TREE)

test-asan: build-asan
	@$(MAKE) --no-print-directory run-asan

# Two ctest runs: the unit tests with leak checking, then the rest without.
.PHONY: run-asan
run-asan:
	@echo "==== ctest in $(SAN_TREE) (ASan+UBSan; without labels $(SAN_EXCL_LABELS))"; \
	cd $(SAN_TREE); failed=0; \
	export UBSAN_OPTIONS=$(SAN_UBSAN); \
	ASAN_OPTIONS=$(SAN_ASAN):detect_leaks=1 \
	  ctest --output-on-failure --timeout $(CTEST_TIMEOUT) -R '^unit_' -E '_tsan$$' </dev/null || failed=1; \
	ASAN_OPTIONS=$(SAN_ASAN):detect_leaks=0 \
	  ctest --output-on-failure --timeout $(CTEST_TIMEOUT) -E '^unit_|$(SAN_EXCL_NAMES)' \
	        -LE '$(SAN_EXCL_LABELS)' </dev/null || failed=1; \
	exit $$failed

fuzz: build-asan
	sh tests/fuzz/run.sh $(SAN_TREE)/tests/fuzz/fuzz_hints $(FUZZ_SECONDS) $(SAN_TREE)/tests/fuzz/long

demo: deps
	@$(MAKE) --no-print-directory build-mpich
	@bash scripts/demo.sh build/mpich

install: deps
	@case "$(MPI)" in mpich|openmpi) ;; *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;; esac
	@$(MAKE) --no-print-directory build-$(MPI)
	cmake --install build/$(MPI) --prefix "$(PREFIX)"

clean:
	rm -rf build
