# Two commands matter: `make serve` and `make test`. Both bootstrap .venv from nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: serve serve-local test lint typecheck unit docs clean

serve: $(VENV)/.installed
	$(BIN)/harness serve

test: $(VENV)/.installed-test
	$(MAKE) lint typecheck unit

lint: $(VENV)/.installed-test
	$(BIN)/ruff check contracts agent api tests bench
	$(BIN)/ruff format --check contracts agent api tests bench

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

unit: $(VENV)/.installed-test
	$(BIN)/pytest

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[test]'
	touch $@ $(VENV)/.installed

clean:
	rm -rf $(VENV) .harness .pytest_cache .mypy_cache .ruff_cache
