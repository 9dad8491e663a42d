# FEMU: thin driver over ./configure (QEMU graft + build-femu/), the
# standalone FTL build (meson, build/) and the embedded guest (scripts/guest/).
#
#   make demo     configure if needed, build everything, run scripts/demo.sh
#   make check    build what the tests need, run tests/run (all suites)
#   make check-fresh  the two commands above, exactly as README gives them, in
#                 a clean Debian 12 root built with mmdebstrap (root only;
#                 FRESH_FLAGS=--through=configure stops after configure and
#                 the FTL build; scripts/check-fresh.sh --help)
#
# Other targets: build (= qemu sim guest), qemu, sim, guest, configure, clean,
# distclean; tables (SCALE=scaled|full: regenerate the tutorials' tables,
# scripts/tables/regen.sh, and their plots, scripts/tables/plots.sh); fuzz-ftl (FUZZ_SECONDS=600: libFuzzer on the FTL core, see
# tests/fuzz/fuzz-ftl.sh); fuzz-chaos (FUZZ_SECONDS, SEED, FUZZ_BUILD: the
# command-path fuzzer over qtest); asan (a second QEMU build in build-asan/ with
# ASan + UBSan, and the FTL with both in build-asan-ftl/); check-asan (asan,
# then the suites ASAN_SUITES against it: unit, config, qtest, fuzz replay
# and the femu/FDP guest tests; not part of check: see tests/fuzz/README.md);
# check-valgrind (every qtest group with QEMU under valgrind memcheck: any
# invalid access makes QEMU exit 99, which fails the group; about 5 min).  Variables: BUILD_DIR (default build-femu), SIM_DIR (build),
# CONFIGURE_FLAGS (passed to ./configure), SUITES (for check: tests/run SUITES).

BUILD_DIR ?= build-femu
SIM_DIR ?= build
CONFIGURE_FLAGS ?=
SUITES ?=
# Every ninja/meson run in the QEMU build dir holds this lock, so concurrent
# builds (several engineers, a test) never run there at once.
LOCK ?= /tmp/femu-build.lock

QEMU_BIN := $(BUILD_DIR)/qemu-system-x86_64

.PHONY: all demo check build qemu sim guest configure clean distclean help \
	fuzz-ftl fuzz-state fuzz-trace fuzz-chaos asan check-asan check-valgrind

all: build

help:
	@sed -n '1,/^$$/p' Makefile

$(BUILD_DIR)/build.ninja:
	./configure --build-dir=$(BUILD_DIR) $(CONFIGURE_FLAGS)

configure:
	./configure --build-dir=$(BUILD_DIR) $(CONFIGURE_FLAGS)

# ninja decides what is stale (hw/femu is linked into the grafted tree).
# The qtest driver's files are linked one by one: a tests/qtest/femu-*.[ch]
# that the grafted tree lacks (added since the last ./configure) grafts
# again first (cheap: QEMU's own configure does not re-run).
# $(call regraft,BUILD_DIR,CONFIGURE ARGS)
regraft = for f in tests/qtest/femu-*.[ch]; do \
		test -e $(dir $(1)).$(notdir $(1))-qemu-src/tests/qtest/$${f\#\#*/} || { \
			echo "make: $$f is not grafted into $(1) yet: ./configure"; \
			./configure --build-dir=$(1) $(2) || exit 1; \
			break; }; \
	done
qemu: $(BUILD_DIR)/build.ninja
	@$(call regraft,$(BUILD_DIR),$(CONFIGURE_FLAGS))
	flock $(LOCK) ninja -C $(BUILD_DIR) qemu-system-x86_64

$(SIM_DIR)/build.ninja:
	meson setup $(SIM_DIR)

sim: $(SIM_DIR)/build.ninja
	ninja -C $(SIM_DIR)

guest:
	scripts/guest/build-guest.sh --quiet

build: qemu sim guest

demo: build
	scripts/demo.sh

check: build
	tests/run $(SUITES)

# Not part of check: needs root and builds a whole Debian root.
.PHONY: check-fresh
FRESH_FLAGS ?=
check-fresh:
	scripts/check-fresh.sh $(FRESH_FLAGS)

clean:
	-test ! -f $(BUILD_DIR)/build.ninja || flock $(LOCK) ninja -C $(BUILD_DIR) clean
	rm -rf $(SIM_DIR)

# Removes the QEMU build and its grafted source tree (the downloaded QEMU
# source in the cache dir stays).
distclean:
	rm -rf $(SIM_DIR) $(BUILD_DIR) $(dir $(BUILD_DIR)).$(notdir $(BUILD_DIR))-qemu-src

# --- robustness (tests/fuzz, tests/qtest, sanitizers) -----------------------
FUZZ_SECONDS ?= 600
ASAN_DIR ?= build-asan
ASAN_SIM_DIR ?= build-asan-ftl
# What check-asan runs against the sanitizer builds: the FTL unit tests
# (meson), the configuration table, every qtest group (random-chaos and
# random-commands included), the FTL fuzz replay, and the guest tests of
# the femu device and of FDP.  tests/fuzz/README.md has the time it takes.
ASAN_SUITES ?= meson config qtest fuzz \
	$(sort $(wildcard tests/guest/femu-*.t tests/guest/fdp-*.t))
# QEMU leaks a little at exit by design (LSan off); ASan aborts and UBSan
# stops at the first report, so a finding fails the test that caused it
# (QEMU's exit status is checked by every suite).
ASAN_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

fuzz-ftl:
	tests/fuzz/fuzz-ftl.sh $(FUZZ_SECONDS)

# the state-file loader under libFuzzer (tests/fuzz/fuzz-state.c)
fuzz-state:
	tests/fuzz/fuzz-state.sh $(FUZZ_SECONDS)

# femu-sim's trace parsers under libFuzzer (tests/fuzz/fuzz-trace.c)
fuzz-trace:
	tests/fuzz/fuzz-trace.sh $(FUZZ_SECONDS)

# A second QEMU build (ASan + UBSan) in $(ASAN_DIR) and the FTL with both in
# $(ASAN_SIM_DIR).  Its own build dir: it does not take the build-femu lock;
# ninja rebuilds whatever changed in hw/femu since the last run.
asan:
	test -f $(ASAN_DIR)/build.ninja || ./configure --build-dir=$(ASAN_DIR) \
		$(CONFIGURE_FLAGS) -- --enable-asan --enable-ubsan
	@$(call regraft,$(ASAN_DIR),$(CONFIGURE_FLAGS) -- --enable-asan --enable-ubsan)
	nice -n 10 ninja -C $(ASAN_DIR) qemu-system-x86_64 tests/qtest/femu-test
	test -f $(ASAN_SIM_DIR)/build.ninja || meson setup $(ASAN_SIM_DIR) \
		-Db_sanitize=address,undefined -Db_lundef=false
	nice -n 10 ninja -C $(ASAN_SIM_DIR)

# Not part of check (a full second QEMU build, and slow tests).
check-asan: asan guest
	$(ASAN_ENV) FEMU_BUILD_DIR=$(CURDIR)/$(ASAN_DIR) \
	FEMU_QEMU=$(CURDIR)/$(ASAN_DIR)/qemu-system-x86_64 \
	FEMU_SIM_DIR=$(CURDIR)/$(ASAN_SIM_DIR) tests/run $(ASAN_SUITES)

# The command-path fuzzer (qtest group random-chaos) for FUZZ_SECONDS with
# a new random seed (SEED=N replays one; the seed is printed first), against
# $(BUILD_DIR), or against the sanitizer build with FUZZ_BUILD=$(ASAN_DIR)
# (run make asan first).  tests/fuzz/README.md has the current figures.
FUZZ_BUILD ?= $(BUILD_DIR)
SEED ?=
fuzz-chaos:
	@if [ "$(FUZZ_BUILD)" = "$(BUILD_DIR)" ]; then \
		flock $(LOCK) ninja -C $(BUILD_DIR) qemu-system-x86_64 tests/qtest/femu-test; \
	fi
	cd $(FUZZ_BUILD) && $(ASAN_ENV) FEMU_QTEST_SEED=$(SEED) \
	FEMU_QTEST_FUZZ_SECONDS=$(FUZZ_SECONDS) \
	QTEST_QEMU_BINARY=./qemu-system-x86_64 nice -n 10 \
		tests/qtest/femu-test --tap -k -p /x86_64/femu/random-chaos

check-valgrind: $(BUILD_DIR)/build.ninja
	flock $(LOCK) ninja -C $(BUILD_DIR) qemu-system-x86_64 tests/qtest/femu-test
	cd $(BUILD_DIR) && FEMU_QTEST_RANDOM_CMDS=2000 FEMU_QTEST_CHAOS_STEPS=300 \
	QTEST_QEMU_BINARY="valgrind -q --error-exitcode=99 ./qemu-system-x86_64" \
		tests/qtest/femu-test --tap -k

# --- tutorial tables (docs/tutorials, docs/tables) -----------------------
# make tables [SCALE=scaled|full] [TABLES=02-threshold,...] [REGEN_FLAGS=...]:
# regenerate the tutorials' tables from scratch, guest (femu-run + the
# tutorial scripts) and simulator side by side, and splice them into
# docs/tutorials/*.md (scripts/tables/regen.sh --help).  scaled: minutes
# under TCG; full: the tutorials' device, hours under TCG.  The runs go in
# parallel with GNU parallel, one per free core (REGEN_FLAGS="-j N" to
# choose; "--hosts a,b" to spread them over hosts by ssh).
SCALE ?= scaled
TABLES ?=
REGEN_FLAGS ?=
.PHONY: tables
# REGEN_FLAGS=--sim-only needs only the simulator: it checks the committed
# tables' femu-sim columns in seconds and leaves docs/ alone (regen.sh --help).
# Then docs/plots/*.svg are drawn again from the full-size tables
# (scripts/tables/plots.sh, gnuplot), so that the plots follow their tables.
tables: $(if $(findstring --sim-only,$(REGEN_FLAGS)),sim,build)
	scripts/tables/regen.sh --scale $(SCALE) $(if $(TABLES),--only $(TABLES)) $(REGEN_FLAGS)
	$(if $(findstring --sim-only,$(REGEN_FLAGS)),,scripts/tables/plots.sh)
