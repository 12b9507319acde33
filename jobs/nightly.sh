#!/usr/bin/env bash
# Nightly maintenance for the store in $KGMEM_STORE (see jobs/README.md): resume extraction,
# retry failures (with an LLM endpoint), the maintenance jobs on every group, then the health check.
set -euo pipefail
: "${KGMEM_STORE:?set KGMEM_STORE to the store URL}"
KGMEM="${KGMEM:-kgmem}"
"$KGMEM" ingest --all-groups --quiet --json > /dev/null         # resume pending extraction (fails if the store is down)
if [ -n "${KGMEM_LLM_BASE_URL:-}${KGMEM_LLM_API_KEY:-}${OPENAI_API_KEY:-}" ]; then
  "$KGMEM" ingest --all-groups --retry-failed --extractor llm --quiet --json > /dev/null
fi
# entity resolution, archiving and the hub report on every group, each under the group's lock;
# exits 1 when a job failed (the others still ran), 7 never (a busy group is reported as failed)
"$KGMEM" jobs run-nightly --all-groups --quiet --json
if [ -n "${KGMEM_CONTRADICTIONS:-}" ]; then
  "$KGMEM" bench contradictions "$KGMEM_CONTRADICTIONS" --json > /dev/null
fi
"$KGMEM" doctor --json > /dev/null                  # last: fails on episodes still failed or stuck
echo "nightly: ok"
