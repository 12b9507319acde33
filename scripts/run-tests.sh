#!/usr/bin/env bash
# The whole suite: start a real Neo4j, run pytest, always stop Neo4j.
# If Neo4j cannot start, this fails with the reason; nothing is skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
url=$(bash scripts/neo4j.sh up | tail -n 1) || { echo "run-tests: Neo4j did not start; the suite cannot run" >&2; exit 1; }
trap 'bash scripts/neo4j.sh down' EXIT
export KGMEM_TEST_NEO4J_URL="$url"
"$BIN/python" -m pytest "$@"
