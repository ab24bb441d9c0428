# The two commands of the README:  `make lab` opens the workbook, `make test` passes the tests.
# Both create .venv on first use and reinstall only when pyproject.toml or constraints.txt changes; they install the
# tested versions pinned in constraints.txt.  `make newest` tries the newest releases in .venv-newest.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.dpbook-installed
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

NEWEST := .venv-newest
NEWEST_TESTS := tests/test_widgets.py tests/test_explorers_layout.py tests/test_widgets_browser.py

.PHONY: lab test unit notebooks benchmarks bench-peers bench-peers-dpbook bench-peers-pgm bench-peers-aim bench-peers-speed arena audits stored docs data clean newest lock student student-test

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "dpbook needs Python >= 3.10 (found $$($(PYTHON) --version))"; exit 1; }
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV) || \
	  { rm -rf $(VENV); $(PYTHON) -m pip install --user --quiet virtualenv && $(PYTHON) -m virtualenv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"
	@touch $(STAMP)

# the tests also run the optional compiled kernel (the speed extra, numba: ~210 MB) against the numpy path's bytes;
# `make lab` does not need it
SPEED_STAMP := $(VENV)/.dpbook-speed-installed
$(SPEED_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test,speed]"
	@touch $(SPEED_STAMP)

lab: $(STAMP)  ## open the workbook in JupyterLab (prints the URL)
	$(BIN)/jupyter lab --notebook-dir=notebooks --no-browser $(ROOT_FLAG)

test: $(SPEED_STAMP)  ## unit, statistical and audit tests, then nbval over every chapter
	$(BIN)/python -m compileall -q dpbook benchmarks  # .pyc once: a shell with PYTHONDONTWRITEBYTECODE set would
	$(BIN)/python -m pytest tests --nbval-lax notebooks -p no:cacheprovider  # recompile dpbook in every kernel

unit: $(SPEED_STAMP)  ## only tests/ (quick)
	$(BIN)/python -m pytest tests -q -p no:cacheprovider

notebooks: $(STAMP)  ## re-execute every chapter in place (stored outputs are what GitHub shows)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.timeout=600 notebooks/[0-9]*.ipynb

student: $(STAMP)  ## the student edition in build/student/: every chapter without its worked solutions, with check cells
	$(BIN)/python -m classroom.student build/student

student-test: student  ## execute every chapter of the student edition (CI executes chapter 01's in make test)
	$(BIN)/python -m pytest --nbval-lax build/student/notebooks -p no:cacheprovider -q

benchmarks: $(STAMP)  ## print the timing tables of benchmarks/
	$(BIN)/python -m benchmarks

docs: $(STAMP)  ## regenerate docs/theorems.md from the theorem registry (dpbook/theory/*.py RESULTS)
	$(BIN)/python -m dpbook.theory.reference

bench-peers: $(STAMP)  ## MWEM vs smartnoise-synth 1.0.8, built in its own venv (benchmarks/peers/.venv); ~10 min
	benchmarks/peers/setup.sh
	$(BIN)/python -m benchmarks.peers.run

bench-peers-dpbook: $(STAMP)  ## re-run only dpbook's columns of the peers table and merge them into benchmarks/peers/results.json (peers' numbers kept); ~5 min
	$(BIN)/python -m benchmarks.peers.run --merge

bench-peers-pgm: $(STAMP)  ## MWEM+PGM (written on mbi 1.1.0's API) beside AIM on the AIM rows: benchmarks/peers/results_pgm.json; ~13 min
	benchmarks/peers/setup.sh
	$(BIN)/python -m benchmarks.peers.run --pgm

bench-peers-aim: $(STAMP)  ## AIM (smartnoise-synth's, on mbi 1.1.0) on its rows and seeds: benchmarks/peers/results_aim.json; resumes; about 32 min of CPU from empty (75 min wall here, loaded)
	benchmarks/peers/setup.sh
	$(BIN)/python -m benchmarks.peers.run --aim

bench-peers-speed: $(STAMP)  ## adaptive_marginals (both variants) and smartnoise's MWEM timed in the same repeats: benchmarks/peers/results_speed.json; ~4 min
	benchmarks/peers/setup.sh
	$(BIN)/python -m benchmarks.peers.run --speed

arena: $(STAMP)  ## every mechanism on one grid (the last chapter's map): benchmarks/arena/results.json; ~15 min
	$(BIN)/python -m benchmarks.arena.run

audits: $(STAMP)  ## the audit catalogue at full size (chapter 17's table): benchmarks/audits/results.json; ~1 min
	$(BIN)/python -m benchmarks.audits.run

stored: audits $(STAMP)  ## every stored result the chapters read, except the arena and peers (each has its own target)
	$(BIN)/python -m benchmarks.sparse_vector.run
	$(BIN)/python -m benchmarks.graphs.run
	$(BIN)/python -m benchmarks.mwem_sweeps.run

data:  ## rebuild data/ from the registry packages (needs scikit-learn and networkx)
	$(PYTHON) data/make_datasets.py

newest:  ## the newest releases of every dependency in .venv-newest: the widget and real-browser tests, two chapters
	rm -rf $(NEWEST) && $(PYTHON) -m venv $(NEWEST)
	$(NEWEST)/bin/python -m pip install --quiet --upgrade pip
	$(NEWEST)/bin/python -m pip install --quiet --upgrade -e ".[test]"
	@mkdir -p build && $(NEWEST)/bin/python -m pip freeze --exclude-editable | grep -iv '^dpbook' > build/newest-versions.txt
	@echo "newest releases that differ from constraints.txt:"; \
	  diff <(grep -v '^#' constraints.txt | sort -f) <(sort -f build/newest-versions.txt) | grep '^>' || echo "  (none)"
	$(NEWEST)/bin/python -m pytest $(NEWEST_TESTS) --nbval-lax notebooks/00_how_to_use.ipynb notebooks/01_laplace.ipynb \
	  -q -p no:cacheprovider

lock: newest  ## after `make newest` passes: pin its versions in constraints.txt
	{ grep '^#' constraints.txt; cat build/newest-versions.txt; } > constraints.txt.new && mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) $(NEWEST)

# ---- the website (website/): `make book` builds build/book/ from the stored outputs; its tools live in their own
# venv (.venv-book, the `book` extra with constraints-book.txt on top of constraints.txt), so .venv stays the tested
# lab/test set.  `make book-test` builds every chapter and checks it in headless Chromium; CI checks a subset.
BOOK_VENV  := .venv-book
BOOK_STAMP := $(BOOK_VENV)/.dpbook-book-installed
BOOK_CI_CHAPTERS ?= --only 00 --only 01 --only 04

.PHONY: book book-test book-test-ci

$(BOOK_STAMP): pyproject.toml constraints.txt constraints-book.txt
	@[ -x $(BOOK_VENV)/bin/python ] || $(PYTHON) -m venv $(BOOK_VENV)
	$(BOOK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BOOK_VENV)/bin/python -m pip install --quiet -c constraints.txt -c constraints-book.txt -e ".[book]"
	@touch $(BOOK_STAMP)

book: $(BOOK_STAMP)  ## the website in build/book/ (stored outputs, precomputed slider frames; cache build/book-cache)
	$(BOOK_VENV)/bin/python -m website.build --check

book-test: $(BOOK_STAMP)  ## build every chapter, then open every page in headless Chromium with the network blocked
	DPBOOK_BOOK_BUILD="" $(BOOK_VENV)/bin/python -m pytest tests/test_book_browser.py -q -p no:cacheprovider

book-test-ci: $(BOOK_STAMP)  ## the same on a subset of the chapters (CI)
	DPBOOK_BOOK_BUILD="$(BOOK_CI_CHAPTERS)" $(BOOK_VENV)/bin/python -m pytest tests/test_book_browser.py -q -p no:cacheprovider
