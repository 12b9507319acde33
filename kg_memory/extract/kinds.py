"""Which of the group's entity types a thing is, and which types a slot is said of, read off the ontology's own
words: a type is named by its name or by a word its description lists ("equipment: a lift, boiler, door or other
piece of a building" makes "the lifts" equipment), and a slot is said of the types its description names ("the
contractor that services a piece of building equipment"). A slot said of one kind of thing is not read of
another ("Otis looks after the lifts" is the lifts' service contractor, not their building manager)."""

from __future__ import annotations

import functools
import re

# words of a description that name no kind of thing
_NOT_KINDS = frozenset({"a", "an", "the", "of", "or", "and", "other", "that", "which", "who", "whom", "its", "their",
                        "our", "we", "us", "team", "people", "person", "thing", "things", "piece", "kind", "part",
                        "some", "any", "one", "for", "in", "on", "at", "to", "by", "with", "is", "are", "runs",
                        "looks", "after", "own", "group"})


def _words(text: str) -> list[str]:
    return [w.removesuffix("'s").removesuffix("’s") for w in re.findall(r"[a-z][a-z'’-]*", text.lower())]


def _forms(word: str) -> set[str]:
    """A noun and its singulars ("lifts": lift; "boxes": box)."""
    out = {word}
    if word.endswith("es") and len(word) > 4:
        out.add(word[:-2])
    if word.endswith("s") and len(word) > 3:
        out.add(word[:-1])
    return out


def kind_of(thing: str, notes: tuple[tuple[str, str], ...]) -> str | None:
    """The one type a thing is by its head noun: a type's own name, else the one type whose description lists
    the noun; None when no type, or more than one, does."""
    words = _words(thing)
    if not words or not notes:
        return None
    head = _forms(words[-1])
    named = [t for t, _ in notes if t.lower() in head]
    if named:
        return named[0]
    listed = [t for t, said in _listed(notes) if head & said]
    return listed[0] if len(listed) == 1 else None


@functools.cache
def _listed(notes: tuple[tuple[str, str], ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each type and the words its description lists, read once per ontology (``kind_of`` runs per clause)."""
    return tuple((t, frozenset(_words(d)) - _NOT_KINDS) for t, d in notes)


def kinds_said(description: str, notes: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """The types a slot's description says it of: the types it names, the last of a run ("building equipment":
    equipment)."""
    names = {t.lower(): t for t, _ in notes}
    words = _words(description)
    out = set()
    for i, w in enumerate(words):
        hit = next((names[f] for f in _forms(w) if f in names), None)
        after = next((f for f in _forms(words[i + 1]) if f in names), None) if i + 1 < len(words) else None
        if hit is not None and after is None:
            out.add(hit)
    return frozenset(out)
