#!/usr/bin/env bash
# The whole suite: start a real Neo4j, run pytest, always stop Neo4j.
# If Neo4j cannot start, this fails with the reason; nothing is skipped.
# With no arguments the `serial` tests, which change what the whole server holds, run alone
# first; then the rest on two workers (pytest-xdist, one test file per worker at a time: most
# of the time goes to CLI subprocesses and Neo4j round trips).
# With arguments, pytest runs them as given (make test-spec, one file while working).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
url=$(bash scripts/neo4j.sh up | tail -n 1) || { echo "run-tests: Neo4j did not start; the suite cannot run" >&2; exit 1; }
trap 'bash scripts/neo4j.sh down' EXIT
export KGMEM_TEST_NEO4J_URL="$url"
# Two workers (and their CLI subprocesses) already fill the two cores: a second OpenBLAS thread per
# process only spins. One thread ingested the sample in 6.1 s of CPU instead of 8.7, and no slower.
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
if [ "$#" -gt 0 ]; then
  "$BIN/python" -m pytest "$@"
  exit
fi
# Migrate the server once, before two workers would both start on a new schema.
"$BIN/python" -c 'import sys; from kg_memory.store.url import open_store; open_store(sys.argv[1], dim=384).close()' \
  "$url" || { echo "run-tests: the Neo4j schema could not be migrated" >&2; exit 1; }
# The `serial` tests first, while the server holds no test data: the schema test drops and rebuilds every
# index, which on an empty server takes seconds and after the suite's data took over a minute and a half.
"$BIN/python" -m pytest -m serial || exit
"$BIN/python" -m pytest -n "${KGMEM_TEST_WORKERS:-2}" --dist loadfile -m "not serial"
