"""A seeded, deterministic generator of multi-session dialogue for scale tests.

Each group is one user talking to an assistant across sessions. User turns mix
facts the rules extractor understands (moves, jobs, pets, instruments, diets,
relatives) with everyday chit-chat; assistant turns answer. The same seed always
gives the same episodes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from ..core.models import Episode

CITIES = ["Lisbon", "Porto", "Oslo", "Bergen", "Denver", "Austin", "Chicago", "Seattle", "Leeds", "Manchester",
          "Glasgow", "Dublin", "Vienna", "Prague", "Kyoto", "Osaka", "Toronto", "Montreal", "Nairobi", "Accra"]
ORGS = ["Northwind", "Contoso", "Initech", "Globex", "Umbrella Labs", "Hooli", "Stark Works", "Wayne Analytics",
        "Acme Corp", "Vandelay Imports", "Brightline Studio", "Datadog", "Stripe", "Tyrell Systems"]
TITLES = ["data analyst", "software engineer", "product designer", "nurse", "teacher", "project manager",
          "research scientist", "accountant"]
INSTRUMENTS = ["violin", "cello", "piano", "guitar", "drums", "flute", "tennis", "chess"]
PETS = ["dog", "cat", "parrot", "rabbit", "hamster"]
NAMES = ["Maya", "Alex", "Sam", "Ines", "Kofi", "Lena", "Ravi", "Noor", "Tom", "Aiko", "Bea", "Omar"]
DIETS = ["vegetarian", "vegan", "pescatarian", "keto"]
CHAT = [
    "Can you remind me what we talked about last time?", "The weather has been strange this week.",
    "I watched a great documentary about octopuses yesterday.", "Work was busy but fine.",
    "Any tips for sleeping better?", "I'm thinking about learning to bake sourdough.",
    "Traffic was terrible this morning.", "We had friends over for dinner on Saturday.",
    "I finished that novel you recommended, the ending surprised me.", "My knee hurts after the long run.",
    "Could you suggest a weekend hike nearby?", "I need a gift idea for a friend who loves tea.",
]
REPLIES = [
    "Happy to help with that.", "That sounds lovely, tell me more.", "Here are a few ideas you could try.",
    "Noted. I'll remember that.", "That must have been tiring.", "Good to hear!",
]


def _fact_turn(rng: random.Random) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return f"I moved to {rng.choice(CITIES)} last month."
    if kind == 1:
        return f"I live in {rng.choice(CITIES)} now."
    if kind == 2:
        return f"I started a new job at {rng.choice(ORGS)} today."
    if kind == 3:
        return f"I'm a {rng.choice(TITLES)} at {rng.choice(ORGS)}."
    if kind == 4:
        return f"I also started learning the {rng.choice(INSTRUMENTS)}."
    if kind == 5:
        return f"We adopted a {rng.choice(PETS)} called {rng.choice(NAMES)} last weekend."
    if kind == 6:
        return f"My sister {rng.choice(NAMES)} lives in {rng.choice(CITIES)}."
    if kind == 7:
        return f"I went {rng.choice(DIETS)} a few weeks ago."
    return f"I quit my job at {rng.choice(ORGS)} yesterday."


MEAN_TURNS = 8  # turns per session: randint(4, 12)


def generate(n: int, seed: int = 42, groups: int = 1, start: datetime | None = None,
             fact_ratio: float = 0.3, span: timedelta = timedelta(days=3 * 365)) -> Iterator[Episode]:
    """``n`` episodes spread over ``groups`` users, alternating user/assistant.
    Each user's sessions spread over about ``span`` from ``start``, whatever
    ``n`` is: a heavy user has many sessions a day, a light one a few a week,
    and the history ends in the past (three years from 2023 by default)."""
    rng = random.Random(seed)
    t0 = start or datetime(2023, 1, 1, tzinfo=UTC)
    per_group = max(1, n // groups)
    mean_gap = span / max(1.0, per_group / MEAN_TURNS)
    made = 0
    for g in range(groups):
        gid = f"synthetic-{seed}-{g}"
        t = t0
        session = 0
        i = 0
        while i < per_group and made < n:
            session += 1
            t += mean_gap * rng.uniform(0.25, 1.75)
            turns = rng.randint(4, 12)
            for j in range(turns):
                if i >= per_group or made >= n:
                    break
                user = j % 2 == 0
                if user:
                    content = _fact_turn(rng) if rng.random() < fact_ratio else rng.choice(CHAT)
                else:
                    content = rng.choice(REPLIES)
                content = f"{content} (#{i})"  # every turn distinct, as in real logs
                yield Episode(group_id=gid, role="user" if user else "assistant", content=content,
                              occurred_at=t + timedelta(minutes=j), created_at=t + timedelta(minutes=j),
                              session_id=f"{gid}-s{session}")
                i += 1
                made += 1
