"""The one place secrets are taken out of text that is shown: URLs in output, logs,
errors and dumps (``Settings`` uses it for every URL it holds)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

MASK = "***"
_SECRET_PARAMS = {"password", "pass", "pwd", "secret", "token", "key", "api_key", "apikey", "access_token",
                  "auth", "credentials"}


def redact_url(url: str) -> str:
    """``url`` with the password of its user info, and the values of secret-looking query
    parameters, replaced by ``***``. The user info ends at the *last* ``@`` of the authority
    (a password may contain ``@``). Text that is not a URL comes back unchanged."""
    if not isinstance(url, str) or "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return _fallback(url)
    out = url
    if "@" in parts.netloc:
        userinfo, _, host = parts.netloc.rpartition("@")
        user, sep, _password = userinfo.partition(":")
        out = out.replace(parts.netloc, f"{user}:{MASK}@{host}" if sep else parts.netloc, 1)
    if parts.query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        if any(k.lower() in _SECRET_PARAMS for k, _ in pairs):
            query = urlencode([(k, MASK if k.lower() in _SECRET_PARAMS else v) for k, v in pairs], safe="*")
            out = out.replace("?" + parts.query, "?" + query, 1)
    return out


def _fallback(url: str) -> str:
    """For text urlsplit refuses: keep the scheme and host, drop everything before the last '@'."""
    scheme, _, rest = url.partition("://")
    head, sep, tail = rest.rpartition("@")
    return f"{scheme}://{MASK}@{tail}" if sep else f"{scheme}://{rest}"
