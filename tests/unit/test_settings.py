from pathlib import Path

import pytest

from kg_memory.errors import ConfigError
from kg_memory.settings import data_dir, default_store_url, load_settings
from kg_memory.store.url import parse_store_url, redact_url


def test_data_dir_override_and_xdg(tmp_path: Path):
    assert data_dir({"KGMEM_HOME": str(tmp_path)}) == tmp_path
    assert data_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "kgmem"
    assert default_store_url({"KGMEM_HOME": str(tmp_path)}) == f"sqlite:///{tmp_path}/kgmem.db"


def test_toml_then_env_then_overrides(tmp_path: Path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('group = "from-toml"\nrecall_k = 7\n[weights]\nhalf_life_days = 30\n')
    env = {"KGMEM_HOME": str(tmp_path), "KGMEM_GROUP": "from-env", "KGMEM_LLM_API_KEY": "sk-secret"}
    s = load_settings(env)
    assert (s.group, s.recall_k, s.weights.half_life_days) == ("from-env", 7, 30.0)
    assert load_settings(env, group="from-cli").group == "from-cli"
    assert "sk-secret" not in repr(s) and "sk-secret" not in str(s.model_dump())


def test_bad_toml_and_values(tmp_path: Path):
    (tmp_path / "config.toml").write_text("group = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({"KGMEM_HOME": str(tmp_path)})
    with pytest.raises(ConfigError, match="recall_k"):
        load_settings({"KGMEM_HOME": str(tmp_path / "none")}, recall_k="many")


def test_config_typos_are_rejected_by_name(tmp_path: Path):
    (tmp_path / "config.toml").write_text('groupp = "alice"\n')
    with pytest.raises(ConfigError, match="unknown setting 'groupp'"):
        load_settings({"KGMEM_HOME": str(tmp_path)})
    (tmp_path / "config.toml").write_text("[weights]\nhalf_life = 30\n")
    with pytest.raises(ConfigError, match="weights.half_life"):
        load_settings({"KGMEM_HOME": str(tmp_path)})
    (tmp_path / "config.toml").write_text("llm_window = 4\nllm_threads = 3\n")
    s = load_settings({"KGMEM_HOME": str(tmp_path), "KGMEM_LLM_WINDOW": "6"})
    assert (s.llm_window, s.llm_threads) == (6, 3)


def test_store_urls():
    u = parse_store_url("neo4j://bob:p%40ss@db.example:7688/memories")
    assert (u.user, u.password, u.host, u.port, u.database) == ("bob", "p@ss", "db.example", 7688, "memories")
    assert parse_store_url("sqlite:///rel/x.db").path == Path("rel/x.db")
    assert redact_url("neo4j://bob:secret@h:7687") == "neo4j://bob:***@h:7687"
    for bad in ("mysql://x", "sqlite://", "neo4j://u:p@h:7687/bad;db", "neo4j://"):
        with pytest.raises(ConfigError):
            parse_store_url(bad)
