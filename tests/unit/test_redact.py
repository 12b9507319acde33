"""Secrets never leave through a shown URL or the settings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.core.redact import redact_url
from kg_memory.settings import Settings

# (not a piece of what the redacted URL shows anyway: "exampl" is in the host, not the password's leak)
_SHOWN = "neo4j+s://neo4j:***@db.example.org:7687/kg bolt https"
PASSWORDS = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="/?#[]"),
                    min_size=6, max_size=30).filter(lambda p: not p.startswith("neo4j") and p not in _SHOWN)


@settings(max_examples=300, deadline=None)
@given(pw=PASSWORDS, scheme=st.sampled_from(["neo4j", "bolt", "neo4j+s", "https", "http"]))
def test_no_password_survives_redaction(pw: str, scheme: str):
    url = f"{scheme}://neo4j:{pw}@db.example.org:7687/kg"
    shown = redact_url(url)
    assert pw not in shown and shown.endswith("@db.example.org:7687/kg") and shown.startswith(f"{scheme}://neo4j:")


def test_urls_without_secrets_are_unchanged():
    for url in ["sqlite:///a.db", "sqlite:////abs/x.db", "neo4j://host:7687", "bolt://u@h", "memory://",
                "http://127.0.0.1:8080/v1", "not a url", "http://[::1"]:
        assert redact_url(url) == url
    assert redact_url("https://h/v1?api_key=abc123&x=1") == "https://h/v1?api_key=***&x=1"
    assert "tok-999" not in redact_url("https://h/v1?token=tok-999")


def test_settings_never_show_secrets():
    s = Settings(store="neo4j://neo4j:p@ss@word!@host:7687", llm_api_key="sk-live-123456",
                 llm_base_url="https://user:hunter22@llm.example/v1", embed_base_url="https://e/v1?key=k-777")
    for shown in (str(s), repr(s), str(s.model_dump()), s.model_dump_json(), f"{s}", f"{s!r}"):
        for secret in ("p@ss@word!", "ss@word", "sk-live-123456", "hunter22", "k-777"):
            assert secret not in shown, (secret, shown)
    assert s.store == "neo4j://neo4j:p@ss@word!@host:7687"  # the code still reads the real value
    assert s.llm_api_key is not None and s.llm_api_key.get_secret_value() == "sk-live-123456"
