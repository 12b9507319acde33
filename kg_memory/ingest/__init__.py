"""Ingest: input formats, episodes first, then extraction (leases on pending episodes, the
pipeline that decides and writes one batch, the background worker), links between facts, and
edits by fact id."""
