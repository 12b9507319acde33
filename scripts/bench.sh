#!/usr/bin/env bash
# Regenerate docs/benchmarks.md: scale (both stores, one run), vector back-ends,
# contradictions on both stores. Starts its own Neo4j with a fresh data directory.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
"$BIN/pip" install -q apsw sqlite-vec
export KGMEM_NEO4J_DIR=.neo4j-bench KGMEM_NEO4J_PORT="${KGMEM_BENCH_NEO4J_PORT:-7697}"
# Size Neo4j for the ~1 GB store the scale run builds (page cache above the store size, as
# Neo4j's memory guidance suggests); make test keeps the 1 GiB / 2 GiB defaults.
export KGMEM_NEO4J_PAGECACHE_MB="${KGMEM_NEO4J_PAGECACHE_MB:-4096}" KGMEM_NEO4J_HEAP="${KGMEM_NEO4J_HEAP:-4g}"
bash scripts/neo4j.sh down >/dev/null 2>&1 || true
rm -rf .neo4j-bench/data
url=$(bash scripts/neo4j.sh up | tail -n 1)
trap 'bash scripts/neo4j.sh down' EXIT
mkdir -p .bench
home=$(mktemp -d)
KGMEM_HOME="$home" KGMEM_BENCH_NEO4J_DATA=.neo4j-bench/data "$BIN/kgmem" bench scale \
  --episodes "${BENCH_SIZES:-10000,100000}" --store sqlite --store "$url" --vector-backends --json > .bench/scale.json
KGMEM_HOME="$home" "$BIN/kgmem" bench contradictions ../shared/data/contradictions-dev.json --json \
  > .bench/contradictions-sqlite.json
KGMEM_HOME="$home" "$BIN/kgmem" bench contradictions ../shared/data/contradictions-dev.json --store "$url" --json \
  > .bench/contradictions-neo4j.json
KGMEM_HOME="$home" "$BIN/kgmem" bench locomo ../shared/data/locomo-dev/*.json --json > .bench/locomo.json
"$BIN/python" -m kg_memory.bench.report .bench docs/benchmarks.md
echo "wrote docs/benchmarks.md"
