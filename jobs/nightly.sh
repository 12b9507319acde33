#!/usr/bin/env bash
# Nightly maintenance for the store in $KGMEM_STORE (see jobs/README.md).
set -euo pipefail
: "${KGMEM_STORE:?set KGMEM_STORE to the store URL}"
KGMEM="${KGMEM:-kgmem}"
"$KGMEM" ingest --all-groups --quiet --json                     # resume pending extraction (fails if the store is down)
if [ -n "${KGMEM_LLM_BASE_URL:-}${KGMEM_LLM_API_KEY:-}${OPENAI_API_KEY:-}" ]; then
  "$KGMEM" ingest --all-groups --retry-failed --extractor llm --quiet --json
fi
if [ -n "${KGMEM_CONTRADICTIONS:-}" ]; then
  "$KGMEM" bench contradictions "$KGMEM_CONTRADICTIONS" --json > /dev/null
fi
"$KGMEM" doctor --json > /dev/null                  # last: fails on episodes still failed or stuck
echo "nightly: ok"
