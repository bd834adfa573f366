# `make demo` and `make test` set up what they need by themselves (a venv in .venv).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-long bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m forumbot demo $(ARGS)

# Both cores (pytest-xdist); each worker has its own PostgreSQL database (tests/conftest.py).
test: $(STAMP)
	$(PY) -m pytest -q -n 2

# The long sweeps, then three minutes of coverage-guided fuzzing per target (tests/fuzz/run.py;
# skipped when atheris is not installed).
test-long: $(STAMP)
	$(PY) -m pytest -q -n 2 -m long
	$(PY) tests/fuzz/run.py --seconds 180

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/cycle.py

# ruff (the rules in pyproject.toml) and mypy on forumbot/ and adapters/ ([tool.mypy])
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache forumbot.db* forumbot-local.db*
