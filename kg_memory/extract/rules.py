"""The offline ``rules`` extractor: deterministic patterns over the predicate
vocabulary. It handles first- and third-person statements, relatives
("my sister Maya ..."), pets, endings ("I quit my job at X") and dates in the
text. No network, no model; the same text always gives the same facts."""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass, replace
from datetime import datetime

from ..core.models import Episode
from ..core.temporal import names_value
from ..core.vocab import Predicate, Vocabulary, load_vocabulary
from ..embed.base import Embedder
from . import dates, parse, worth
from .base import ExtractContext, ExtractedFact, Extraction
from .canonical import LEADING as _LEADING
from .canonical import Canonicalizer, by_its_form, snake
from .cues import SUPPOSED as _SUPPOSED
from .cues import a_stay
from .exemplars import agent_verbs
from .homes import WORKPLACES, Homes, whole_address
from .lexicon import ORG_UNITS
from .meaning import MeaningReader, ontology_tag
from .phrasing import ADVERBS as _ADVERBS
from .phrasing import forms as _forms
from .phrasing import phrase_rx as _phrase_rx
from .phrasing import said_plainly
from .rewording import reworded
from .sentence import SENTENCE, named_subject, normalize_text
from .shapes import the_name
from .values import AMOUNT_OF as _AMOUNT_OF
from .values import product_name
from .whose import as_kin

log = logging.getLogger(__name__)

RULES_VERSION = "rules-30"  # what each version reads that the one before did not: docs/rules-versions.md

_STOP = re.compile(
    r"\s+(?:and|but|because|so|since|as|on|with|for|from|in|at|to|when|while|where|which|who|that|after|"
    r"before|until|now|today|tonight|yesterday|tomorrow|last|this|next|back|ago|again|too|anymore|though|"
    r"although|if|or|by|during|every|recently|lately|here|there|right|soon|about|like|near|last|these\s+days|nowadays)\b"
    r"|(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)\.|[,;:!?()\"]|\s-\s|\s—\s",  # ("Dr. Mensah" is one name)
    re.I,
)
# words that say the value after them is a job, listed or not ("work as", "promoted to"), and a role held at
# a named place ("a barber at Fade Factory")
_AS_A_JOB = re.compile(r"\b(?:work(?:s|ing|ed)?\s+as|promoted\s+to|became|trained\s+as|employed\s+as|hired\s+as)\b",
                       re.I)
# an object phrase runs to the sentence's end; the dot of a title ("Dr. Mensah", "St. Louis") is no end
_OBJ = r"(?:[^.;!?]|(?<=\bDr)\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bSt)\.)+"
_AS_A_ROLE = re.compile(r"\s+as\s+(?:my|our|his|her|their|the)\b", re.I)
_AS_A_JOB = re.compile(r"\s+as\s+(?:a|an)\s+[a-z]", re.I)  # ("I'm with Deloitte as a consultant")
# a name one is with for a thing of one's own: a provider, not a partner ("I'm with EE for my phone")
_FOR_MY_THING = re.compile(r"\s+for\s+(?:my|our)\s+(?!whole\b|entire\b|life\b)[a-z]", re.I)
_HELD_AT = re.compile(r"\s+(?:at|for|with)\s+(?:the\s+)?[A-Z]")
_NAME = r"[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|da|van|von))*"


# a number one is reached on: the speaker's phone number, whatever the sentence calls it
_REACH_ME = re.compile(r"\b(?:reach|call|text|ring|phone|contact|message|whatsapp)\s+(?:me|us)\s+(?:on|at)\s+"
                       r"(?P<number>\+?\d[\d ]{6,}\d)\b", re.I)
_NOT_SUBJECTS = {
    "i", "we", "you", "he", "she", "they", "it", "this", "that", "the", "my", "our", "your", "his", "her",
    "their", "there", "here", "what", "when", "where", "who", "why", "how", "yes", "no", "hey", "hi",
    "hello", "thanks", "thank", "oh", "well", "so", "and", "but", "just", "also", "today", "yesterday",
    "last", "turns", "back", "sure", "wow", "ok", "okay", "great", "awesome", "cool", "nice", "haha",
    "lol", "yeah", "yep", "nope", "please", "sorry", "maybe", "now", "then", "after", "before", "since",
    "a", "an", "if", "as", "in", "on", "at", "by", "for", "with", "from", "to", "of", "user", "assistant",
}
# A value object never starts with these ("likes me", "likes to", "likes how you use it").
_FUNCTION_WORDS = {"me", "it", "to", "was", "that", "this", "how", "what", "you", "them", "him", "her", "us",
                   "everything", "everywhere", "each", "both", "all", "so", "too", "the", "a", "an", "when",
                   "is", "are", "be", "being", "love", "theme", "those", "these", "there", "here"}
# where the speaker is now, said after an end ("... and I'm at Boots now"; group 1 the name)
_AT_NOW = re.compile(rf"(?:\band|;|,\s+so)\s+(?:now\s+)?I\s+am\s+(?:now\s+)?(?:at|with)\s+({_NAME})")



# a year of study said as a role ("a first-year", "a final-year", "a 2nd year"): a student's, never a job
_YEAR_OF_STUDY = re.compile(r"(?i:first|second|third|fourth|final|\d+(?:st|nd|rd|th))[- ]year$")
_OF_WORK = re.compile(r"\b(?:work|job|employ|hired|position|offer)", re.I)  # words that say a place is worked at


@dataclass(frozen=True)
class _Compiled:
    pred: Predicate
    first: re.Pattern[str] | None
    chained: re.Pattern[str] | None
    third: re.Pattern[str] | None
    past: re.Pattern[str] | None
    ending: re.Pattern[str] | None
    ending_any: re.Pattern[str] | None
    ending_together: re.Pattern[str] | None = None  # "Sam and I broke up": "I broke up with Sam" said of both
    ending_named: re.Pattern[str] | None = None  # "Globex churned": a named subject's own slot ends
    # "I'm not vegan anymore": a slot of a value class said with "am" ends when the speaker is no longer in it
    state_ends: bool = False


# a state the speaker says they are no longer in: "I am not vegetarian anymore", "we are no longer vegan"
_NO_LONGER_AM = re.compile(r"\b(?:I|we)\s+(?:am|are)\s+(?:not|no\s+longer)\s+(?P<obj>[^.;!?,]+?)"
                           r"(?:\s+(?:anymore|any\s+more))?\s*(?=[.;!?,]|$)", re.I)


# one said first as someone, then by name ("someone new, Tariq", "a guy called Olu"): the name is the value
_SOMEONE = re.compile(r"^(?:someone|somebody|a\s+(?:[a-z]+\s+){0,2}(?:guy|girl|man|woman|bloke|lad|lass|person|chap"
                      r"|lady))(?:\s+new)?"  # ("a lovely guy called Ravi")
                      r"(?:\s*,\s*|\s+called\s+|\s+named\s+)(?=[A-Z])")
# a name and a part of what it names ("KPMG's audit practice": group 1 the name, 2 the part's noun)
_NAMES_UNIT = re.compile(r"([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)['’]s\s+(?:[a-z][\w-]*\s+){0,2}([a-z]+)$")


def _compile(p: Predicate) -> _Compiled:
    adv = rf"(?:(?:{_ADVERBS})\s+)*"
    aux = r"(?:(?:have|had)\s+(?:been\s+)?)?"

    def first(phr: tuple[str, ...]) -> re.Pattern[str] | None:
        if not phr:
            return None
        return re.compile(rf"\b(?:I|we)\s+{aux}{adv}{_phrase_rx(_forms(phr))}\s+(?P<obj>{_OBJ})", re.I)

    chained = None
    if p.first_person:
        chained = re.compile(
            rf"\b(?:I|we)\b[^.;!?]*?\band\s+{adv}{_phrase_rx(_forms(p.first_person))}\s+(?P<obj>{_OBJ})", re.I
        )
    third = None
    if p.third_person:
        third = re.compile(
            rf"(?P<subj>{_NAME})\s+{adv}(?i:{_phrase_rx(p.third_person)})\s+(?P<obj>{_OBJ})"
        )
    ending_any = None
    if p.ending_any:
        ending_any = re.compile(rf"\b(?:I|we)\s+{adv}{_phrase_rx(p.ending_any)}\b", re.I)
    together = None
    mutual = {re.sub(r"\s+(?:with|from|to|of)$", "", e) for e in p.ending if re.search(r"\s(?:with|from)$", e)}
    if mutual:
        together = re.compile(rf"(?P<obj>{_NAME})\s+and\s+I\s+(?:(?:are|were|have|had)\s+)?{adv}"
                              rf"{_phrase_rx(mutual)}\b")  # ("Josh and I are finished")
    # an end said whole, of a named subject, with nothing after it ("Globex churned", "Initrode cancelled
    # their subscription"): only of a group's own predicates, whose ends are said of things
    named = None
    whole = [e for e in p.ending if not re.search(r"\s(?:with|from|to|of|in|on|at)$", e)]
    if whole and p.examples:
        named = re.compile(rf"(?<![\w'])(?P<subj>{_NAME})\s+{adv}{_phrase_rx(whole)}\s*(?=[.;!?]|$)")
    return _Compiled(p, first(p.first_person), chained, third, first(p.past), first(p.ending), ending_any,
                     together, named,
                     state_ends=bool(p.value_class) and any(f.split()[0] == "am" for f in p.first_person))


_COMPILED: dict[str, tuple[_Compiled, ...]] = {}  # by ontology version: an ontology's patterns compile once


def _compiled_vocab(vocab: Vocabulary | None = None) -> tuple[Vocabulary, tuple[_Compiled, ...]]:
    vocab = vocab or load_vocabulary()
    if vocab.version not in _COMPILED:
        _COMPILED[vocab.version] = tuple(_compile(p) for p in vocab.predicates.values())
    return vocab, _COMPILED[vocab.version]


def unique_facts(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """One fact per slot and value, and one per statement: a clause read two ways (put, put_together)
    says one thing. The first reading stays, and an end of a value outweighs its start."""
    seen: set[tuple[str, ...]] = set()
    unique = []
    ended = {(f.subject.lower(), f.predicate, f.object.lower()) for f in facts if f.ending}
    for f in facts:
        if not f.ending and (f.subject.lower(), f.predicate, f.object.lower()) in ended:
            continue  # "I am no longer a nurse" read as "am a nurse" too: the end is what it says
        keys = {(f.subject.lower(), f.predicate, f.object.lower(), str(f.ending)),
                ("statement", f.subject.lower(), f.statement.lower(), str(f.ending))}
        if not keys & seen:
            seen |= keys
            unique.append(f)
    return unique

# the one a relation is said of before it: "Tom is my brother", or set beside it ("Gareth, my husband, is ...")
_NAMED_BEFORE = re.compile(rf"(?P<who>{_NAME})\s+(?:is|was|is\s+now|has\s+become|became)\s+$")
_NAMED_BESIDE = re.compile(rf"(?P<who>{_NAME}),\s+$")

class RulesExtractor:
    """Deterministic extractor over the predicate vocabulary (see module doc)."""

    name = "rules"
    version: str | None = RULES_VERSION

    def __init__(self, embedder: Embedder | None = None, predicate_similarity: float = 0.62,
                 use_parser: bool = True, vocab: Vocabulary | None = None) -> None:
        self.embedder, self.predicate_similarity = embedder, predicate_similarity
        self.vocab, self.compiled = _compiled_vocab(vocab)
        self.canonical = Canonicalizer(self.vocab, embedder, predicate_similarity)
        self.meaning = MeaningReader(self.vocab, embedder)
        self._keywords = self.vocab.keyword_index()
        self._homes = Homes(self.vocab)
        # the built-in patterns (pets, kin, partners) name built-in predicates: an ontology that extends
        # nothing has none of them, and no fact of a predicate it lacks is written
        self._lacking = frozenset(load_vocabulary().predicates) - frozenset(self.vocab.predicates)
        self.parser = use_parser and parse.parser_available()  # spaCy loads on the first sentence it parses
        self.version = RULES_VERSION + (f"+{parse.parser_version()}" if self.parser else "") + ontology_tag(self.vocab)
        classes = self.vocab.value_classes
        self._activities = frozenset(classes.get("activity", ()))
        self._animals = frozenset(classes.get("animal", ()))
        # words the vocabulary knows as people or as values of a class other than animals: no pet's kind
        self._not_animals = frozenset(self.vocab.relations) | frozenset(
            w for cls, ws in classes.items() if cls != "animal" for w in ws)
        rel_words = sorted(self.vocab.relations, key=len, reverse=True)
        self._relation_rx = re.compile(
            r"\b(?:my|our)\s+(?:(?:older|younger|little|big|elder|twin|oldest|youngest|eldest)\s+)?"
            rf"(?P<rel>{'|'.join(map(re.escape, rel_words))})\b,?"
            # "my sister Maya", "my brother is Alex", "my husband is called Raj"
            rf"(?:\s+(?:(?:is|was)\s+(?:called\s+|named\s+)?|(?:called|named)\s+)?(?P<name>(?-i:{_NAME})))?",
            re.I,
        )
        # "I have a younger brother named Leo", "we've got a daughter called Ivy": said as "My ... is Leo"
        self._had_named_rx = re.compile(
            r"\b(?:I|[Ww]e)(?:\s+have|\s+have\s+got|['’]ve\s+got)\s+(?:a|an|one)\s+((?:[a-z]+\s+)?"
            rf"(?:{'|'.join(map(re.escape, rel_words)) or '(?!)'}))\s+(?:called|named)\s+(?=[A-Z])")
        # (an ontology that does not extend the default may list no animals: then no pet pattern matches)
        animals = "|".join(re.escape(a) for a in classes.get("animal", ())) or "(?!)"
        self._pet_named_rx = re.compile(
            rf"\b(?P<who>I|we|{_NAME})(?:'ve|'d|\s+(?:have|has|had)(?=\s+(?:got|adopted|rescued|bought)))?\s+"
            rf"(?:(?:{_ADVERBS})\s+)*(?:have|has|had|adopted|got|rescued|bought|"
            r"own|owns|welcomed|brought home)\s+(?:another|a|an|one|our|my|two)?\s*(?:new\s+|little\s+|sweet\s+)?"
            r"(?P<animal>[A-Za-z]+(?:\s+[a-z]+)?)\s*,?\s+(?:and\s+)?(?:named|called)\s+(?:(?:her|him|it)\s+)?"
            r"(?P<name>[A-Z][\w'-]*)",
        )
        self._pet_rx = re.compile(
            rf"\b(?P<who>I|we|{_NAME})\s+(?:(?:{_ADVERBS})\s+)*(?:have|has|adopted|got|rescued|bought|own|"
            r"owns|brought home)\s+(?:a|an|one|another)\s+(?:new\s+|little\s+)?"
            rf"(?P<animal>(?i:{animals}))\b(?!\s*,?\s+(?:named|called))",
        )
        self._pet_gone_rx = re.compile(
            rf"(?:\bmy\s+(?:(?i:{animals}))\s+)?(?P<name>{_NAME})\s+(?:passed away|died|ran away)"
            rf"|\b(?:I|[Ww]e)\s+(?:(?:{_ADVERBS})\s+)*lost\s+(?:(?i:our|my)\s+(?:(?i:{animals}))\s+)?(?P<lost>{_NAME})",
        )  # ("we lost Bolt in the summer")
        # "Oscar, my guinea pig", "my dog Rex", "our cats Luna and Oliver"
        self._pet_appos_rx = re.compile(
            rf"(?P<name>{_NAME}),\s+(?i:my|our)\s+(?:(?i:{animals}))\b"
            rf"|\b(?:(?i:my|our)|(?i:have|own|got|adopted)\s+(?i:two|three|four|2|3|4))\s+(?:(?i:{animals}))s?,?"
            rf"\s+(?P<name2>{_NAME})(?:\s+and\s+(?P<name3>{_NAME}))?",
        )
        self._married_rx = re.compile(
            rf"(?P<p>{_NAME}|[Mm]y\s+(?:husband|wife|partner|fianc[eé]e?))\s+and\s+I\s+(?:(?:{_ADVERBS})\s+)*"
            r"(?:(?:got|are|are now|just got|have been|have|were)\s+"
            r"(?P<status>married|engaged|divorced|separated)|(?P<knot>tied the knot|got hitched))",
        )

    @functools.cached_property
    def _job_verbs(self) -> frozenset[str]:
        """The verbs whose doer is a job of the job class ("teacher": teach, "driver": drive), by each job's last
        word ("supply teacher"), and a job that is its own verb ("cook", "nurse")."""
        last = {w.split()[-1] for w in self.vocab.value_classes.get("job", ())}
        return frozenset(v for w in last for v in agent_verbs(w)) | frozenset(last)

    def with_vocabulary(self, vocab: Vocabulary) -> RulesExtractor:
        """The same extractor reading another ontology (a group's own)."""
        return RulesExtractor(self.embedder, self.predicate_similarity, self.parser, vocab)

    # -- public -----------------------------------------------------------
    def extract(self, episode: Episode, context: ExtractContext | None = None) -> Extraction:
        out = Extraction()
        if episode.role not in ("user",) and not (episode.speaker and episode.role != "assistant"):
            return out
        me = episode.speaker or "User"
        speakers = frozenset({me, *(e.speaker for e in (context.previous if context else ()) if e.speaker)})
        for raw in SENTENCE.split(episode.content):
            raw = said_plainly(self._had_named_rx.sub(r"My \1 is ", reworded(raw)), self._job_verbs)
            # ("The book I love most is X": "My favourite book is X")
            sentence = normalize_text(raw.strip())
            if sentence and not worth.is_question(raw):  # a question states nothing
                self._read(raw.strip(), sentence, me, episode.occurred_at, out, speakers)
        out.facts = [as_kin(f, me) for f in unique_facts(out.facts)  # ("Dad ...": the speaker's dad)
                     if named_subject(f.subject) and f.predicate not in self._lacking
                     and f.subject.lower() != f.object.lower()]  # (a thing is no value of its own: "X7 driver X7")
        out.mentions = list(dict.fromkeys(out.mentions))
        return out

    def earlier_value(self, episode: Episode, subject: str, predicate: str, named: str = "") -> str | None:
        """The value an earlier turn gives ``subject``'s one-value slot, read loosely (``Loose.said_loosely``): asked
        when a later turn changes the slot and nothing holds it."""
        if not self.meaning.enabled or predicate not in self.vocab.predicates:
            return None
        me = episode.speaker or "User"
        for raw in SENTENCE.split(episode.content):
            said = said_plainly(self._had_named_rx.sub(r"My \1 is ", reworded(raw)), self._job_verbs).strip()
            if not said or worth.is_question(raw):
                continue
            for sentence in dict.fromkeys((said, normalize_text(said))):  # (as ``_read`` reads it: said, then
                # with its contractions expanded, which the parse may read otherwise)
                value = self.meaning.said_loosely(sentence, me, subject, predicate, named)
                if value is not None:
                    return value
        return None

    def _read(self, raw: str, sentence: str, me: str, t: datetime, out: Extraction,
              speakers: frozenset[str] = frozenset()) -> None:
        """One sentence: a group's own predicates by meaning; else the ontology's phrase patterns (the
        surest), with what meaning read of values they missed; else the parse, whose relations no
        predicate takes become open facts. Then the attributes no predicate names, of values none took."""
        before = len(out.facts)
        self._read_slots(raw, sentence, me, t, out, speakers)
        out.facts[before:] = [f for f in out.facts[before:] if f.ending or not self.vocab.is_single(f.predicate)
                              or f.object_kind != "entity" or not a_stay(raw, f.object)]  # (a visit: "We went to
        # Paris for the weekend"; not a state: "We got engaged on holiday!")
        if self.parser:  # "my dentist is Dr. Greaves": a slot no predicate names, for a value no other fact took
            taken = out.facts[before:]
            named = [a for a in self._attributes(raw, me, t, speakers | {me})
                     if not any(names_value(f.object, a.object) for f in taken)]
            out.facts.extend(named)
            out.mentions.extend(f.subject for f in named)

    def _read_slots(self, raw: str, sentence: str, me: str, t: datetime, out: Extraction,
                    speakers: frozenset[str]) -> None:
        read = self.meaning.read(raw, me, t) if self.meaning.enabled else []
        if read and all(f.predicate in self.vocab.own for f in read):
            # a group's own predicate said in the sentence is the surer reading: the built-in phrase
            # patterns know nothing of it ("I quit the Zone 2 plan" is no job that ended)
            out.facts.extend(read)
            out.mentions.extend(f.subject for f in read)
            return
        before = len(out.facts)
        self._sentence(sentence, me, t, out)
        if len(out.facts) > before:
            # "I sold my Civic and bought a Tesla": the patterns read the sale; meaning the new value
            ended = any(g.ending for g in out.facts[before:])
            # (and a one-value slot the patterns did not touch: "moved in with my girlfriend in Nottingham")
            slots = {g.predicate for g in out.facts[before:]}
            missed = [f for f in read if (ended or f.predicate not in slots and self.vocab.is_single(f.predicate)
                                          or f.ending and f.predicate in slots and f.object[:1].isupper())
                      and (not f.ending or f.predicate in slots)  # (an end of another name in a slot they read:
                      # "joined KPMG after leaving Deloitte")
                      and not any(names_value(f.object, g.object) for g in out.facts[before:])]
            missed += self._at_after_an_end(sentence, me, out.facts[before:])
            out.facts.extend(missed)
            out.mentions.extend(f.subject for f in missed)
            if self.parser and not missed:  # ("I've been living in X since my daughter started school": the
                # patterns read the daughter; the parse the one slot they did not touch)
                self._parsed(raw, me, t, out, speakers | {me}, besides=slots)
            return
        if read:
            out.facts.extend(read)
            out.mentions.extend(f.subject for f in read)
        elif self.parser:
            self._parsed(raw, me, t, out, speakers | {me})

    def _at_after_an_end(self, sentence: str, me: str, read: list[ExtractedFact]) -> list[ExtractedFact]:
        """"I handed in my notice at Greggs and I'm at Boots now": where the speaker is, said after the end of a
        one-value slot of a name, is that slot's new value (not after an end that may be of several slots: "I left
        Tesco and I'm with Aldi now" does not say which)."""
        ended = [f for f in read if f.ending and f.subject == me and f.object_kind == "entity"
                 and self.vocab.is_single(f.predicate)]
        at = _AT_NOW.search(sentence) if len(ended) == 1 else None
        if at is None or names_value(ended[0].object, at.group(1)):
            return []
        value, first = at.group(1), ended[0]
        return [replace(first, object=value, statement=self._statement(first.predicate, me, value), ending=False,
                        replaces=first.object)]

    # -- the parse: sentences the phrase patterns did not read ---------------
    def _parsed(self, sentence: str, me: str, t: datetime, out: Extraction, speakers: frozenset[str],
                besides: set[str] | None = None) -> None:
        """The parse's facts; with ``besides`` (the predicates the patterns read), only its single-valued
        predicates' facts of others."""
        span = dates.resolve(sentence, t)
        for c in parse.clauses(sentence, me, self.vocab.relations, self._activities):
            spec = self._predicate_of(c)
            if besides is not None and (spec is None or spec.name in besides or not spec.single_valued):
                continue
            if spec is not None and spec.name in self.vocab.ties and _AS_A_JOB.match(sentence.split(c.object, 1)[-1]):
                spec = self.vocab.predicates.get("works_at")  # one is with a firm "as a consultant": its employee
            if spec is not None and c.object.lower() in self.vocab.relations:
                continue  # ("Bea is my line manager": a tie, which the relation words read, is no job title)
            if spec is not None and (self.canonical.fits(spec.name, c.object) or c.copula_noun
                                     and product_name(c.object) is not None):  # ("my phone is a Nothing Phone 2")
                if self._worth_keeping(c, sentence, span, speakers, worth.ANY_FACT):
                    self._vocabulary_fact(c, spec, t, span, out)
            elif self._may_stay_open(c) and self._worth_keeping(c, sentence, span, speakers):
                self._open_fact(c, t, span, out)

    def _worth_keeping(self, c: parse.Clause, sentence: str, span: dates.DateSpan | None,
                       speakers: frozenset[str], rules: tuple[worth.Rule, ...] = worth.RULES) -> bool:
        """A fact read off the parse passes the rules of what is worth keeping (extract/worth.py): every
        rule for an open fact; for a predicate of the ontology, those that hold of any fact."""
        said = worth.Said(c, sentence, worth.dated(sentence, span), speakers, frozenset(self.vocab.relations))
        why = worth.refused(said, rules)
        if why is not None:
            log.debug("open fact refused: %s", why)
        return why is None

    def _vocabulary_fact(self, c: parse.Clause, spec: Predicate, t: datetime, span: dates.DateSpan | None,
                         out: Extraction) -> None:
        obj = c.object if spec.object_kind == "entity" else c.object.lower()
        product = product_name(c.object)
        word = self.canonical.class_word(spec.name, product or c.object) if spec.value_class else None
        if product is not None and (word or c.copula_noun):
            obj = product  # ("my phone's an old iPhone 11", "my new phone is a Nothing Phone 2")
        if word and product is None and not (c.copula_noun and obj.endswith(" " + word)) \
                and not obj.startswith(word + " of "):  # (nor a role of something: "head of marketing")
            obj = word  # ("a Samsung Galaxy A52" stays whole, and a role's title: "my role is ward manager")
        # "lived in X" is over; "moved to X" (also past tense) is how it began
        over = c.past and span is not None and c.surface in spec.past
        self._fact(out, spec, c.subject, (obj, ""), t, span, past=over)

    def _may_stay_open(self, c: parse.Clause) -> bool:
        """A clause the vocabulary cannot place becomes an open fact, unless it is a
        copula (a description or a feeling) or a vocabulary relation whose object is
        the wrong kind ("I live in a small town": no named place)."""
        if c.copula_noun or c.relation.split()[0] == "be":
            return False
        name = snake(c.relation)
        if not name or name in self.vocab.predicates:
            return False
        # A relation phrase of a single-valued predicate with the wrong kind of object ("I live in a small
        # town") stays out; a bare verb that some such predicate also lists ("I joined a new activist group",
        # "we had a picnic", "I went hiking") is an event of its own.
        phrases = (name, snake(c.surface))
        return not any("_" in p and self.vocab.is_single(self.canonical.phrases.get(p, "")) for p in phrases)

    def _open_fact(self, c: parse.Clause, t: datetime, span: dates.DateSpan | None, out: Extraction) -> None:
        kind = "entity" if c.object[:1].isupper() else "value"
        obj = c.object if kind == "entity" else c.object.lower()
        # "my favourite band is X" names the one favourite: a new one replaces it
        self._emit(out, c.subject, snake(c.relation), obj, c.statement, t, span, kind,
                   one_value=c.relation.startswith("favorite "))

    def _attributes(self, sentence: str, me: str, t: datetime, speakers: frozenset[str]) -> list[ExtractedFact]:
        """The sentence's attributes of the speaker's that no predicate names (``_an_attribute``)."""
        span, out = dates.resolve(sentence, t), Extraction()
        self._reached_on(sentence, me, t, span, out)
        for c in parse.clauses(sentence, me, self.vocab.relations, self._activities):
            if self._an_attribute(c) and self._predicate_of(c) is None and self._worth_keeping(c, sentence, span,
                                                                                               speakers):
                if c.copula_noun.lower().endswith("address"):
                    c = replace(c, object=whole_address(c.object, sentence))
                home = self._homes.of_address(c.copula_noun, c.object)
                if home is not None:  # "our new address is 3 Church Street": where one lives
                    self._fact(out, home, c.subject, (c.object, ""), t, span, past=False)
                else:
                    self._attribute_fact(c, t, span, out)
        return out.facts

    def _reached_on(self, sentence: str, me: str, t: datetime, span: dates.DateSpan | None, out: Extraction) -> None:
        """"You can reach me on 07911 223344", "text me at +44 7700 900123": the speaker's phone number."""
        for m in _REACH_ME.finditer(sentence):
            number = " ".join(m.group("number").split())
            self._emit(out, me, "phone_number", number, f"{me}'s phone number is {number}", t, span, "value",
                       one_value=True)

    def _an_attribute(self, c: parse.Clause) -> bool:
        """"My dentist is Dr. Greaves", "my mobile number is 07700 900123": a noun of the speaker's that no
        predicate names, said to be one named thing or one number, is an attribute with one value."""
        if c.relation != "be" or not c.copula_noun or c.copula_noun.split()[-1] in self._animals \
                or snake(c.copula_noun) in self.vocab.predicates:
            return False  # (not "is deployed to"; a pet's name is read as a pet)
        return c.object[:1].isupper() or any(ch.isdigit() for ch in c.object) or parse.an_address(c.object)

    def _attribute_fact(self, c: parse.Clause, t: datetime, span: dates.DateSpan | None, out: Extraction) -> None:
        kind = "value" if any(ch.isdigit() for ch in c.object) else "entity"
        self._emit(out, c.subject, snake(c.copula_noun), c.object, f"{c.subject}'s {c.copula_noun} is {c.object}", t,
                   span, kind, one_value=True)

    def _predicate_of(self, c: parse.Clause) -> Predicate | None:
        """The vocabulary predicate a clause states, if any: "my <noun> is X" by the
        noun's predicate keywords; "I am a <job>" by value class; otherwise the
        relation as written, then its lemma, then by meaning (embeddings)."""
        if c.copula_noun:
            names = self._keywords.get(c.copula_noun.split()[-1], set())
            return self.vocab.predicates[next(iter(names))] if len(names) == 1 else None
        head = c.object.split()[-1].lower() if c.object else ""
        named = self._keywords.get(head, set())
        only = self.vocab.predicates[next(iter(named))] if len(named) == 1 else None
        if only is not None and (self.canonical.class_word(only.name, c.object)
                                 or self._kind_of_its_noun(only, c.object)):
            return only  # "I follow a keto diet": the object names its kind
        if only is not None and c.relation in ("go to", "attend") and not c.past and c.object[:1].isupper() \
                and only.object_kind == "entity":
            return only  # "I go to Kingston College": a name of the slot's kind
        if c.relation == "be" and not c.copula_noun:
            return next((p for p in self.vocab.predicates.values() if p.value_class in ("job", "diet")
                         and self.canonical.class_word(p.name, c.object)), None)
        for phrase in (c.surface, c.relation):
            match = self.canonical.predicate(phrase, c.object)
            if match.known:
                return self.vocab.predicates[match.name]
        return None

    @staticmethod
    def _kind_of_its_noun(spec: Predicate, value: str) -> bool:
        """"I'm doing a maths degree": a value said with a keyword of a one-value slot that has no class of values,
        and words of its own before it (not only "a new degree")."""
        return not spec.value_class and spec.object_kind == "value" and spec.single_valued \
            and len(_LEADING.sub("", value.strip()).split()) > 1

    # -- internals --------------------------------------------------------
    def _sentence(self, s: str, me: str, t: datetime, out: Extraction) -> None:
        span = dates.resolve(s, t)
        aliases: dict[str, str] = {}
        for m in self._relation_rx.finditer(s):
            rel = m.group("rel").lower()
            pred = self.vocab.relations[rel]
            name = m.group("name")
            if name and name.split()[0].lower() in _NOT_SUBJECTS:
                name = None
            named_before = _NAMED_BEFORE.search(s[:m.start()]) or m.group(0).endswith(",") \
                and _NAMED_BESIDE.search(s[:m.start()])  # ("Tom is my brother", "Gareth, my husband, is a plumber")
            if not name and named_before and named_before.group("who").split()[0].lower() not in _NOT_SUBJECTS:
                name = named_before.group("who")  # "Tom is my brother"
            if not name:  # "my brother": a weak fact (docs/labelling.md), kept because people ask who has one
                name = f"{me}'s {rel}"
                aliases[m.group(0)] = name
                if self.vocab.is_single(pred):
                    continue  # (but "my partner", "my boss" would put a placeholder in place of the one named)
                statement = f"{me} has a {rel}"
            else:
                statement = self.vocab.predicates[pred].render(me, name, rel)
            self._emit(out, me, pred, name, statement, t, None, "entity")
        for m in self._married_rx.finditer(s):
            start = span.start if span else t
            status = "married" if m.group("knot") else m.group("status").lower()
            self._emit(out, me, "relationship_status", status,
                       self._statement("relationship_status", me, status), start, span, "value")
            if status in ("divorced", "separated"):  # "My husband and I have separated": no partner now
                self._end(out, me, self.vocab.predicates["partner"], None, t, span)
            elif m.group("p")[:3] not in ("My ", "my "):
                self._emit(out, me, "partner", m.group("p"), self._statement("partner", me, m.group("p")),
                           start, span, "entity")
        self._pets(s, me, t, span, out)
        # Third-person clauses: "my mom lives in X" -> "<me>'s mom lives in X".
        s_third = s
        for phrase, name in aliases.items():
            s_third = s_third.replace(phrase, name.replace("'s ", "s_").title().replace(" ", ""))
        for c in self.compiled:
            if self.parser and c.pred.name == "likes":
                continue  # the parse reads preferences with their grammar; the phrase pattern made junk
            self._first_person(c, s, me, t, span, out)
            if c.ending_named and c.pred.name in self.vocab.own:
                for m in c.ending_named.finditer(s):
                    subj = self._subject(m.group("subj"), aliases)
                    if subj is not None and subj.lower() not in ("i", "we"):
                        self._end(out, subj, c.pred, None, t, span)
            if c.third:
                for m in c.third.finditer(s if not aliases else s_third):
                    subj = self._subject(m.group("subj"), aliases)
                    if subj is None:
                        continue
                    obj = self._object(c.pred, m.group("obj"))
                    if obj:
                        self._fact(out, c.pred, subj, obj, t, span, past=False)

    def _phrased_ends(self, c: _Compiled, s: str, me: str, t: datetime, span: dates.DateSpan | None,
                      out: Extraction) -> None:
        """The ends a predicate's own phrasings say of the speaker ("I sold my car", "we split up")."""
        p = c.pred
        if c.ending:
            for m in c.ending.finditer(s):
                obj = self._object(p, m.group("obj"))
                if obj:
                    self._end(out, me, p, obj[0], t, span)
        if c.ending_together:
            for m in c.ending_together.finditer(s):
                obj = self._object(p, m.group("obj"))
                if obj:
                    self._end(out, me, p, obj[0], t, span)
        if c.ending_any:
            for m in c.ending_any.finditer(s):
                rest = s[m.end():]
                named = re.match(r"\s+(?:at|with|from|for)\s+(" + _NAME + ")", rest)
                if not named:
                    self._end(out, me, p, None, t, span)
        if c.state_ends:  # "I'm not vegan anymore", "I am no longer a nurse"
            for m in _NO_LONGER_AM.finditer(s):
                obj = self._object(p, m.group("obj"))
                if obj and not obj[1].strip(" ,"):
                    self._end(out, me, p, obj[0], t, span)

    def _first_person(self, c: _Compiled, s: str, me: str, t: datetime, span: dates.DateSpan | None,
                      out: Extraction) -> None:
        p = c.pred
        if not _SUPPOSED.search(s):  # ("If I move I'll sell the car": no end yet)
            self._phrased_ends(c, s, me, t, span, out)
        for rx, past in ((c.first, False), (c.chained, False), (c.past, True)):
            if rx is None:
                continue
            for m in rx.finditer(s):
                obj = self._object(p, m.group("obj"), said=m.group(0))
                if obj and (_AS_A_ROLE.match(obj[1]) or p.object_kind == "entity" and _FOR_MY_THING.match(obj[1])
                            or p.name in self.vocab.ties and _AS_A_JOB.match(obj[1])):
                    continue  # "I'm seeing Dr. Mensah as my GP": the role after "as" is the slot, not this one;
                    # and one is with a firm, not a partner, "as a consultant"
                said = dates.in_clause(s, m.start(), t, span)  # (the clause's own date, if it says one)
                while obj:
                    self._fact(out, self._schooled(p, obj[0], m.group(0)), me, obj, t, said, past=past)
                    # "I speak Spanish and French": more values of the same class
                    more = re.match(r"\s*(?:,\s*and|,|and|&)\s+(.+)", obj[1]) if p.value_class and \
                        p.value_class not in ("job", "phone") else None
                    obj = self._object(p, more.group(1)) if more else None

    def _subject(self, raw: str, aliases: dict[str, str]) -> str | None:
        words = raw.split()
        while words and words[0].lower() in _NOT_SUBJECTS:
            words = words[1:]
        if not words:
            return None
        name = " ".join(words)
        for alias in aliases.values():
            if name == alias.replace("'s ", "s_").title().replace(" ", ""):
                return alias
        return name

    def _object(self, p: Predicate, raw: str, said: str = "") -> tuple[str, str] | None:
        """Cut the object phrase and check it against the predicate's value class (a job needs none when
        the words say it is one: "I work as a paralegal", "I'm a barber at Fade Factory").
        Returns (object, remainder after it) or None."""
        raw = raw.strip()
        if p.value_class == "job":
            cut = _STOP.search(raw)
            phrase = raw[: cut.start()] if cut else raw
            rest = raw[cut.start():] if cut else ""
            phrase = _LEADING.sub("", phrase).strip()
            words = phrase.split()
            if not words or len(words) > 5:
                return None
            lowered = phrase.lower()
            jobs = self.vocab.value_classes["job"]
            if not any(lowered == j or lowered.endswith(" " + j) for j in jobs) \
                    and self.canonical.class_word(p.name, lowered) is None and not (
                    len(words) <= 3 and phrase.replace(" ", "").replace("-", "").isalpha() and phrase.islower()
                    and words[-1] not in ("team", "group", "unit", "family", "pair", "couple", "whole")
                    and (_AS_A_JOB.search(said) or _HELD_AT.match(rest))):
                return None
            return phrase.lower(), rest
        if p.value_class:
            body = _AMOUNT_OF.sub("", _LEADING.sub("", raw).strip())  # ("50 mg of sertraline": the thing it is of)
            lowered = body.lower()
            for word in self.vocab.value_classes[p.value_class]:
                if lowered.startswith(word) and (len(lowered) == len(word) or not lowered[len(word)].isalpha()):
                    if p.value_class == "phone":
                        cut = _STOP.search(body)
                        phrase = (body[: cut.start()] if cut else body).strip()
                        if len(phrase.split()) <= 4:
                            return phrase, body[len(phrase):]
                        return None
                    return word, body[len(word):]
            first = re.match(r"[A-Za-z-]+", body)  # (an unlisted word of the class: "topiramate")
            if first is None or not by_its_form(p.value_class, first.group(0)):
                return None
            return first.group(0).lower(), body[first.end():]
        raw = _SOMEONE.sub("", raw)  # ("seeing someone new, Tariq": Tariq)
        cut = _STOP.search(raw)
        phrase = (raw[: cut.start()] if cut else raw).strip()
        rest = raw[len(phrase):]
        if p.object_kind == "entity":
            phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase, flags=re.I)
            phrase = the_name(phrase)  # "an old Honda Civic": the name (not "new LGBTQ activist group")
            unit = _NAMES_UNIT.match(phrase)
            if unit is not None and unit.group(2).lower() in ORG_UNITS:
                phrase = unit.group(1)  # "joined KPMG's audit practice": KPMG
            if not phrase or not phrase[0].isupper() or len(phrase.split()) > 5:
                return None
            if phrase.split()[0].lower() in _NOT_SUBJECTS:
                return None
        else:
            phrase = _LEADING.sub("", phrase).strip().lower()
            if not phrase or len(phrase.split()) > 4 or phrase.split()[0] in _FUNCTION_WORDS:
                return None
        return phrase, rest

    def _held_where(self, role: str, org: str) -> str:
        """The slot of the place a role is held at: a place of study for a student's role ("student" a keyword of
        studies_at), or for a role that is no job at a place whose name says it is a school ("a second-year at
        the University of Leeds"); else the employer."""
        school = self.vocab.predicates.get("studies_at")
        if school is None:
            return "works_at"
        words = set(school.keywords)
        if role.split()[-1].lower() in words or _YEAR_OF_STUDY.match(role):
            return school.name  # (a student's role, or a year of one: "a first-year at Leeds Beckett")
        a_job = any(role == j or role.endswith(" " + j) for j in self.vocab.value_classes.get("job", ())) \
            or self.canonical.class_word("job_title", role) is not None
        return school.name if not a_job and set(org.lower().split()) & words else "works_at"

    def _schooled(self, p: Predicate, value: str, said: str) -> Predicate:
        """"I've just started at Cambridge University": a place said without a word of work ("started at",
        "joined") whose name says it is a place of study (a word of studies_at's keywords) is studied at."""
        school = self.vocab.predicates.get("studies_at")
        if p.name != "works_at" or school is None or _OF_WORK.search(said):
            return p
        return school if set(value.lower().split()) & set(school.keywords) else p

    def _statement(self, pred: str, s: str, o: str, r: str = "") -> str:
        return self.vocab.predicates[pred].render(s, o, r)

    def _fact(self, out: Extraction, p: Predicate, subj: str, obj: tuple[str, str], t: datetime,
              span: dates.DateSpan | None, past: bool) -> None:
        value, rest = obj
        if p.object_kind == "entity" and p.name not in self.vocab.own and value.split()[-1].lower() in WORKPLACES \
                and not re.search(r"\bwork", p.description):
            return  # "moved to the London office", "transferred to the Leeds branch": a place of work, no home
        start = span.start if span else t
        end = span.end if span else None
        if past:
            if span is None:
                return  # a past value we cannot place in time
            end = end or dates.duration(rest, start) or dates.duration(" " + (span.phrase or ""), start)
            if end is None:
                end = dates.duration(rest, start) or dates.period_end(span)
        org = re.match(rf"\s+(?:at|for|with)\s+(?:the\s+)?({_NAME})", rest) if p.name == "job_title" else None
        where = self._held_where(value, org.group(1)) if org else "works_at"
        if where != "studies_at" or value.split()[-1].lower() in self.vocab.predicates[where].keywords:
            # (a year of a school said as a role is no job: "I'm a second-year at the University of Leeds")
            self._emit(out, subj, p.name, value, self._statement(p.name, subj, value), t, span, p.object_kind,
                       valid_to=end)  # (from t, said when: _emit starts it at the span, and bounds a period's start)
        if p.name == "job_title":
            if org:
                self._emit(out, subj, where, org.group(1), self._statement(where, subj, org.group(1)),
                           t, span, "entity", valid_to=end)
        if p.name == "field_of_study":
            school = re.match(rf"\s+at\s+(?:the\s+)?({_NAME})", rest)
            if school:
                self._emit(out, subj, "studies_at", school.group(1),
                           self._statement("studies_at", subj, school.group(1)), t, span, "entity",
                           valid_to=end)

    def _end(self, out: Extraction, subj: str, p: Predicate, value: str | None, t: datetime,
             span: dates.DateSpan | None) -> None:
        at = span.start if span else t
        out.facts.append(ExtractedFact(
            subject=subj, predicate=p.name, object=value or "", statement=f"{subj} no longer {p.name}",
            valid_from=at, dated=span is not None, ending=True, any_object=value is None,
            object_kind="entity" if p.object_kind == "entity" else "value",
        ))
        out.mentions.append(subj)

    def _emit(self, out: Extraction, subj: str, pred: str, obj: str, statement: str, t: datetime,
              span: dates.DateSpan | None, kind: str, valid_to: datetime | None = None, one_value: bool = False
              ) -> None:
        start = span.start if span else t
        end = valid_to if valid_to is not None else (span.end if span else None)
        if end is not None and end <= start:
            end = None
        out.facts.append(ExtractedFact(
            subject=subj, predicate=pred, object=obj, statement=statement, valid_from=start, valid_to=end,
            dated=span is not None, object_kind="entity" if kind == "entity" else "value",
            started_by=dates.started_by(span, t), one_value=one_value,
        ))
        out.mentions.extend([subj] + ([obj] if kind == "entity" else []))

    def _not_an_animal(self, noun: str) -> bool:
        """A noun the vocabulary knows as a person (a relation) or as a value of another class."""
        return any(w in self._not_animals or w.removesuffix("s") in self._not_animals for w in noun.split())

    def _pets(self, s: str, me: str, t: datetime, span: dates.DateSpan | None, out: Extraction) -> None:
        for m in self._pet_named_rx.finditer(s):
            who = self._who(m.group("who"), me)
            if who is None:
                continue
            animal = m.group("animal").lower()
            if self._not_an_animal(animal):
                continue  # "a friend named Sam", "a band called Low": someone or something else named
            name = m.group("name")
            self._emit(out, who, "has_pet", name, f"{who} has a {animal} named {name}", t, span, "entity")
        for m in self._pet_rx.finditer(s):
            who = self._who(m.group("who"), me)
            if who is None:
                continue
            animal = m.group("animal").lower()
            self._emit(out, who, "has_pet", animal, f"{who} has a {animal}", t, span, "value")
        for m in self._pet_appos_rx.finditer(s):
            for name in (m.group("name"), m.group("name2"), m.group("name3")):
                if name and name.split()[0].lower() not in _NOT_SUBJECTS:
                    self._emit(out, me, "has_pet", name, f"{me} has a pet named {name}", t, span, "entity")
        for m in self._pet_gone_rx.finditer(s):
            name = m.group("name") or m.group("lost")
            if name.split()[0].lower() in _NOT_SUBJECTS:
                continue
            at = span.start if span else t
            for pred in ("has_pet", "has_relative", "has_parent", "has_sibling", "has_friend", "partner"):
                out.facts.append(ExtractedFact(
                    subject=me, predicate=pred, object=name, statement=f"{name} passed away",
                    valid_from=at, dated=span is not None, ending=True,
                ))

    @staticmethod
    def _who(raw: str, me: str) -> str | None:
        if raw.lower() in ("i", "we"):
            return me
        words = raw.split()
        while words and words[0].lower() in _NOT_SUBJECTS:
            words = words[1:]
        return " ".join(words) or None
