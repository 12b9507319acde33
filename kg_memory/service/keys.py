"""API keys: each confined to one group (or, made with ``any_group``, an admin key for all),
optionally read-only. The store keeps only a key's sha256, as job records of a reserved
ring group no route can name; a token is shown once, when it is made.

A token reads ``kgm_<id>_<secret>``: the id finds the record, the secret is compared in
constant time with the stored hash. Every check reads the record, so a revocation takes
effect on the next request in every process sharing the store.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..core.timeutil import utcnow
from ..errors import ConfigError, KgMemError, NotFoundError
from ..store.base import JobRecord, Store, WriteBatch

KEY_RING = "__kgmem_keys__"  # the reserved group the key records live in
RECORD_KIND = "api_key"
RESERVED_PREFIX = "__kgmem"  # no key is made for, and no route reaches, a group named like this
_TOKEN = re.compile(r"^kgm_([0-9a-f]{12})_([A-Za-z0-9_-]{20,100})$")


class AuthError(KgMemError):
    """No token, or a token that is unknown, malformed or revoked (HTTP 401)."""


class Forbidden(KgMemError):
    """A valid key used outside what it allows: another group, or a write with a read-only key (HTTP 403)."""


@dataclass(frozen=True)
class ApiKey:
    id: str
    name: str
    group: str | None  # None: any group (an admin key)
    read_only: bool
    created_at: datetime
    revoked_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        """What ``keys list`` shows: never the token or its hash."""
        return {"id": self.id, "name": self.name, "group": self.group, "any_group": self.group is None,
                "read_only": self.read_only, "created_at": _iso(self.created_at),
                "revoked_at": _iso(self.revoked_at) if self.revoked_at else None}

    def allows(self, group: str, write: bool) -> None:
        """Raise Forbidden unless this key may read (or, with ``write``, write) ``group``."""
        if self.group is not None and self.group != group:
            raise Forbidden(f"this key belongs to group {self.group!r}, not {group!r}")
        if write and self.read_only:
            raise Forbidden("this key is read-only; make a key without --read-only to write")


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def check_group_name(group: str) -> str:
    if not group or group.startswith(RESERVED_PREFIX):
        raise ConfigError(f"group {group!r}: names starting {RESERVED_PREFIX!r} are reserved for kgmem itself")
    return group


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _key_of(rec: JobRecord) -> ApiKey:
    b = rec.body
    revoked = datetime.fromisoformat(b["revoked_at"]) if b.get("revoked_at") else None
    return ApiKey(id=rec.id, name=b.get("name") or "", group=b.get("group"), read_only=bool(b.get("read_only")),
                  created_at=rec.at, revoked_at=revoked)


class KeyRing:
    """The keys of one store. ``ring`` names the reserved group they live in (tests use their own)."""

    def __init__(self, store: Store, ring: str = KEY_RING):
        self.store = store
        self.ring = ring

    def _records(self) -> dict[str, JobRecord]:
        return {r.id: r for r in self.store.job_records(self.ring, RECORD_KIND)}

    def create(self, group: str | None, *, read_only: bool = False, name: str | None = None) -> tuple[ApiKey, str]:
        """A new key and its token (the only time the token exists outside the caller's hands)."""
        if group is not None:
            check_group_name(group)
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        now = utcnow()
        body = {"name": name or "", "group": group, "read_only": read_only, "sha256": _digest(secret),
                "revoked_at": None}
        self.store.write(WriteBatch(records=[JobRecord(self.ring, RECORD_KIND, key_id, now, body)]))
        return _key_of(JobRecord(self.ring, RECORD_KIND, key_id, now, body)), f"kgm_{key_id}_{secret}"

    def list(self) -> list[ApiKey]:
        return sorted((_key_of(r) for r in self._records().values()), key=lambda k: (k.created_at, k.id))

    def active(self) -> bool:
        """Whether any key is unrevoked (the server binds beyond loopback only then)."""
        return any(k.revoked_at is None for k in self.list())

    def revoke(self, key_id: str) -> ApiKey:
        rec = self._records().get(key_id)
        if rec is None:
            raise NotFoundError(f"no key {key_id!r}; `kgmem keys list` shows the ids")
        if rec.body.get("revoked_at"):
            return _key_of(rec)
        body = dict(rec.body, revoked_at=utcnow().isoformat())
        self.store.write(WriteBatch(records=[JobRecord(self.ring, RECORD_KIND, rec.id, rec.at, body)]))
        return _key_of(JobRecord(self.ring, RECORD_KIND, rec.id, rec.at, body))

    def verify(self, token: str | None) -> ApiKey:
        """The key a bearer token names, or AuthError (the same message for every failure)."""
        m = _TOKEN.match(token or "")
        if m is None:
            raise AuthError("missing or malformed key: send `Authorization: Bearer <token>` (`kgmem keys create`)")
        rec = next((r for r in self.store.job_records(self.ring, RECORD_KIND) if r.id == m.group(1)), None)
        expected = rec.body.get("sha256", "") if rec is not None else "0" * 64
        if not hmac.compare_digest(expected, _digest(m.group(2))) or rec is None or rec.body.get("revoked_at"):
            raise AuthError("unknown or revoked key")
        return _key_of(rec)
