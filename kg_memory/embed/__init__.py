"""Embedders: the local MiniLM (numpy, offline) and any OpenAI-compatible API."""

from .base import Embedder, make_embedder

__all__ = ["Embedder", "make_embedder"]
