"""Making proposed facts canonical, whoever proposed them (a model or the parser).

* Predicates map onto the vocabulary: by name, then by a phrase the vocabulary
  lists for a predicate, then by embedding similarity to each predicate's
  description and phrases. Anything else is kept as an open predicate in
  lower_snake_case. An open predicate is never single-valued, so it never
  retires anything (``Vocabulary.is_single`` is false for it).
* A fact read from a model's restatement of a turn must belong to the speaker,
  a relative of the speaker or a third person the turn names (``owned``), and
  its object must be said in the turn (``grounded``). Dates resolve against the
  turn's time where the offline extractor reads the sentence."""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.vocab import PREDICATE_RE, Vocabulary
from ..embed.base import Embedder
from .values import product_name

_WORD = re.compile(r"[^a-z0-9]+")
# Leading articles and fillers of an object phrase (the rules extractor uses the same one).
LEADING = re.compile(r"^(?:(?:the|a|an|my|our|some|new|fully|totally|completely|entirely|properly|strictly|mostly|"
                     r"basically|now|really|a new|the new|old|used|trusty|battered|shiny|brand[- ]new|"
                     r"second[- ]?hand)\s+)+", re.I)  # (not the value: "an old iPhone 8")
_PLACEHOLDERS = {"unknown", "none", "null", "n/a", "na", "nothing", "not mentioned", "unspecified", "the",
                 "and", "not", "specified", "mentioned"}


# The last particle of a relation that names a source, not a value.
_SOURCE = re.compile(r"_(?:from|out_of|away_from)$")


# Verbs that alone say nothing of which predicate they are; near every predicate "has ..." by meaning.
# ("go vegan" still reaches diet: "go" is not one of them.)
_GENERIC = frozenset({"have", "has", "having", "had", "get", "got", "make", "do", "take", "give", "put", "keep"})


_COPULA = frozenset({"be", "been", "am", "is", "are", "was", "were"})
_PREPOSITIONS = frozenset({"with", "for", "at", "as", "in", "to", "on", "from", "about", "into", "by", "of"})


def snake(text: str) -> str:
    """'Moved To' -> 'moved_to'; '' when nothing is left."""
    s = _WORD.sub("_", text.strip().lower()).strip("_")
    if s and not s[0].isalpha():
        s = "p_" + s
    return s[:64].rstrip("_")


# Only jobs are an open class (occupations are endless; diets, relationship statuses and phones are few and
# listed). MiniLM puts an unlisted occupation 0.6-0.9 from its nearest listed job ("attorney" 0.89 from
# "lawyer", "paralegal" 0.63, "receptionist" 0.63) and the other nouns people say after "I'm a" at most 0.58
# ("dog lover", "reader", "beginner"); calibrated on 23 occupations and 34 other nouns, none from a test set.
OPEN_CLASSES = frozenset({"job"})
# the endings of drugs' generic names (the WHO's INN stems: beta blockers' -olol, ACE inhibitors' -pril, ...): a word
# with one is a medication
_A_DRUG = re.compile(r"[a-z]{3,}(?:olol|pril|sartan|statin|prazole|oxetine|triptan|mab|cillin|mycin|cycline|floxacin|"
                     r"azepam|azolam|tidine|dronate|gliptin|gliflozin|parin|xaban|semide|thiazide|dipine|profen|codone|"
                     r"pramine|triptyline|lukast|olone|asone|apine|idone|iramate|etine|alopram|pentin|gabalin|barbital|"
                     r"terol|butamol|formin|thyronine|thyroxine)")
CLASS_NEAR = 0.6
_CLASS_VECTORS: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], np.ndarray]] = weakref.WeakKeyDictionary()


def by_its_form(value_class: str, word: str) -> bool:
    """A word of the class by its form alone: a drug's name by its stem ("propranolol", "topiramate"), which no
    embedding places."""
    return value_class == "medication" and _A_DRUG.fullmatch(word.strip().lower()) is not None


def near_class_word(embedder: Embedder | None, vocab: Vocabulary, value_class: str, phrase: str) -> str | None:
    """``phrase`` itself when it is an unlisted word of an open value class, near a listed one in meaning
    ("attorney", "paralegal"): one or two lower-case words."""
    low = phrase.strip().lower()
    if by_its_form(value_class, low):
        return low
    if embedder is None or value_class not in OPEN_CLASSES or not 0 < len(low.split()) <= 2 \
            or not low.replace(" ", "").replace("-", "").isalpha() or phrase.strip() != low:
        return None
    words = vocab.value_classes.get(value_class, ())
    cache = _CLASS_VECTORS.setdefault(embedder, {})
    if words not in cache:
        cache[words] = np.asarray(embedder.embed(list(words)), dtype=np.float32)
    near = float(np.max(cache[words] @ np.asarray(embedder.embed([low])[0], dtype=np.float32))) if words else 0.0
    return low if near >= CLASS_NEAR else None


# Each vocabulary's exemplar vectors (by its version: a group's ontology has other predicates than the default),
# computed once per embedder and process.
_EXEMPLARS: weakref.WeakKeyDictionary[Any, dict[str, tuple[np.ndarray, list[str]]]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class PredicateMatch:
    name: str
    known: bool
    how: str  # name | phrase | embedding | open | misfit (callers drop a misfit)
    similarity: float = 1.0


class Canonicalizer:
    def __init__(self, vocab: Vocabulary, embedder: Embedder | None = None, threshold: float = 0.62,
                 margin: float = 0.04):
        self.vocab = vocab
        self.embedder = embedder
        self.threshold = threshold
        self.margin = margin
        self.phrases: dict[str, str] = {}
        for p in vocab.predicates.values():
            for phrase in (*p.first_person, *p.third_person, *p.past):
                self.phrases.setdefault(snake(phrase), p.name)
        for rel, pred in vocab.relations.items():
            self.phrases.setdefault(snake(f"has {rel}"), pred)
        self._matrix: np.ndarray | None = None
        self._owners: list[str] = []

    # -- predicates -----------------------------------------------------------
    def _exemplars(self) -> tuple[np.ndarray, list[str]]:
        if self._matrix is not None:
            return self._matrix, self._owners
        key = self.vocab.version or ",".join(sorted(self.vocab.predicates))
        known = _EXEMPLARS.get(self.embedder, {}) if self.embedder is not None else {}
        if key in known:
            self._matrix, self._owners = known[key]
        else:
            assert self.embedder is not None
            texts: list[str] = []
            owners: list[str] = []
            for p in self.vocab.predicates.values():
                for text in (p.name.replace("_", " "), p.description, *p.first_person[:6]):
                    if text:
                        texts.append(text)
                        owners.append(p.name)
            self._matrix = np.asarray(self.embedder.embed(texts), dtype=np.float32)
            self._owners = owners
            _EXEMPLARS.setdefault(self.embedder, {})[key] = (self._matrix, owners)
        return self._matrix, self._owners

    def predicate(self, raw: str, obj: str = "") -> PredicateMatch:
        """The vocabulary predicate ``raw`` names, lists or means, provided ``obj``
        (when given) is the kind of object it takes; else an open predicate."""
        name = snake(raw)
        head, _, rest = name.partition("_")
        # a copula with a particle is matched only as a phrase says it ("been into" is "am into")
        said = next((self.phrases[f"{be}_{rest}"] for be in ("am", "is") if head in _COPULA and rest
                     and f"{be}_{rest}" in self.phrases), None)
        for how, found in (("name", name if name in self.vocab.predicates else None),
                           ("phrase", self.phrases.get(name) or said), ("embedding", None)):
            if how == "embedding":
                found, similarity = self._by_meaning(name)
            else:
                similarity = 1.0
            if found and (not obj or self.fits(found, obj)):
                return PredicateMatch(found, True, how, similarity)
        if name in self.vocab.predicates:
            return PredicateMatch(name, False, "misfit", 0.0)  # a vocabulary name with the wrong kind of object
        if not name or not PREDICATE_RE.match(name):
            name = "related_to"
        return PredicateMatch(name, False, "open", 0.0)

    def _by_meaning(self, name: str) -> tuple[str | None, float]:
        """The predicate whose description and phrases are nearest to the relation
        phrase, when it is near enough and clearly nearer than any other predicate.
        A relation that names where something came from ("moved from", "graduated
        from", "moved out of") is never matched by meaning: it sits near the predicate
        whose value it left ("moved from Sweden" is not "lives in Sweden"), and
        neither is a bare generic verb ("having an art show" is not "has a friend") nor a copula."""
        if self.embedder is None or not name or _SOURCE.search(name) or name in _GENERIC \
                or name.split("_")[0] in _COPULA:
            return None, 0.0  # (nor a copula with a particle: "been in Galway" is not "am into")
        particle = name.rsplit("_", 1)[-1] if "_" in name else ""
        matrix, owners = self._exemplars()
        sims = matrix @ np.asarray(self.embedder.embed([name.replace("_", " ")])[0], dtype=np.float32)
        order = np.argsort(-sims)
        best = int(order[0])
        runner_up = next((float(sims[i]) for i in order[1:] if owners[int(i)] != owners[best]), 0.0)
        if float(sims[best]) >= self.threshold and float(sims[best]) - runner_up >= self.margin \
                and self._takes(owners[best], particle):
            return owners[best], float(sims[best])
        return None, float(sims[best])

    def _takes(self, predicate: str, particle: str) -> bool:
        """May a relation with this preposition mean a value-class predicate? "worked with the artist" is
        near job_title by meaning, but job_title says "as", never "with". (An entity predicate takes new
        prepositions: "took a job with Bosch" is works_at.)"""
        spec = self.vocab.predicates[predicate]
        if particle not in _PREPOSITIONS or not spec.value_class:
            return True
        return any(particle in phrase.split() for phrase in (*spec.first_person, *spec.third_person, *spec.past))

    def fits(self, predicate: str, obj: str) -> bool:
        """Does ``obj`` have the shape the predicate takes: a word of its value class,
        or a name for an entity predicate?"""
        spec = self.vocab.predicates[predicate]
        if spec.value_class:  # ("a scratched iPhone 12": the model's name)
            return self.class_word(predicate, product_name(obj) or obj) is not None
        if spec.object_kind == "entity":
            return obj.strip()[:1].isupper()
        return True

    def class_word(self, predicate: str, obj: str) -> str | None:
        """The word of the predicate's value class ``obj`` says, or an unlisted job near one in meaning."""
        spec = self.vocab.predicates[predicate]
        if not spec.value_class:
            return None
        low = LEADING.sub("", obj.strip().lower())
        head = low.split()[-1] if low.split() else ""
        said = re.sub(r"\s*-\s*", " ", low)  # ("gluten - free", "gluten free": gluten-free)
        return next((w for w in self.vocab.value_classes[spec.value_class] if (k := w.replace("-", " "))
                     and (said == k or said.startswith(k + " ") or said.endswith(" " + k))), None) \
            or near_class_word(self.embedder, self.vocab, spec.value_class, low) \
            or (low if head != low and near_class_word(self.embedder, self.vocab, spec.value_class, head) else None)
        # (a title whose head is near one: "trainee solicitor")

    # -- owners and objects -----------------------------------------------------
    @staticmethod
    def owned(subject: str, speaker: str, participants: set[str], text: str) -> bool:
        """May a fact read from a restatement of a turn belong to ``subject``: the speaker, a
        relative of the speaker ("Ana's sister"), or a third person the turn names? Not the other
        participant: what a turn says about the person spoken to is a question or a compliment
        ("You'd be a great counselor!"), and that person says their own facts."""
        low = subject.lower()
        if low == speaker.lower() or low.startswith(f"{speaker.lower()}'s "):
            return True
        if low in {p.lower() for p in participants}:
            return False
        return subject[:1].isupper() and re.search(rf"\b{re.escape(low)}\b", text.lower()) is not None

    @staticmethod
    def grounded(obj: str, text: str) -> bool:
        """Is the object said in the turn? A content word of it must occur in the
        text, so a model cannot invent a city or an employer the turn never names."""
        words = [w for w in _WORD.split(obj.lower()) if len(w) > 2 and w not in _PLACEHOLDERS]
        said = set(_WORD.split(text.lower()))
        stems = {w[:-1] for w in said if w.endswith("s")} | {w + "s" for w in said}
        return bool(words) and all(w in said or w in stems for w in words)
