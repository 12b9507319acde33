"""Prompt templates (``prompts/*.j2``), their version hashes and response models."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from jinja2 import Environment, StrictUndefined, Template
from pydantic import BaseModel, Field

from .errors import KgMemError


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


class WindowFactModel(BaseModel):
    turn: int = Field(ge=1)
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1, max_length=64)
    object: str = Field(min_length=1)
    when: str | None = None
    ending: bool = False


class WindowExtractionResponse(BaseModel):
    """What extract_window.j2 asks the model for."""

    # Bounded, so a small model that starts listing every predicate stops (the server's grammar enforces it).
    facts: list[WindowFactModel] = Field(default_factory=list, max_length=10)


class JudgeResponse(BaseModel):
    """What judge.j2 asks the model for."""

    decision: Literal["ADD", "REPLACE", "DUPLICATE"]
    reason: str = ""
    replaces: list[str] = Field(default_factory=list)
    duplicate_of: str | None = None


RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    "extract": ExtractionResponse, "extract_window": WindowExtractionResponse, "judge": JudgeResponse,
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


@cache
def load_prompt(name: str) -> Prompt:
    if name not in RESPONSE_MODELS:
        raise KgMemError(f"no prompt named {name!r}")
    text = resources.files("kg_memory.prompt_files").joinpath(f"{name}.j2").read_text("utf-8")
    env = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    version = f"{name}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"
    return Prompt(name, env.from_string(text), version, RESPONSE_MODELS[name])
