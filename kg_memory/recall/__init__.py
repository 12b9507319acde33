"""Reading: hybrid ranking at a valid time as believed at a transaction time (``ranking``),
a fact's versions and why each changed (``history``), and pictures of them (``timeline``)."""
