# Two commands on a fresh machine with only python3: `make run` and `make test`.
# The virtual environment is (re)built whenever pyproject.toml is newer than it.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUDY  ?= configs/perpetual_motion.yaml

.PHONY: test run bench coverage lint format docs docs-serve venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,docs]'
	@touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

run: $(STAMP)
	$(VENV)/bin/patience run $(STUDY)

# The linter and the formatter, as CI runs them (configured in pyproject.toml); `make format` applies both.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Line coverage of engine/ and pipeline/ over the whole suite (numba-compiled bodies are not traced: their
# readable references and the Python around them are).
coverage: $(STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --cov=engine --cov=pipeline --cov-report=term:skip-covered

bench: $(STAMP)
	$(PY) scripts/bench_engine.py

# The manual: docs/ -> site/ (reference pages generated from the code by docs/gen_pages.py); no warning allowed.
# (NO_MKDOCS_2_WARNING silences Material's banner about its end of life, which is not a build warning.)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The same site, rebuilt on every change, on this machine only.
docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve -a 127.0.0.1:8000

clean:
	rm -rf $(VENV) .pytest_cache results site
