"""Query words: what every store's text search and recall's overlap count read
from a query. One module, so no store imports another's."""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w']+", re.UNICODE)
STOPWORDS = frozenset(
    "a an the and or but if of at by for with about against between into through during before after above "
    "below to from up down in out on off over under again further then once here there when where why how all "
    "any both each few more most other some such no nor not only own same so than too very s t can will just "
    "don should now i me my myself we our ours you your yours he him his she her hers it its they them their "
    "what which who whom this that these those am is are was were be been being have has had having do does "
    "did doing would could ought i'm you're he's she's it's we're they're i've you've we've they've i'd "
    "you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't hasn't "
    "haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't let's that's "
    "who's what's here's there's when's where's why's how's did".split()
)


def query_terms(text: str) -> list[str]:
    """Content words of a query (lower-cased, stopwords dropped, order kept)."""
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.strip("'")
        if w and w not in STOPWORDS and w not in out:
            out.append(w)
    return out
