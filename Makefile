# The README's two set-up commands, as make targets.
PYTHON ?= python3
VENV ?= .venv

.PHONY: run test lint bench clean

run:
	$(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -q . && $(VENV)/bin/rulings run --fail-on never

test:
	$(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -q -e '.[test]' && $(VENV)/bin/python -m pytest

lint:
	$(VENV)/bin/ruff check pipelines testkit tests benchmarks tools && $(VENV)/bin/ruff format --check pipelines testkit tests benchmarks tools

# Every benchmark, each writing benchmarks/results/ (see benchmarks/README.md; hours).
bench:
	$(VENV)/bin/python benchmarks/run.py --all

clean:
	rm -rf reports build *.egg-info
