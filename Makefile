# The two commands a reader needs:  make lab  (set up and open the workbook)  and  make test  (run every test).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
WORKBOOK := $(VENV)/.installed-workbook
TESTING := $(VENV)/.installed-test

.PHONY: lab test notebooks bench clean

$(WORKBOOK): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[workbook]'
	touch $@

$(TESTING): $(WORKBOOK)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

## Create .venv, install the workbook, and open it in JupyterLab.
lab: $(WORKBOOK)
	$(BIN)/jupyter lab notebooks/

## Run the whole test suite (library, notebooks with nbval, transformers cross-checks, the browser test).
test: $(TESTING)
	$(BIN)/python -m pytest

## Rebuild notebooks/ from solutions/ and execute both (after editing a chapter in solutions/).
notebooks: $(TESTING)
	$(BIN)/python -m llmest.authoring

## Print the performance figures (import time, counting speed, calculator update, chapter run times).
bench: $(TESTING)
	$(BIN)/python tests/benchmark.py

clean:
	rm -rf $(VENV) *.egg-info
