# Two commands: `make run` (dashboard on the embedded default) and `make test` (all tests).
# Both create and reuse one virtual environment at .venv/.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTHON ?= python3

.PHONY: setup run test lint typecheck browser redis bench-locomo bench-latency clean-data

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

run: setup
	# Local single-user session (banner shown); set MEMORY_DASHBOARD_AUTH=password for sign-in.
	MEMORY_DASHBOARD_AUTH=$${MEMORY_DASHBOARD_AUTH:-none} $(VENV)/bin/streamlit run app.py --server.address 127.0.0.1

browser:
	@bash scripts/ensure-chromium.sh

redis:
	@bash scripts/ensure-redis.sh

test: setup browser redis
	$(VENV)/bin/ruff check memory_engine tests bench app.py pages
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy memory_engine
	$(PY) -m pytest -q

# ruff, then the layers of .importlinter (docs/architecture.md#layers).
lint: setup
	$(VENV)/bin/ruff check memory_engine tests bench app.py pages
	$(VENV)/bin/lint-imports --no-cache

typecheck: setup
	$(VENV)/bin/mypy memory_engine

bench-locomo: setup
	$(PY) bench/locomo.py --data ../shared/data/locomo/locomo10.json

bench-latency: setup
	$(PY) bench/latency.py
