# mpisw: convenience targets around CMake/CTest.
#
#   make deps      install missing tools from Debian's packages (scripts/install-deps.sh)
#   make build     configure and build build/mpich and build/openmpi (Ninja, RelWithDebInfo)
#   make test      deps + build, then ctest in build/mpich and in build/openmpi
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

.PHONY: all deps build test demo install clean $(addprefix build-,$(FLAVORS))

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

# Both suites run even when the first fails; the exit status says whether
# either failed. Tests are MPI jobs on a small machine: run them one at a time.
test: build
	@failed=; \
	for f in $(FLAVORS); do \
	  echo "==== ctest in build/$$f"; \
	  if ! (cd build/$$f && ctest --output-on-failure --timeout $(CTEST_TIMEOUT) </dev/null); then \
	    failed="$$failed $$f"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: FAILED in:$$failed"; exit 1; fi; \
	echo "make test: all tests passed in: $(FLAVORS)"

demo: deps
	@$(MAKE) --no-print-directory build-mpich
	@bash scripts/demo.sh build/mpich

install: deps
	@case "$(MPI)" in mpich|openmpi) ;; *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;; esac
	@$(MAKE) --no-print-directory build-$(MPI)
	cmake --install build/$(MPI) --prefix "$(PREFIX)"

clean:
	rm -rf build
