# `make demo` and `make test` set up what they need by themselves (a venv in .venv).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BOT := $(VENV)/.bot

.PHONY: demo test test-long test-mutation bench lint clean

# The bot alone (what `make demo` needs); the test and lint tools come with `make test`.
$(BOT): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(BOT)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(BOT)
	$(PY) -m forumbot demo $(ARGS)

# Both cores (pytest-xdist); each worker has its own PostgreSQL database (tests/conftest.py).
test: $(STAMP)
	$(PY) -m pytest -q -n 2

# The long sweeps, three minutes of coverage-guided fuzzing per target (tests/fuzz/run.py;
# skipped when atheris is not installed), then the mutation testing.
test-long: $(STAMP)
	$(PY) -m pytest -q -n 2 -m long
	$(PY) tests/fuzz/run.py --seconds 180
	$(PY) tests/mutation/run.py --sample 150

# mutmut over the modules that keep the promises ([tool.mutmut] in pyproject.toml), with the fast
# behaviour tests of each (tests/mutation/suites.toml): the kill rate per module and every survivor;
# fails under 90%. A sample of 50 mutants a module, about 20 minutes on two cores; --all for every one.
test-mutation: $(STAMP)
	$(PY) tests/mutation/run.py

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/cycle.py
	$(PY) bench/day.py 100 300

# ruff (the rules in pyproject.toml), mypy on forumbot/ and adapters/ ([tool.mypy]), and the
# layers: what each part of the bot may import ([tool.importlinter])
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache forumbot.db* forumbot-local.db* mutants
