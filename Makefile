# Two commands on a fresh machine with only python3: `make run` and `make test`.
# The virtual environment is (re)built whenever pyproject.toml is newer than it.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STUDY  ?= configs/perpetual_motion.yaml

.PHONY: test run bench venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile

run: $(STAMP)
	$(VENV)/bin/patience run $(STUDY)

bench: $(STAMP)
	$(PY) scripts/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache results
