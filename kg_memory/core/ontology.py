"""The ontology as data: which predicates a group's facts use, what each means, and whether a new
value retires the old one. One TOML format for the built-in default (``data/ontology.toml``) and for
a group's own file::

    extends = "default"            # optional: start from the built-in ontology
    [predicates.uses_database]
    cardinality = "single"          # single: a new value retires the old one; multi: values accumulate
    object = "value"                # entity | value | date | number
    description = "the database a service stores its data in"
    examples = ["The billing service uses Postgres."]
    ends = ["stopped using", "dropped"]   # optional: phrasings that end the slot with no new value
    [entity_types.service]          # optional
    description = "a software service the team runs"

``parse_ontology`` checks a file and reports every problem as ``file:line: what is wrong; what to
do`` (an ``InputError``); ``Ontology.vocab`` is what the extractors and the pipeline read. A group's
ontology is kept in the store as a versioned job record (``ontology_record``); a group without one
uses the default."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError
from .models import JobRecord
from .vocab import PREDICATE_RE, Predicate, Vocabulary

CARDINALITIES = ("single", "multi")
OBJECT_KINDS = ("entity", "value", "date", "number")
RECORD_KIND = "ontology"  # the store's job records of this kind are a group's ontology versions
DEFAULT = "default"
ONTOLOGY_HINT = "Fix the ontology file and run the command again."

_TOP_KEYS = {"extends", "predicates", "entity_types", "relations", "value_classes"}
_PREDICATE_KEYS = {"cardinality", "object", "description", "examples", "ends",
                   # the offline extractor's patterns (the default carries them; a user's file may too)
                   "statement", "phrases", "ends_any", "keywords", "value_class"}
_REQUIRED = ("cardinality", "object", "description")
_PHRASE_KEYS = {"first_person", "third_person", "past"}


class OntologyInUse(ConfigError):
    """A new ontology removes or retypes predicates that facts believed now use."""

    def __init__(self, changes: list[str], flag: str = "force=True"):
        self.changes = changes
        super().__init__(f"the new ontology changes predicates that current facts use: {'; '.join(changes)}; "
                         f"pass {flag} to set it anyway")


@dataclass(frozen=True)
class Ontology:
    """A resolved ontology (``extends`` applied): its predicates as the extractors read them, the
    user's own mapping (what ``kgmem ontology show`` prints), and a version hash of the whole."""

    vocab: Vocabulary
    source: dict[str, Any]
    version: str
    custom: frozenset[str] = field(default_factory=frozenset)  # predicates the group's own file defines
    entity_types: dict[str, str] = field(default_factory=dict)

    @property
    def is_default(self) -> bool:
        return self.version == default_ontology().version

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "extends": self.source.get("extends"),
                "predicates": {n: _describe(p, n in self.custom) for n, p in sorted(self.vocab.predicates.items())},
                "entity_types": dict(sorted(self.entity_types.items()))}


def _describe(p: Predicate, custom: bool) -> dict[str, Any]:
    return {"cardinality": "single" if p.single_valued else "multi", "object": p.object_kind,
            "description": p.description, "examples": list(p.examples), "ends": list(p.ending),
            "custom": custom}


# -- reading and checking ---------------------------------------------------------------------
def parse_ontology(text: str, where: str = "<ontology>") -> Ontology:
    """A checked, resolved ontology from TOML text; an ``InputError`` with every problem otherwise."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        at = line.group(1) if line else 1
        raise InputError([f"{where}:{at}: {exc}; fix the TOML syntax"], ONTOLOGY_HINT) from None
    return ontology_from_mapping(raw, where, text)


def load_ontology_file(path: str | Path) -> Ontology:
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([f"{p}:1: cannot read the file ({type(exc).__name__}); give a UTF-8 TOML file"],
                         ONTOLOGY_HINT) from None
    return parse_ontology(text, str(p))


def ontology_from_mapping(raw: Mapping[str, Any], where: str = "<ontology>", text: str = "") -> Ontology:
    problems = _check(raw, where, text)
    if problems:
        raise InputError(problems, ONTOLOGY_HINT)
    base = default_ontology() if raw.get("extends") == DEFAULT else None
    return _resolve(dict(raw), base)


def _check(raw: Mapping[str, Any], where: str, text: str) -> list[str]:
    at = _Locator(where, text)
    problems = [at.say(None, k, f"unknown key {k!r}; use one of {', '.join(sorted(_TOP_KEYS))}")
                for k in raw if k not in _TOP_KEYS]
    if "extends" in raw and raw["extends"] != DEFAULT:
        problems.append(at.say(None, "extends", f"extends = {raw['extends']!r}; the only base is \"default\""))
    preds = raw.get("predicates", {})
    if not isinstance(preds, Mapping):
        return [*problems, at.say(None, "predicates", "predicates must be a table of [predicates.NAME] sections")]
    for name, spec in preds.items():
        problems += _check_predicate(name, spec, at)
    for name, spec in (raw.get("entity_types") or {}).items():
        if not isinstance(spec, Mapping) or not isinstance(spec.get("description", ""), str) \
                or set(spec) - {"description"}:
            problems.append(at.say(f"entity_types.{name}", None, "an entity type takes one key, description"))
    if not preds and "extends" not in raw:
        problems.append(at.say(None, None, "no predicates; add [predicates.NAME] sections or extends = \"default\""))
    return problems


def _check_predicate(name: str, spec: Any, at: _Locator) -> list[str]:
    table = f"predicates.{name}"
    if not PREDICATE_RE.match(name):
        return [at.say(table, None, f"predicate name {name!r}: use lower_snake_case, a letter first, "
                                    "at most 64 characters")]
    if not isinstance(spec, Mapping):
        return [at.say(table, None, f"{name} must be a table with cardinality, object and description")]
    out = [at.say(table, k, f"unknown key {k!r}; use one of {', '.join(sorted(_PREDICATE_KEYS))}")
           for k in spec if k not in _PREDICATE_KEYS]
    out += [at.say(table, None, f"{name} has no {k}; add {k} = ...") for k in _REQUIRED if k not in spec]
    if "cardinality" in spec and spec["cardinality"] not in CARDINALITIES:
        out.append(at.say(table, "cardinality", f"cardinality {spec['cardinality']!r}: use single or multi"))
    if "object" in spec and spec["object"] not in OBJECT_KINDS:
        out.append(at.say(table, "object", f"object {spec['object']!r}: use one of {', '.join(OBJECT_KINDS)}"))
    if "description" in spec and (not isinstance(spec["description"], str) or not spec["description"].strip()):
        out.append(at.say(table, "description", "description must be a sentence saying what the predicate means"))
    for key in ("examples", "ends", "ends_any", "keywords"):
        value = spec.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            out.append(at.say(table, key, f"{key} must be a list of non-empty strings"))
    phrases = spec.get("phrases", {})
    if not isinstance(phrases, Mapping) or set(phrases) - _PHRASE_KEYS:
        out.append(at.say(table, "phrases", f"phrases takes {', '.join(sorted(_PHRASE_KEYS))}, each a list"))
    return out


class _Locator:
    """``file:line:`` for a table or a key of it, found in the TOML text (line 1 when unknown)."""

    def __init__(self, where: str, text: str):
        self.where, self.lines = where, text.splitlines()

    def line(self, table: str | None, key: str | None) -> int:
        start = 0
        if table is not None:
            header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
            start = next((i for i, ln in enumerate(self.lines) if header.match(ln)), -1)
            if start < 0:
                return 1
        if key is None:
            return start + 1
        keyed = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
        for i in range(start + (table is not None), len(self.lines)):
            if table is not None and self.lines[i].lstrip().startswith("[") and i > start:
                break
            if keyed.match(self.lines[i]):
                return i + 1
        return start + 1

    def say(self, table: str | None, key: str | None, message: str) -> str:
        return f"{self.where}:{self.line(table, key)}: {message}"

    def line_saying(self, table: str, key: str, words: str) -> int:
        """The line of the table that says ``words`` (one item of a list, "examples"), else the key's line."""
        start = self.line(table, None) - 1
        for i in range(start + 1, len(self.lines)):
            if self.lines[i].lstrip().startswith("[") and i > start:
                break
            if words in self.lines[i]:
                return i + 1
        return self.line(table, key)


def example_line(where: str, text: str, predicate: str, example: str) -> str:
    """``file:line`` of one example of a predicate in an ontology file's text."""
    return f"{where}:{_Locator(where, text).line_saying(f'predicates.{predicate}', 'examples', example)}"


# -- resolving --------------------------------------------------------------------------------
def _resolve(raw: dict[str, Any], base: Ontology | None, builtin: bool = False) -> Ontology:
    preds: dict[str, Predicate] = dict(base.vocab.predicates) if base else {}
    own = raw.get("predicates", {})
    for name, spec in own.items():
        preds[name] = _predicate(name, spec)
    relations = {**(base.vocab.relations if base else {}), **raw.get("relations", {})}
    classes = {**(base.vocab.value_classes if base else {}),
               **{k: tuple(sorted(v, key=len, reverse=True)) for k, v in raw.get("value_classes", {}).items()}}
    types = {**(base.entity_types if base else {}),
             **{k: v.get("description", "") for k, v in (raw.get("entity_types") or {}).items()}}
    version = _version({"base": base.version if base else None, "own": raw})
    custom = frozenset() if builtin else frozenset(own) | (base.custom if base else frozenset())
    vocab = Vocabulary(preds, relations, classes, version=version, entity_types=tuple(sorted(types)), own=custom,
                       type_notes=tuple(sorted(types.items())))
    return Ontology(vocab, raw, version, custom, types)


def _predicate(name: str, spec: Mapping[str, Any]) -> Predicate:
    phrases = spec.get("phrases", {})
    words = name.replace("_", " ")
    return Predicate(
        name=name, single_valued=spec["cardinality"] == "single", object_kind=spec["object"],
        statement=spec.get("statement", "{s} " + words + " {o}"),
        first_person=tuple(phrases.get("first_person", ())), third_person=tuple(phrases.get("third_person", ())),
        past=tuple(phrases.get("past", ())), ending=tuple(spec.get("ends", ())),
        ending_any=tuple(spec.get("ends_any", ())), value_class=spec.get("value_class"),
        keywords=tuple(spec.get("keywords", ())), description=spec["description"],
        examples=tuple(spec.get("examples", ())),
    )


def _version(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


@lru_cache(maxsize=1)
def default_ontology() -> Ontology:
    text = resources.files("kg_memory.data").joinpath("ontology.toml").read_text("utf-8")
    raw = tomllib.loads(text)
    problems = _check(raw, "kg_memory/data/ontology.toml", text)
    if problems:  # a packaging fault, not the user's
        raise ConfigError("the built-in ontology is broken: " + problems[0])
    return _resolve(raw, None, builtin=True)


# -- a group's ontology in the store ----------------------------------------------------------
def ontology_record(group_id: str, ont: Ontology, at: datetime) -> JobRecord:
    body = {"version": ont.version, "source": ont.source, "set_at": at.isoformat()}
    return JobRecord(group_id=group_id, kind=RECORD_KIND, id=f"{at.strftime('%Y%m%dT%H%M%S%f')}-{ont.version}",
                     at=at, body=body)


def ontology_of_records(records: list[Any]) -> Ontology:
    """The group's current ontology: its newest record, else the default."""
    if not records:
        return default_ontology()
    newest = max(records, key=lambda r: (r.at, r.id))
    return _resolve_cached(json.dumps(newest.body["source"], sort_keys=True))


@lru_cache(maxsize=64)
def _resolve_cached(source: str) -> Ontology:
    return ontology_from_mapping(json.loads(source), "the stored ontology")


def changes_in_use(old: Ontology, new: Ontology, in_use: Mapping[str, int]) -> list[str]:
    """What a new ontology would do to facts believed now: predicates it removes or retypes
    (cardinality or object kind) that current facts use, one line each."""
    out = []
    for name, n in sorted(in_use.items()):
        before, after = old.vocab.predicates.get(name), new.vocab.predicates.get(name)
        if before is None:
            continue
        if after is None:
            out.append(f"{name}: removed, and {n} current facts use it (they stay, as open facts)")
        elif (before.single_valued, before.object_kind) != (after.single_valued, after.object_kind):
            out.append(f"{name}: retyped from {_kind(before)} to {_kind(after)}, and {n} current facts use it "
                       "(they stay as they are; new facts follow the new type)")
    return out


def _kind(p: Predicate) -> str:
    return f"{'single' if p.single_valued else 'multi'}/{p.object_kind}"


def dump_toml(raw: Mapping[str, Any]) -> str:
    """A group's own ontology as TOML (what ``kgmem ontology show`` prints)."""
    lines: list[str] = []
    if raw.get("extends"):
        lines.append(f"extends = {json.dumps(raw['extends'])}")
    for section in ("predicates", "entity_types"):
        for name, spec in (raw.get(section) or {}).items():
            lines.append(f"\n[{section}.{name}]")
            nested = {k: v for k, v in spec.items() if isinstance(v, Mapping)}
            for k, v in spec.items():
                if k not in nested:
                    lines.append(f"{k} = {json.dumps(v, ensure_ascii=False)}")
            for k, v in nested.items():
                lines.append(f"[{section}.{name}.{k}]")
                lines += [f"{kk} = {json.dumps(vv, ensure_ascii=False)}" for kk, vv in v.items()]
    for section in ("relations", "value_classes"):
        if raw.get(section):
            lines.append(f"\n[{section}]")
            lines += [f"{json.dumps(k)} = {json.dumps(v, ensure_ascii=False)}" for k, v in raw[section].items()]
    return "\n".join(lines).strip() + "\n"
