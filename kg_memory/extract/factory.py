"""The extractor a setting names: ``rules`` (offline) or ``llm`` (a model endpoint, or the local LLM)."""

from __future__ import annotations

from ..core.vocab import Vocabulary
from ..embed.base import Embedder
from ..errors import ConfigError
from ..settings import Settings
from .base import Extractor


def make_extractor(name: str, settings: Settings, embedder: Embedder | None = None) -> Extractor:
    if name == "rules":
        from .rules import RulesExtractor

        return RulesExtractor(embedder, settings.predicate_similarity)
    if name == "llm":
        try:
            from .llm import LLMExtractor
        except ImportError:  # pragma: no cover
            raise ConfigError("the llm extractor is not available in this build") from None
        return LLMExtractor.from_settings(settings, embedder)
    raise ConfigError(f"unknown extractor {name!r}: use rules or llm")


def for_vocabulary(extractor: Extractor, vocab: Vocabulary, default: bool) -> Extractor:
    """The extractor reading a group's ontology: itself under the default, else its copy for that
    vocabulary (an extractor that cannot read another vocabulary is used as it is)."""
    remake = getattr(extractor, "with_vocabulary", None)
    return extractor if default or remake is None else remake(vocab)
