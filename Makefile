# Thin wrapper over CMake for the README's commands (see CONTRACT.md).
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 0
# extra ctest flags (e.g. -R NAME)
CTEST_FLAGS ?=

.PHONY: all check demo bench fuzz asan asan-check install clean

all: $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)

# plain `make` installs nothing; check/demo/asan/fuzz run scripts/deps.sh first
$(BUILD)/Makefile: CMakeLists.txt
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null || \
	    { echo "ktrust: configure failed; 'bash scripts/deps.sh build' lists the packages" >&2; exit 1; }

check:
	@bash scripts/deps.sh test
	@$(MAKE) --no-print-directory all
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS) $(CTEST_FLAGS)

# the demo's build is quiet: its output is shown only when it fails
demo:
	@bash scripts/deps.sh demo
	@echo "ktrust: building (the compiler's output is shown only if it fails) ..."
	@log=$$(mktemp); $(MAKE) --no-print-directory all >$$log 2>&1 || { cat $$log; rm -f $$log; exit 1; }; rm -f $$log
	@bash scripts/demo.sh $(BUILD)/ktrust

bench:
	@bash bench/run.sh

asan:
	@bash scripts/deps.sh test
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKT_SANITIZE=ON >/dev/null
	@$(MAKE) --no-print-directory -C $(ASAN_BUILD) -j$(JOBS)

asan-check: asan
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j$(JOBS) -LE boot $(CTEST_FLAGS)

fuzz:
	@bash scripts/deps.sh test
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKT_FUZZ=ON >/dev/null
	@$(MAKE) --no-print-directory -C $(FUZZ_BUILD) -j$(JOBS)
	@if [ "$(FUZZ_SECONDS)" != 0 ]; then bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS); fi

install: all
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
