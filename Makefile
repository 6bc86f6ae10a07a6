# The two commands of the README: `make run` and `make test`.
# Both bootstrap what they need (system packages, a venv, the package) idempotently.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
ARGS   ?=

.PHONY: run test bootstrap system-packages images lint typecheck layers unit bench screenshots clean

# The dashboard over a control plane started in-process (same flags as `daemon`).
run: bootstrap images
	$(BIN)/minikube-py tui $(ARGS)

test: bootstrap lint typecheck layers images
	$(BIN)/python scripts/run_tests.py $(ARGS)

bootstrap: system-packages $(STAMP)

system-packages:
	@bash scripts/ensure-system-packages.sh

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $(STAMP)

# The images every manifest and test uses, built locally (no registry needed).
images: $(STAMP)
	$(BIN)/python -m minikube_py.runtime.images

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

layers: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest tests/unit

bench: $(STAMP)
	$(BIN)/python bench/store_bench.py

# The README's dashboard screenshots, from a real run on Podman.
screenshots: bootstrap images
	$(BIN)/python scripts/tui_screenshots.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
