# The two commands of the README:  `make lab` opens the workbook, `make test` passes the tests.
# Both create .venv on first use and reinstall only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.dpbook-installed
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test unit notebooks benchmarks bench-peers docs data clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "dpbook needs Python >= 3.10 (found $$($(PYTHON) --version))"; exit 1; }
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV) || \
	  { rm -rf $(VENV); $(PYTHON) -m pip install --user --quiet virtualenv && $(PYTHON) -m virtualenv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

lab: $(STAMP)  ## open the workbook in JupyterLab (prints the URL)
	$(BIN)/jupyter lab --notebook-dir=notebooks --no-browser $(ROOT_FLAG)

test: $(STAMP)  ## unit, statistical and audit tests, then nbval over every chapter
	$(BIN)/python -m pytest tests --nbval-lax notebooks -p no:cacheprovider

unit: $(STAMP)  ## only tests/ (quick)
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

notebooks: $(STAMP)  ## re-execute every chapter in place (stored outputs are what GitHub shows)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.timeout=600 notebooks/[0-9]*.ipynb

benchmarks: $(STAMP)  ## print the timing tables of benchmarks/
	$(BIN)/python -m benchmarks

docs: $(STAMP)  ## regenerate docs/theorems.md from the theorem registry (dpbook/theory/*.py RESULTS)
	$(BIN)/python -m dpbook.theory.reference

bench-peers: $(STAMP)  ## MWEM vs smartnoise-synth 1.0.8, built in its own venv (benchmarks/peers/.venv); ~10 min
	benchmarks/peers/setup.sh
	$(BIN)/python -m benchmarks.peers.run

data:  ## rebuild data/ from the registry packages (needs scikit-learn and networkx)
	$(PYTHON) data/make_datasets.py

clean:
	rm -rf $(VENV)
