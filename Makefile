# The two commands that matter are `make serve` and `make test`; both bootstrap everything from nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
# Node.js tools the tests run, each pinned by its own package-lock.json: the AsyncAPI parser, the official
# AG-UI client, the TypeScript client generators, the official LangGraph JS SDK, the AI SDK (`ai`, useChat), and
# the official A2A and MCP SDKs.
NODE_TOOLS := tests/contracts/asyncapi tests/e2e/agui-client tests/e2e/clients/ts tests/e2e/langgraph-js tests/e2e/ai-sdk-client tests/e2e/a2a-js-client tests/e2e/mcp-js-client
ARTIFACTS := test-artifacts
# llama-cpp-python ships as source and builds for the CPU it is built on; on CPUs with AMX (this machine)
# that build dies with a general protection fault in ggml. A generic build works everywhere, so it is
# built once into this wheel directory and installed from there (pip's own cache may hold a native one).
LLAMA_VERSION := 0.3.36
LLAMA_WHEELS := $(HOME)/.cache/agent-harness/llama-generic-$(LLAMA_VERSION)

.PHONY: serve serve-examples serve-local serve-cluster test lint typecheck docs docs-check unit eval eval-gate eval-gate-local eval-local fuzz bench chromium nginx prometheus clean

serve: $(VENV)/.installed
	$(BIN)/harness serve

# The support agent and the two graphs of examples/ (a ReAct agent with an approval, a research graph with a
# subgraph in a loop), reached through the LangGraph SDKs, the SPA's assistant picker or /chat.
serve-examples: $(VENV)/.installed
	$(BIN)/harness serve --config examples/langgraph.json

serve-local: $(VENV)/.installed-local
	$(BIN)/harness serve --provider local

# Two instances on :8001 and :8002 sharing the local Redis and PostgreSQL: one service (docs/deploy.md).
REDIS_URL ?= redis://127.0.0.1:6379/0
DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/test
CLUSTER_ENV = HARNESS_REDIS_URL=$(REDIS_URL) HARNESS_DATABASE_URL=$(DATABASE_URL)
serve-cluster: $(VENV)/.installed-cluster
	@env $(CLUSTER_ENV) HARNESS_DATA_DIR=.harness/cluster-8001 HARNESS_PORT=8001 $(BIN)/harness serve & first=$$!; \
	env $(CLUSTER_ENV) HARNESS_DATA_DIR=.harness/cluster-8002 HARNESS_PORT=8002 $(BIN)/harness serve & second=$$!; \
	trap 'kill -TERM $$first $$second 2>/dev/null; wait' INT TERM; wait

test: $(VENV)/.installed-test $(NODE_TOOLS:%=%/node_modules) chromium nginx prometheus
	$(MAKE) lint typecheck docs-check unit eval-gate eval-gate-local

lint: $(VENV)/.installed-test
	$(BIN)/ruff check contracts agent api tests bench examples
	$(BIN)/ruff format --check contracts agent api tests bench examples
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy
	$(BIN)/mypy examples

docs: $(VENV)/.installed
	$(BIN)/harness docs

docs-check: $(VENV)/.installed-test
	$(BIN)/harness docs --check

unit: $(VENV)/.installed-test
	$(BIN)/pytest

eval: $(VENV)/.installed
	$(BIN)/harness eval --out $(ARTIFACTS)/eval

# The gate reads the sealed held-out set (written after the rules, never tuned against; its figures are the
# ones reported) and the regression set (the old held-out part the rules were written against), each against
# its own thresholds in [tool.harness.gate] (docs/evaluation.md, "The quality gate").
SEALED := agent/evaluation/datasets/support-sealed-heldout.jsonl
STUB_EVAL := HARNESS_LLM_PROVIDER=stub HARNESS_STUB_TOKEN_DELAY_MS=0 HARNESS_DATA_DIR=$(ARTIFACTS)/eval-data
eval-gate: $(VENV)/.installed-test
	$(STUB_EVAL) $(BIN)/harness eval --gate --dataset sealed --out $(ARTIFACTS)/eval
	$(STUB_EVAL) $(BIN)/harness eval --gate --dataset heldout --out $(ARTIFACTS)/eval-regression
	$(STUB_EVAL) $(BIN)/harness eval --config examples/langgraph.json --graph react_agent \
		--dataset examples/react_agent/eval.yaml --epochs 3 --out $(ARTIFACTS)/eval-react \
		--baseline examples/react_agent/eval-baseline.json

# The gate over the local model's path (SmolLM2-135M under llama.cpp), with its own thresholds
# ([tool.harness.gate.providers.local]): the first 3 cases of each category of the sealed set (33 cases, a
# few minutes on two cores, where the whole set takes over ten).
eval-gate-local: $(VENV)/.installed-test
	$(BIN)/python -m agent.evaluation.subset --per-category 3 $(SEALED) $(ARTIFACTS)/eval-local-gate/sealed-part.jsonl
	HARNESS_DATA_DIR=$(ARTIFACTS)/eval-local-data $(BIN)/harness eval --provider local --gate \
		--dataset $(ARTIFACTS)/eval-local-gate/sealed-part.jsonl --out $(ARTIFACTS)/eval-local-gate

# The held-out part on the real local model (SmolLM2-135M under llama.cpp, started and stopped by the eval);
# about ten minutes on two cores. DATASET=dev runs the development part, DATASET=heldout the regression set.
eval-local: $(VENV)/.installed-local
	HARNESS_DATA_DIR=$(ARTIFACTS)/eval-local-data \
		$(BIN)/harness eval --provider local --dataset $(or $(DATASET),$(SEALED)) --out $(ARTIFACTS)/eval-local

fuzz: $(VENV)/.installed-test
	HARNESS_FUZZ_SEED=$$(date +%s) HARNESS_FUZZ_EXAMPLES=500 $(BIN)/pytest tests/contracts/test_fuzz.py

# Every benchmark of issue 12 (servers on core 0, clients on core 1), written to docs/benchmarks.md; about 20
# minutes. `$(BIN)/python -m bench --quick` is a smoke run. bench.ttft, bench.guardrails and bench.cluster_load
# run on their own.
bench: $(VENV)/.installed-bench
	$(BIN)/python -m bench

# Debian's Chromium drives the SPA's end-to-end tests (Playwright cannot download browsers here).
chromium:
	@command -v chromium >/dev/null || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
		else echo "!! chromium is missing and this is not root: the browser tests will be skipped (CI fails)"; fi; }

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-local: pyproject.toml $(LLAMA_WHEELS)/.built | $(BIN)/python
	$(PIP) install --find-links $(LLAMA_WHEELS) -e '.[local]'
	$(PIP) install --force-reinstall --no-deps --no-index --find-links $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_VERSION)
	touch $@ $(VENV)/.installed

$(VENV)/.installed-cluster: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[cluster]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[bench,cluster]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-cluster

$(VENV)/.installed-test: pyproject.toml $(LLAMA_WHEELS)/.built | $(BIN)/python
	$(PIP) install --find-links $(LLAMA_WHEELS) -e '.[test,local,cluster]'
	$(PIP) install --force-reinstall --no-deps --no-index --find-links $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_VERSION)
	touch $@ $(VENV)/.installed $(VENV)/.installed-local $(VENV)/.installed-cluster

$(LLAMA_WHEELS)/.built: | $(BIN)/python
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PIP) wheel --no-deps --no-cache-dir -w $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_VERSION)
	touch $@

# Debian's nginx stands in front of the service in tests/e2e/test_nginx.py (a real reverse proxy).
nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq nginx >/dev/null; \
		else echo "!! nginx is missing and this is not root: the reverse-proxy tests will be skipped (CI fails)"; fi; }

# Debian's prometheus scrapes two instances in tests/e2e/test_prometheus.py, and its promtool checks the alert
# rules and the dashboard's PromQL (docs/prometheus, docs/grafana); run from the tests' own config, no service.
prometheus:
	@command -v prometheus >/dev/null && command -v promtool >/dev/null || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null; \
		else echo "!! prometheus is missing and this is not root: the Prometheus tests will be skipped (CI fails)"; fi; }

%/node_modules: %/package-lock.json
	npm ci --prefix $* --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf $(VENV) .harness .pytest_cache .mypy_cache .ruff_cache $(ARTIFACTS) $(NODE_TOOLS:%=%/node_modules)
