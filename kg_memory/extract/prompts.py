"""Prompt templates (``prompts/*.j2``), their version hashes and response models."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from jinja2 import Environment, StrictUndefined, Template, TemplateSyntaxError
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from ..errors import ConfigError, KgMemError


class ExtractedEntityModel(BaseModel):
    name: str = Field(min_length=1)
    kind: Literal["entity", "value"] = "entity"


class ExtractedFactModel(BaseModel):
    subject: str = Field(min_length=1)
    predicate: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    object: str = Field(min_length=1)
    object_kind: Literal["entity", "value"] = "entity"
    statement: str = Field(min_length=1)
    valid_from: str | None = None
    valid_to: str | None = None
    ending: bool = False


class ExtractionResponse(BaseModel):
    """What extract.j2 asks the model for."""

    entities: list[ExtractedEntityModel] = Field(default_factory=list)
    facts: list[ExtractedFactModel] = Field(default_factory=list)


# One restated sentence: short, so a small model that starts to ramble stops (the server's grammar bounds it).
Sentence = Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=200)]


class RestatedWindow(BaseModel):
    """What restate_window.j2 asks the model for: per turn, keyed "<n> <speaker>" in turn order, at most
    two short sentences. The fields depend on the window, so :func:`restated_window` makes the model;
    this base (no turns) is the registry's entry."""

    model_config = ConfigDict(extra="forbid")

    def sentences(self) -> list[list[str]]:
        """The sentences of each turn, in turn order."""
        return [list(getattr(self, name)) for name in type(self).model_fields]


@lru_cache(maxsize=256)
def restated_window(keys: tuple[str, ...]) -> type[RestatedWindow]:
    """The response model of one window: a required key per turn, in order, so a grammar-constrained
    model writes each turn's sentences under that turn's number and speaker."""
    fields: dict[str, Any] = {f"t{i}": (list[Sentence], Field(alias=key, max_length=2))
                              for i, key in enumerate(keys, 1)}
    return create_model("RestatedWindow", __base__=RestatedWindow, **fields)


class WindowFacts(BaseModel):
    """What facts_window.j2 asks the model for: per turn, keyed "<n> <speaker>" in turn order, at most
    three facts, each with a predicate of the group's ontology (or "other"). The fields depend on the
    window and the ontology, so :func:`window_facts` makes the model; this base is the registry's entry."""

    model_config = ConfigDict(extra="forbid")

    def facts(self) -> list[list[Any]]:
        """The facts of each turn, in turn order."""
        return [list(getattr(self, name)) for name in type(self).model_fields]


Phrase = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


@lru_cache(maxsize=256)
def window_facts(keys: tuple[str, ...], predicates: tuple[str, ...]) -> type[WindowFacts]:
    """The response model of one window under one ontology: a required key per turn, in order, each a
    list of facts whose predicate is one of ``predicates`` or "other" (a grammar-constrained model can
    write nothing else)."""
    names = Literal[(*predicates, "other")]  # type: ignore[valid-type]
    fact = create_model("WindowFact", __config__=ConfigDict(extra="forbid"), subject=(Phrase, ...),
                        predicate=(names, ...), object=(Phrase, ...), relation=(str, Field(default="", max_length=40)),
                        began=(str | None, None), ended=(bool, False))
    fields: dict[str, Any] = {f"t{i}": (list[fact], Field(alias=key, max_length=3))  # type: ignore[valid-type]
                              for i, key in enumerate(keys, 1)}
    return create_model("WindowFacts", __base__=WindowFacts, **fields)


class JudgeResponse(BaseModel):
    """What judge.j2 asks the model for."""

    decision: Literal["ADD", "REPLACE", "DUPLICATE"]
    reason: str = ""
    replaces: list[str] = Field(default_factory=list)
    duplicate_of: str | None = None


RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    "extract": ExtractionResponse, "restate_window": RestatedWindow, "facts_window": WindowFacts,
    "judge": JudgeResponse,
}


@dataclass(frozen=True)
class Prompt:
    name: str
    template: Template
    version: str
    response_model: type[BaseModel]

    def render(self, **values: Any) -> str:
        schema = json.dumps(self.response_model.model_json_schema(), separators=(",", ":"))
        return self.template.render(schema=schema, **values)

    def json_schema(self) -> dict[str, Any]:
        return self.response_model.model_json_schema()

    def answering(self, response_model: type[BaseModel]) -> Prompt:
        """The same template and version with a response model made for one call (a window's turns)."""
        return replace(self, response_model=response_model)


@cache
def load_prompt(name: str, directory: str | None = None) -> Prompt:
    """A prompt by name: ``<directory>/<name>.j2`` when a prompts directory (the ``prompts_dir``
    setting) has one, else the packaged template. Its version hashes the text actually used."""
    if name not in RESPONSE_MODELS:
        raise KgMemError(f"no prompt named {name!r}")
    own = Path(directory) / f"{name}.j2" if directory else None
    if own is not None and own.is_file():
        text = own.read_text("utf-8")
    else:
        text = resources.files("kg_memory.prompt_files").joinpath(f"{name}.j2").read_text("utf-8")
    version = f"{name}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"
    return Prompt(name, _ENV.from_string(text), version, RESPONSE_MODELS[name])


_ENV = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)


def check_prompts_dir(directory: str) -> list[str]:
    """The prompts a directory overrides; a ``ConfigError`` for a missing directory, a template whose
    name is no prompt of kgmem's, or one that does not parse (checked when the extractor starts)."""
    path = Path(directory)
    if not path.is_dir():
        raise ConfigError(f"prompts_dir {directory!r} is not a directory; create it or unset prompts_dir")
    names = []
    for file in sorted(path.glob("*.j2")):
        if file.stem not in RESPONSE_MODELS:
            raise ConfigError(f"{file}: no prompt is named {file.stem!r}; name it one of "
                              f"{', '.join(sorted(RESPONSE_MODELS))}")
        try:
            _ENV.parse(file.read_text("utf-8"))
        except TemplateSyntaxError as exc:
            raise ConfigError(f"{file}:{exc.lineno}: {exc.message}; fix the template") from None
        names.append(file.stem)
    return names
