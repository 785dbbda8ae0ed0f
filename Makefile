# gpudse — build, install, run the quickstart, test.
# `make run` and `make check` first install missing Debian packages (deps).

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
DATADIR  = $(PREFIX)/share/gpudse
VERSION  = 0.1.0

CC      ?= cc
PKGS     = gsl libxml-2.0 cairo pangocairo libcjson libcurl libcrypto libmatheval
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wno-format-truncation -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# Source folders, one per stage or layer (README "Source layout" draws the
# layers and which may include which; tests/layers.sh checks every include
# against them, and a folder added here needs its layer there). Headers are
# included by bare name.
SRCDIRS  = pipeline/core pipeline/model pipeline/backends pipeline/search \
           pipeline/engine pipeline/split pipeline/compare \
           analysis/math analysis analysis/agents report/draw report
INCS     = $(addprefix -I,$(SRCDIRS) pipeline/cli)
DEFS     = -DGPUDSE_VERSION='"$(VERSION)"' -DGPUDSE_DATADIR='"$(DATADIR)"'
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECKLIBS = $(shell pkg-config --libs check 2>/dev/null)
ALLCFLAGS = $(WARN) $(CFLAGS) $(INCS) $(DEFS) $(PKGCFLAGS)

B        = build

# The CUDA kernels of the measure-cuda backend are built only where nvcc
# exists; without it (or without a GPU at run time) measure-cuda says it
# skipped. nvcc objects are plain host/device code linked into the library.
NVCC ?= $(shell command -v nvcc 2>/dev/null)
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Machine code for Ampere and Hopper (A100, H100/H200) and PTX that any
# other GPU from Turing on compiles when the program loads.
NVCCFLAGS ?= -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_75,code=compute_75
CUDAOBJ  = $(patsubst %.cu,$(B)/%.cu.o,$(wildcard pipeline/backends/cuda/*.cu))
DEFS    += -DGPUDSE_HAVE_CUDA
# The CUDA runtime is linked statically (NVIDIA's libcudart_static.a, which
# needs -ldl -lrt -lpthread): a GPGPU-Sim user has the simulator's
# libcudart.so first on LD_LIBRARY_PATH, and a shared libcudart would load
# the simulator into gpudse itself. No rpath, no NEEDED libcudart (tested).
CUDALIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
PKGLIBS += $(CUDALIBS)
endif
LIBSRC   = $(wildcard $(addsuffix /*.c,$(SRCDIRS)))
HDRS     = $(wildcard $(addsuffix /*.h,$(SRCDIRS)))
LIBOBJ   = $(LIBSRC:%.c=$(B)/%.o) $(CUDAOBJ)
TESTSRC  = $(wildcard tests/test_*.c)
TESTBIN  = $(TESTSRC:tests/%.c=$(B)/tests/%)
BENCHSRC = $(wildcard tests/bench_*.c)
BENCHBIN = $(BENCHSRC:tests/%.c=$(B)/tests/%)

# Debian packages needed to build, test and render (dpkg names).
DEBS = gcc make pkg-config libgsl-dev libxml2-dev libcairo2-dev libpango1.0-dev \
       libcjson-dev libcurl4-openssl-dev libssl-dev check poppler-utils \
       fonts-dejavu-core libxml2-utils time libmatheval-dev

BIN      = gpudse
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps test-deps run check fuzz check-sanitize install uninstall clean bench print-srcdirs
all: $(BIN)

# The library's source folders, for the scripts of tests/ (fuzz, doc_paths).
print-srcdirs:
	@echo $(SRCDIRS)

$(BIN): $(B)/pipeline/cli/main.o $(B)/libgpudse.a
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(PKGLIBS) -lm

$(B)/libgpudse.a: $(LIBOBJ)
	@rm -f $@
	@ar rcs $@ $^

$(B)/pipeline/backends/cuda/%.cu.o: pipeline/backends/cuda/%.cu pipeline/backends/cuda/gd_cuda.h
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	@$(NVCC) $(NVCCFLAGS) -Ipipeline/backends/cuda -c -o $@ $<

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALLCFLAGS) -c -o $@ $<

$(B)/tests/%: tests/%.c tests/testutil.h tests/testrun.h $(B)/libgpudse.a
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(ALLCFLAGS) $(shell pkg-config --cflags check) -Itests -o $@ $< $(B)/libgpudse.a $(PKGLIBS) $(CHECKLIBS) -lm

# Install the missing Debian packages (as root), or say exactly what to run.
# deps: what building and `make run` need; test-deps: what only the tests
# need (a single-node Slurm for the cluster executor's test).
TEST_DEBS = munge slurmctld slurmd slurm-client
define install_debs
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "gpudse: missing Debian packages; as root run:" >&2; \
	  echo "  apt-get install -y$$missing" >&2; exit 2; \
	fi; \
	echo "gpudse: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq --no-install-recommends$$missing
endef

deps:
	$(call install_debs,$(DEBS))

test-deps: deps
	$(call install_debs,$(TEST_DEBS))

run: deps
	@$(MAKE) --no-print-directory gpudse
	./gpudse run campaigns/quickstart.xml

check: test-deps
	@$(MAKE) --no-print-directory gpudse $(TESTBIN)
	@sh tests/run_tests.sh $(TESTBIN)

# The whole suite under AddressSanitizer, UBSan and LeakSanitizer, built
# apart in build-san/ so it never mixes with the normal objects.
check-sanitize: test-deps
	@$(MAKE) --no-print-directory B=build-san BIN=build-san/gpudse \
	    CFLAGS="$(SANFLAGS)" build-san/gpudse $(TESTBIN:$(B)/%=build-san/%)
	@GPUDSE_BIN=build-san/gpudse ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    sh tests/run_tests.sh $(TESTBIN:$(B)/%=build-san/%)

bench: deps
	@$(MAKE) --no-print-directory gpudse $(BENCHBIN)
	@sh tests/bench.sh

# libFuzzer harnesses of tests/fuzz/ (built with clang), each run for
# FUZZ_SECONDS seconds; crashes land in tests/tmp/fuzz/crashes/ and make
# fuzz fails. clang and its libFuzzer/sanitizer runtime (libclang-rt-14-dev,
# which clang only recommends) are installed as root when missing.
FUZZ_SECONDS ?= 60
FUZZ_DEBS = clang libclang-rt-14-dev
fuzz: deps
	$(call install_debs,$(FUZZ_DEBS))
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# The binary, its data (templates/), the example campaigns and the nightly
# script (share/gpudse/campaigns/), and gpudse-nightly, which runs that
# script with the installed gpudse.
install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(DATADIR)/campaigns
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gpudse
	cp -R templates/. $(DESTDIR)$(DATADIR)/
	install -m 644 campaigns/*.xml $(DESTDIR)$(DATADIR)/campaigns/
	install -m 755 campaigns/nightly.sh $(DESTDIR)$(DATADIR)/campaigns/nightly.sh
	printf '#!/bin/sh\n# gpudse-nightly: $(DATADIR)/campaigns/nightly.sh with the installed gpudse\nexport GPUDSE="$${GPUDSE:-$(BINDIR)/gpudse}"\nexec "$(DATADIR)/campaigns/nightly.sh" "$$@"\n' \
	    > $(DESTDIR)$(BINDIR)/gpudse-nightly
	chmod 755 $(DESTDIR)$(BINDIR)/gpudse-nightly

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpudse $(DESTDIR)$(BINDIR)/gpudse-nightly
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf $(B) build-san gpudse tests/tmp
