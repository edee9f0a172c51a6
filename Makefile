# Makefile: builds the daemon build/cityd, its Criterion tests, a sanitizer build the tests
# also run under, and the benchmarks. `make test` is the command CI runs.
#
#   make            build/cityd
#   make test       every C test under ASan+UBSan, the reliability suite, the OpenAPI lint,
#                   contract and browser tests, and the container test beside them
#   make test-unit  every C test (engine and service) plainly
#   make docker-test
#                   the image and docker/compose.yml's topology built and run with podman
#   make test-reliability
#                   races, crashes and database restarts under load, hostile input, the
#                   fuzzer for a bounded time, the secrecy audit; prints what it tried
#   make sanitize   build-san/cityd and tests with -fsanitize=address,undefined
#   make bench      the service's and the engine's figures (bench/results.json)
#   make format     clang-format every C file in place
#   make clean

CC      ?= cc
PKGS    := jansson libpq libmicrohttpd libcrypto zlib libsodium
CSTD    := -std=c17 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Wpedantic -Werror -Wstrict-prototypes -Wmissing-prototypes \
           -Wshadow -Wformat=2 -Wvla -Wcast-qual -Wpointer-arith -Wundef
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -MMD -MP -Isrc -Isrc/engine $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ljansson -lpq -lmicrohttpd -lcrypto -lz -lsodium) -lunistring -lpthread -lm
TEST_LIBS := -lcriterion -lcurl

ifeq ($(SANITIZE),1)
BUILD   := build-san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build
endif

ENGINE_SRC := $(wildcard src/engine/*.c src/engine/*/*.c)
LIB_SRC    := $(ENGINE_SRC) $(filter-out src/main.c,$(wildcard src/*.c))
MAIN_SRC   := src/main.c
TEST_SRC   := $(wildcard tests/test_*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.SECONDARY:
.PHONY: all test test-js test-engine test-unit test-reliability fuzz fuzz-run sanitize bench format \
        format-check clean deps deps-run run docker-test ha-test

all: $(BUILD)/cityd

$(BUILD)/cityd: $(MAIN_OBJ) $(BUILD)/libcity.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Made anew each time: ar would keep the members of renamed or removed sources.
$(BUILD)/libcity.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The tests' own code is built without optimisation: the code under test (libcity.a, cityd) keeps
# -O2, and a large Criterion file at -O2 under the sanitizers took 53 s to compile (test_rules.c;
# 6 s at -O0), most of the suite's build time.
$(BUILD)/tests/%.o: OPT = -O0 -g

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/libcity.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(TEST_LIBS)

# Tests read the card file and run the built binary; CITY_ROOT tells them where they are.
# Service tests (tests/test_svc_*.c) run against a throw-away PostgreSQL that
# scripts/with-postgres.sh starts and removes.
SVC_BIN  := $(filter $(BUILD)/tests/test_svc_% $(BUILD)/tests/test_store,$(TEST_BIN))
UNIT_BIN := $(filter-out $(SVC_BIN),$(TEST_BIN))

# Each test's output goes to $(BUILD)/logs/NAME.log (scripts/quiet.sh): only Criterion's report
# is shown, unless the test fails. test-engine: the tests that need no database; test-unit: those
# and the service tests, each binary on a throw-away PostgreSQL of its own.
#
# One target per binary (run-NAME), so that `make -j2` runs two binaries at once, as `make test`
# does: the service tests mostly wait (on their daemons, PostgreSQL and timers: test_svc_api took
# 52 s of wall time for 6 s of CPU under ASan), so one after another left the cores idle. Each
# binary's lines are printed together once it ends. The service tests come first, the longest
# of them first, so that the short engine tests fill in beside them.
SVC_LONG := $(filter $(notdir $(SVC_BIN)),test_svc_api test_svc_presence test_store test_svc_chat \
              test_svc_accounts)
RUN_SVC  := $(patsubst %,run-%,$(SVC_LONG) $(filter-out $(SVC_LONG),$(notdir $(SVC_BIN))))
RUN_UNIT := $(patsubst %,run-%,$(notdir $(UNIT_BIN)))
.PHONY: $(RUN_SVC) $(RUN_UNIT)

$(RUN_UNIT): run-%: $(BUILD)/tests/% $(BUILD)/cityd
	@out=$$(CITY_ROOT=$(CURDIR) CITYD=$(CURDIR)/$(BUILD)/cityd \
	  ./scripts/quiet.sh $(BUILD)/logs/$*.log $< --jobs=2 2>&1); st=$$?; \
	  printf '== %s\n%s\n' $< "$$out"; exit $$st

$(RUN_SVC): run-%: $(BUILD)/tests/% $(BUILD)/cityd
	@out=$$(CITY_ROOT=$(CURDIR) CITYD=$(CURDIR)/$(BUILD)/cityd \
	  ./scripts/quiet.sh $(BUILD)/logs/$*.log ./scripts/with-postgres.sh $< --jobs=2 2>&1); st=$$?; \
	  printf '== %s\n%s\n' $< "$$out"; exit $$st

test-engine: $(RUN_UNIT)

test-unit: $(RUN_SVC) $(RUN_UNIT)

# Serves http://localhost:8080 (PORT overrides) with a private PostgreSQL under ./var/
# unless DATABASE_URL is set.
run: deps-run all
	./scripts/run.sh

# What running needs, and nothing only the tests use (deps installs those too).
deps-run:
	@./scripts/deps.sh run

# The C tests run once, under the sanitizers (the same -O2 code with every check on); the plain
# daemon is what the browser tests drive. `make test-unit` alone runs them all plainly. The
# container test mostly waits (apt downloads, image layers, podman), so it runs beside the
# sanitized suites (scripts/background.sh) and is collected at the end. So does the HA test
# (a cluster that bootstraps, fails over and rejoins: mostly waiting on PostgreSQL's restarts),
# beside the unit tests, whose timed checks leave room for a loaded machine; it needs the
# plain build, made first (test-js needs it anyway). It is collected before the reliability
# suite, whose flood tests measure latency and want the machine to themselves. The fuzzers are
# built beside the unit tests too, one file at a time (clang instruments the whole engine for
# them: CI's reliability phase spent about two minutes on that before its fuzz run), and
# collected with the HA test; a failed build prints its log there.
test: deps
	@./scripts/deps.sh node
	@./scripts/deps.sh docker
	$(MAKE) format-check
	@./scripts/background.sh start docker-test ./scripts/docker-test.sh
	@t=$$(date +%s); $(MAKE) -j2 all && echo "time: plain build $$(( $$(date +%s) - t )) s"
	@./scripts/background.sh start ha-test $(MAKE) ha-test
	@./scripts/background.sh start fuzz-build $(MAKE) fuzz
	@t=$$(date +%s); $(MAKE) -j2 SANITIZE=1 test-unit && echo "time: test-unit $$(( $$(date +%s) - t )) s"
	@t=$$(date +%s); ./scripts/background.sh wait ha-test && echo "time: ha-test, waited $$(( $$(date +%s) - t )) s"
	@t=$$(date +%s); out=$$(./scripts/background.sh wait fuzz-build 2>&1) || { echo "$$out"; exit 1; }; \
	  echo "time: fuzz build, waited $$(( $$(date +%s) - t )) s"
	@t=$$(date +%s); $(MAKE) -j2 SANITIZE=1 test-reliability && echo "time: test-reliability $$(( $$(date +%s) - t )) s"
	@t=$$(date +%s); $(MAKE) -j2 test-js && echo "time: test-js $$(( $$(date +%s) - t )) s"
	@t=$$(date +%s); ./scripts/background.sh wait docker-test && echo "time: docker-test, waited $$(( $$(date +%s) - t )) s"
	@echo "All test suites passed (plain and ASan+UBSan, reliability, OpenAPI lint, contract, browser, HA failover, containers)."

# PostgreSQL high availability (docs/deploy.md, "Past one machine"): 3 etcd + 3 Patroni nodes in
# strict synchronous mode + 2 cityd on loopback; the primary killed 3 times, one switchover, one
# etcd member killed, under a steady order load; fails when an acknowledged order is lost. 140 to
# 240 s of wall time here, by the machine's load (scripts/ha-test.sh's last line has its figures).
ha-test: all
	@./scripts/deps.sh node
	./scripts/ha-test.sh $(BUILD)

# The reliability suite (tests/reliability/test_*.c), each on its own throw-away PostgreSQL,
# then the fuzzer for FUZZ_SECONDS. Each test appends "key value" lines to $$CITY_COUNTS;
# scripts/reliability-summary.sh adds them up, prints what was tried and fails when an order
# that got a 202 was lost.
REL_SRC := $(wildcard tests/reliability/test_*.c)
REL_BIN := $(REL_SRC:tests/reliability/%.c=$(BUILD)/tests/reliability/%)
COUNTS  := $(CURDIR)/$(BUILD)/reliability-counts.txt

$(BUILD)/tests/reliability/%: $(BUILD)/tests/reliability/%.o $(BUILD)/libcity.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(TEST_LIBS)

# The binaries that time the daemon or load the machine on purpose (floods, faults under load,
# quotas, hostile clients) run one at a time, alone; the others check what is answered, not how
# fast (secrecy, the games that take turns, browser hardening, forces), and run two at a time
# under make test's -j2 (one target each, run-rel-NAME, the longest first; their counts are
# appended in one write each), as the unit tests do.
REL_ALONE  := $(filter %/test_flood %/test_load_faults %/test_quota %/test_hostile,$(REL_BIN))
REL_PAIRED := $(filter-out $(REL_ALONE),$(REL_BIN))
REL_FIRST  := $(filter $(notdir $(REL_PAIRED)),test_tech test_secrecy)
RUN_REL    := $(patsubst %,run-rel-%,$(REL_FIRST) $(filter-out $(REL_FIRST),$(notdir $(REL_PAIRED))))
.PHONY: $(RUN_REL)

$(RUN_REL): run-rel-%: $(BUILD)/tests/reliability/% $(BUILD)/cityd
	@out=$$(CITY_ROOT=$(CURDIR) CITYD=$(CURDIR)/$(BUILD)/cityd CITY_COUNTS=$(COUNTS) \
	  ./scripts/quiet.sh $(BUILD)/logs/$*.log ./scripts/with-postgres.sh $< --jobs=1 2>&1); \
	  st=$$?; printf '== %s\n%s\n' $< "$$out"; exit $$st

test-reliability: $(REL_BIN) $(BUILD)/cityd
	@rm -f $(COUNTS); touch $(COUNTS)
	@$(MAKE) --no-print-directory $(RUN_REL)
	@set -e; for t in $(REL_ALONE); do \
	  echo "== $$t"; CITY_ROOT=$(CURDIR) CITYD=$(CURDIR)/$(BUILD)/cityd CITY_COUNTS=$(COUNTS) \
	  ./scripts/quiet.sh $(BUILD)/logs/$$(basename $$t).log \
	  ./scripts/with-postgres.sh $$t --jobs=1; done
	$(MAKE) fuzz-run COUNTS=$(COUNTS)
	./scripts/reliability-summary.sh $(COUNTS)

# libFuzzer targets (tests/fuzz/fuzz_*.c) built with clang; fuzz-run runs each for
# FUZZ_SECONDS over a copy of its committed seed corpus (tests/fuzz/corpus/NAME/).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_FLAGS   := $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -Isrc -Isrc/engine $(shell pkg-config --cflags jansson 2>/dev/null)

# The engine is compiled once for every fuzzer, one object per source (so -j2 shares the work),
# instrumented for coverage and the sanitizers; each fuzzer's own file adds libFuzzer's main.
FUZZ_OBJ     := $(ENGINE_SRC:%.c=build-fuzz/obj/%.o)

build-fuzz/obj/%.o: %.c $(wildcard src/engine/*.h src/engine/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst -fsanitize=fuzzer,-fsanitize=fuzzer-no-link,$(FUZZ_FLAGS)) -c -o $@ $<

build-fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJ) $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lm

fuzz: $(FUZZ_BIN)

# One target per fuzzer, so that `make -j2` builds and runs them side by side.
fuzz-run: $(FUZZ_BIN:build-fuzz/%=fuzz-run-%)

fuzz-run-%: build-fuzz/%
	@mkdir -p build-fuzz/corpus-$*
	@CITY_ROOT=$(CURDIR) COUNTS=$(COUNTS) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  ./scripts/fuzz-run.sh build-fuzz/$* build-fuzz/corpus-$* tests/fuzz/corpus/$*

# The OpenAPI lint, the contract test (real responses against openapi/openapi.yaml) and the
# browser tests (playwright-core driving Debian's chromium), on a throw-away PostgreSQL. They need
# Node.js 20 or later: scripts/deps.sh node installs it (as root, when Debian offers it) or fails.
JS_TESTS := $(wildcard tests/js/*.test.mjs)
JS_JOBS ?= 3
test-js: all
	@./scripts/deps.sh node
	@cd tests/js && { [ -d node_modules/playwright-core ] && [ -d node_modules/axe-core ] && [ -d node_modules/openskill ] || npm ci --no-audit --no-fund; }
	cd tests/js && npx redocly lint ../../openapi/openapi.yaml
	# Three files at a time (each has its own daemon and database) on two cores: at two, the
	# phase was about half CPU-bound (755 s of wall time for 340 s of CPU), the rest waiting on
	# Chromium, the daemon and the tests' own timers.
	# Each daemon's log goes to build/js-logs/cityd-js-PORT.log, kept until the next run.
	rm -rf build/js-logs
	CITY_ROOT=$(CURDIR) CITYD=$(CURDIR)/build/cityd ./scripts/with-postgres.sh \
	  node --test --test-concurrency=$(JS_JOBS) $(JS_TESTS)

# The container deployment (README, "Deploy"): a Debian base made with mmdebstrap (cached in
# build/docker/), docker/Dockerfile and the suite's PostgreSQL and nginx images built with podman,
# docker/compose.yml's topology run, games played through nginx while an instance and then the
# database restart. Where podman cannot run it says "docker-test: skipped: REASON" and passes.
docker-test:
	@./scripts/deps.sh docker
	./scripts/docker-test.sh

sanitize:
	$(MAKE) SANITIZE=1 all $(BUILD:build=build-san)/libcity.a

# The benchmarks (README, "Benchmarks"): the service's figures, each against a baseline measured
# in the same run (bench/service.sh on a durable throw-away PostgreSQL), then the engine's;
# all of them in bench/results.json.
BENCH_BIN := $(BUILD)/bench/hello $(BUILD)/bench/load $(BUILD)/bench/streams

$(BUILD)/bench/hello: bench/hello.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/bench/load: bench/load.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/bench/streams: bench/streams.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

bench: deps all $(BENCH_BIN)
	@./scripts/deps.sh bench
	CITY_PG_DURABLE=1 ./scripts/with-postgres.sh ./bench/service.sh $(BUILD) > $(BUILD)/bench/service.txt
	./bench/expert.sh $(BUILD)/cityd >> $(BUILD)/bench/service.txt
	./bench/engine.sh $(BUILD)/cityd $(BUILD)/bench/service.txt
	./bench/summary.sh bench/results.json

# Installs what the build and tests need when run as root on Debian and something is missing.
deps:
	@./scripts/deps.sh

format:
	clang-format -i $(wildcard src/*.c src/*.h src/engine/*.c src/engine/*.h src/engine/*/*.c src/engine/*/*.h tests/*.c tests/*.h tests/reliability/*.c tests/reliability/*.h tests/fuzz/*.c bench/*.c bench/*.h)

format-check:
	clang-format --dry-run -Werror $(wildcard src/*.c src/*.h src/engine/*.c src/engine/*.h src/engine/*/*.c src/engine/*/*.h tests/*.c tests/*.h tests/reliability/*.c tests/reliability/*.h tests/fuzz/*.c bench/*.c bench/*.h)

clean:
	rm -rf build build-san build-fuzz

-include $(wildcard build/*.d build/*/*.d build/*/*/*.d build/*/*/*/*.d build-san/*.d build-san/*/*.d build-san/*/*/*.d build-san/*/*/*/*.d)
