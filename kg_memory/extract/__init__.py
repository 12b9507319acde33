"""Extractors turn an episode into entities and candidate facts."""

from .base import ExtractedFact, Extraction, Extractor

__all__ = ["ExtractedFact", "Extraction", "Extractor"]
