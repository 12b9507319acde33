"""Words the clause parser weighs: verbs that state nothing durable, and objects that name nothing."""

from __future__ import annotations

# Verbs that report a state of mind or a speech act about something passing: no durable fact.
LIGHT_VERBS = {
    "think", "feel", "guess", "hope", "know", "mean", "say", "tell", "see", "look", "sound", "seem", "wonder",
    "bet", "agree", "thank", "appreciate", "wish", "want", "need", "imagine", "hear", "believe", "understand",
    "remember", "forget", "check", "let", "keep", "try", "ask", "reckon", "suppose", "glad", "happen", "mind",
    "miss", "care", "admire", "bless", "cheer", "congratulate", "catch", "chat", "talk", "do", "realize",
    "realise", "excite", "thrill", "love", "like", "enjoy", "find", "get", "make", "take", "give", "put",
    "come", "go", "use", "show", "share", "have", "wanna", "gonna", "figure", "stoke", "swamp", "eat", "bond",
    "run", "spend", "pass", "hang", "relax", "rest", "bring", "pump", "dream", "visualize", "gon", "aim",
}
# Objects that name nothing a fact could hold (a job is named by its title: "got the ward manager job").
STOP_OBJECTS = {
    "thing", "things", "stuff", "lot", "lots", "time", "times", "way", "ways", "day", "days", "one", "bit",
    "kind", "sort", "part", "fact", "idea", "question", "moment", "chance", "word", "words", "point", "sense",
    "job", "position", "role", "offer", "fan", "difference", "people", "folks", "voice", "ambition", "muse",
    "wish", "spot", "experience", "weekend", "blast", "company", "support", "road", "game", "everything",
    "everyone", "everywhere", "anything", "something", "nothing", "each", "other", "both", "all", "break",
    "opportunity", "feeling", "feel", "love", "fun", "luck", "care", "note", "look", "photo", "pic",
    "picture", "thought", "thoughts", "news", "advice", "help", "tip", "tips", "dream", "dreams", "goal",
    "goals", "passion", "awe", "others", "place", "shot", "journey", "life", "heart", "mind", "soul",
    "world", "loads", "load", "tons", "ton", "bunch", "plenty", "couple", "challenge", "challenges", "plan",
    "plans", "path", "paths", "vibe", "vibes", "self",
}
# parts of an organisation said with its name ("KPMG's audit practice", "Google's cloud team"): the name is the employer
ORG_UNITS = frozenset({"team", "practice", "department", "division", "group", "office", "branch", "unit", "lab",
                       "arm", "business", "side", "wing"})
