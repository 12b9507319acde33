"""Named migrations for the SQLite store. Each runs in its own transaction and is
recorded in ``_kgmem_migrations``. Append new ones; never edit an applied one."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, list[str]]] = [
    ("0001_episodes", [
        """CREATE TABLE episodes (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            group_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool')),
            speaker TEXT,
            content TEXT NOT NULL,
            occurred_at TEXT NOT NULL,
            created_at TEXT NOT NULL,
            session_id TEXT,
            source TEXT,
            content_sha256 TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','done','failed')),
            status_reason TEXT,
            embedding BLOB,
            UNIQUE (group_id, role, content_sha256, occurred_at)
        )""",
        "CREATE INDEX episodes_group_time ON episodes (group_id, occurred_at)",
        "CREATE INDEX episodes_session ON episodes (group_id, session_id, occurred_at)",
        "CREATE INDEX episodes_pending ON episodes (status, occurred_at) WHERE status != 'done'",
        "CREATE VIRTUAL TABLE episodes_fts USING fts5(text, tokenize = 'porter unicode61')",
    ]),
    ("0002_entities", [
        """CREATE TABLE entities (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            group_id TEXT NOT NULL,
            name TEXT NOT NULL,
            key TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'entity',
            aliases TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            embedding BLOB,
            UNIQUE (group_id, key)
        )""",
        """CREATE TABLE mentions (
            episode_id TEXT NOT NULL REFERENCES episodes(id),
            entity_id TEXT NOT NULL REFERENCES entities(id),
            group_id TEXT NOT NULL,
            PRIMARY KEY (episode_id, entity_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX mentions_entity ON mentions (entity_id)",
    ]),
    ("0003_facts", [
        """CREATE TABLE facts (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            fact_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            subject_id TEXT NOT NULL REFERENCES entities(id),
            subject TEXT NOT NULL,
            predicate TEXT NOT NULL,
            object_id TEXT NOT NULL REFERENCES entities(id),
            object TEXT NOT NULL,
            statement TEXT NOT NULL,
            valid_from TEXT,
            valid_to TEXT,
            created_at TEXT NOT NULL,
            expired_at TEXT,
            expired_by TEXT,
            episode_ids TEXT NOT NULL DEFAULT '[]',
            extractor TEXT NOT NULL,
            prompt_version TEXT,
            confidence REAL NOT NULL DEFAULT 1.0,
            reinforcement_count INTEGER NOT NULL DEFAULT 1,
            embedding BLOB
        )""",
        "CREATE INDEX facts_current ON facts (group_id, subject_id, predicate) WHERE expired_at IS NULL",
        "CREATE INDEX facts_object ON facts (group_id, object_id)",
        "CREATE INDEX facts_subject ON facts (group_id, subject_id)",
        "CREATE INDEX facts_identity ON facts (fact_id)",
        "CREATE INDEX facts_valid ON facts (group_id, valid_from, valid_to)",
        "CREATE VIRTUAL TABLE facts_fts USING fts5(text, tokenize = 'porter unicode61')",
    ]),
    ("0004_meta", [
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ]),
    ("0005_fact_predicate_indexes", [
        "CREATE INDEX facts_subject_predicate ON facts (group_id, subject_id, predicate, valid_from)",
        "CREATE INDEX facts_object_predicate ON facts (group_id, object_id, predicate, valid_from)",
    ]),
    # Which rows of which group changed, in commit order, so a process's in-memory index of a group
    # reads only that group's new and changed rows after a write (not the whole group again, and
    # nothing for another group's write). Triggers write it, so every writer records its changes.
    ("0006_changes", [
        """CREATE TABLE changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            group_id TEXT NOT NULL,
            tbl TEXT NOT NULL CHECK (tbl IN ('e', 'f')),
            row INTEGER NOT NULL
        )""",
        "CREATE INDEX changes_group ON changes (group_id, seq)",
        """CREATE TRIGGER episodes_changed_insert AFTER INSERT ON episodes BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'e', NEW.rowid); END""",
        """CREATE TRIGGER episodes_changed_update AFTER UPDATE OF embedding, occurred_at, created_at ON episodes BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'e', NEW.rowid); END""",
        """CREATE TRIGGER episodes_changed_delete AFTER DELETE ON episodes BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (OLD.group_id, 'e', OLD.rowid); END""",
        """CREATE TRIGGER facts_changed_insert AFTER INSERT ON facts BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'f', NEW.rowid); END""",
        """CREATE TRIGGER facts_changed_update AFTER UPDATE OF expired_at, embedding ON facts BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'f', NEW.rowid); END""",
        """CREATE TRIGGER facts_changed_delete AFTER DELETE ON facts BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (OLD.group_id, 'f', OLD.rowid); END""",
    ]),
    # RELATED_TO links between facts, written when a fact is first stored (kg_memory/ingest/links.py).
    ("0007_fact_links", [
        """CREATE TABLE fact_links (
            group_id TEXT NOT NULL,
            fact_id TEXT NOT NULL,
            other_id TEXT NOT NULL,
            score REAL NOT NULL,
            PRIMARY KEY (group_id, fact_id, other_id)
        )""",
        "CREATE INDEX fact_links_other ON fact_links (group_id, other_id)",
    ]),
    # What erasure leaves: the kind of thing erased, when, why and how much; never content.
    ("0008_tombstones", [
        """CREATE TABLE tombstones (
            id TEXT PRIMARY KEY,
            group_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            erased_at TEXT NOT NULL,
            reason TEXT,
            episodes INTEGER NOT NULL,
            facts INTEGER NOT NULL,
            entities INTEGER NOT NULL
        )""",
        "CREATE INDEX tombstones_group ON tombstones (group_id, erased_at)",
    ]),
    # Extraction claims: a writer takes pending episodes with a lease before extracting them.
    ("0009_episode_claims", [
        "ALTER TABLE episodes ADD COLUMN claimed_by TEXT",
        "ALTER TABLE episodes ADD COLUMN claimed_until TEXT",
    ]),
    # Maintenance jobs: merged entities point at their survivor, archived episodes at their body,
    # jobs keep records (merges, reviews, runs) and take named locks.
    ("0010_maintenance", [
        "ALTER TABLE entities ADD COLUMN merged_into TEXT",
        "ALTER TABLE episodes ADD COLUMN archive_ref TEXT",
        """CREATE TABLE job_records (
            group_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            id TEXT NOT NULL,
            at TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (group_id, kind, id)
        )""",
        """CREATE TABLE job_locks (
            group_id TEXT NOT NULL,
            name TEXT NOT NULL,
            owner TEXT NOT NULL,
            until TEXT NOT NULL,
            PRIMARY KEY (group_id, name)
        )""",
    ]),
    # Which versions cite each episode, kept by triggers on every write, so "the facts this turn
    # supports" (recall's superseded-evidence check, erasure) is an index lookup, not a scan.
    ("0011_fact_evidence", [
        """CREATE TABLE fact_evidence (
            group_id TEXT NOT NULL,
            episode_id TEXT NOT NULL,
            fact_row INTEGER NOT NULL,
            PRIMARY KEY (group_id, episode_id, fact_row)
        ) WITHOUT ROWID""",
        """INSERT OR IGNORE INTO fact_evidence (group_id, episode_id, fact_row)
            SELECT f.group_id, j.value, f.rowid FROM facts f, json_each(f.episode_ids) j""",
        """CREATE TRIGGER facts_evidence_insert AFTER INSERT ON facts BEGIN
            INSERT OR IGNORE INTO fact_evidence (group_id, episode_id, fact_row)
            SELECT NEW.group_id, j.value, NEW.rowid FROM json_each(NEW.episode_ids) j; END""",
        """CREATE TRIGGER facts_evidence_update AFTER UPDATE OF episode_ids, group_id ON facts BEGIN
            DELETE FROM fact_evidence WHERE group_id = OLD.group_id AND fact_row = OLD.rowid
              AND episode_id IN (SELECT value FROM json_each(OLD.episode_ids));
            INSERT OR IGNORE INTO fact_evidence (group_id, episode_id, fact_row)
            SELECT NEW.group_id, j.value, NEW.rowid FROM json_each(NEW.episode_ids) j; END""",
        """CREATE TRIGGER facts_evidence_delete AFTER DELETE ON facts BEGIN
            DELETE FROM fact_evidence WHERE group_id = OLD.group_id AND fact_row = OLD.rowid
              AND episode_id IN (SELECT value FROM json_each(OLD.episode_ids)); END""",
    ]),
    # The change log names every change a read can see, not only those the vector index holds:
    # a status, a body, provenance rewritten by erasure. Rows built for a recall are kept beside
    # the group's index (``RowCache``), and dropped when the log names them.
    ("0012_changes_cover_rows", [
        "DROP TRIGGER episodes_changed_update",
        """CREATE TRIGGER episodes_changed_update AFTER UPDATE OF embedding, occurred_at, created_at, role, speaker,
            content, session_id, source, content_sha256, metadata, status, status_reason, archive_ref ON episodes BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'e', NEW.rowid); END""",
        "DROP TRIGGER facts_changed_update",
        """CREATE TRIGGER facts_changed_update AFTER UPDATE OF expired_at, expired_by, embedding, fact_id, subject_id,
            subject, predicate, object_id, object, statement, valid_from, valid_to, created_at, episode_ids,
            extractor, prompt_version, confidence, reinforcement_count ON facts BEGIN
            INSERT INTO changes (group_id, tbl, row) VALUES (NEW.group_id, 'f', NEW.rowid); END""",
    ]),
    # The per-add claim reads only the pending episodes: a partial index whose condition is the
    # queries' own term (``status = 'pending'``; SQLite does not read ``!= 'done'`` as implied by it),
    # so an add costs O(pending), not O(group) (583 ms at 100k episodes before).
    ("0013_pending_episodes", [
        "CREATE INDEX episodes_pending_group ON episodes (group_id, occurred_at, id) WHERE status = 'pending'",
    ]),
    # A large group's held episode index is kept as a snapshot (its rows' keys, times and int8 codes, at a
    # position in the change log), so a process's first recall of it restores that and reads only the
    # rows changed since: reading 100k episodes' rows and vectors took most of a cold 535 ms recall.
    # A snapshot is derived data: deleting an episode or moving it to another group drops its group's.
    ("0014_index_snapshots", [
        """CREATE TABLE index_snapshots (group_id TEXT NOT NULL, part INTEGER NOT NULL, seq INTEGER NOT NULL,
            body BLOB NOT NULL, PRIMARY KEY (group_id, part))""",
        """CREATE TRIGGER index_snapshots_episode_deleted AFTER DELETE ON episodes BEGIN
            DELETE FROM index_snapshots WHERE group_id = OLD.group_id; END""",
        """CREATE TRIGGER index_snapshots_episode_moved AFTER UPDATE OF group_id ON episodes BEGIN
            DELETE FROM index_snapshots WHERE group_id IN (OLD.group_id, NEW.group_id); END""",
    ]),
]
