"""Settings (core/settings.py): every aide.* key declared once, parsed once, a bad value an
error only where it is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, aide, aide_ok, git, remember

from git_aide.core.errors import AideError
from git_aide.core.settings import KEYS, MAX_HOOK_CHARS, Settings


def test_defaults_when_nothing_is_set() -> None:
    s = Settings()
    assert (s.recall_limit, s.search_limit, s.recall_min_scope_depth) == (20, 20, 1)
    assert (s.audit_duplicate_threshold, s.audit_churn_commits, s.audit_stale_days) == (
        0.6, 10, 90)
    assert (s.write_lock_timeout, s.index_lock_timeout) == (30.0, 10.0)
    assert (s.hooks_file_chars, s.hooks_session_chars, s.hooks_reflect,
            s.hooks_reflect_every) == (4000, 2000, False, 5)
    assert (s.mcp_max_chars, s.mcp_watch, s.mcp_tools) == (8000, True, "default")
    # text is the value as written, trimmed; an empty one is the default
    assert Settings({"aide.mcp.tools": " all "}).mcp_tools == "all"
    assert Settings({"aide.mcp.tools": "  "}).mcp_tools == "default"


def test_every_key_has_an_attribute_and_a_doc() -> None:
    s = Settings()
    assert len({k.name.lower() for k in KEYS}) == len(KEYS)
    for key in KEYS:
        assert getattr(s, key.attr) == key.default and key.doc.endswith(".")


def test_bounds_clamp_or_refuse_as_each_key_says() -> None:
    s = Settings({"aide.hooks.filechars": "99999", "aide.hooks.sessionchars": "-5",
                  "aide.mcp.maxchars": "10", "aide.hooks.reflectevery": "0",
                  "aide.writelocktimeout": "-3", "aide.indexlocktimeout": "soon",
                  "aide.mcp.watch": "perhaps", "aide.hooks.reflect": "Yes"})
    assert (s.hooks_file_chars, s.hooks_session_chars) == (MAX_HOOK_CHARS, 0)
    assert (s.mcp_max_chars, s.hooks_reflect_every) == (1000, 1)
    assert (s.write_lock_timeout, s.index_lock_timeout) == (0.0, 10.0)
    assert (s.mcp_watch, s.hooks_reflect) == (True, True)


def test_a_bad_value_is_an_error_naming_the_key_only_when_read() -> None:
    s = Settings({"aide.recall.limit": "many", "aide.audit.staledays": "-1",
                  "aide.audit.duplicatethreshold": "nan"})
    assert s.search_limit == 20  # the others are read as usual
    with pytest.raises(AideError, match=r"aide\.recall\.limit is 'many', not a whole number"):
        _ = s.recall_limit
    with pytest.raises(AideError, match=r"aide\.audit\.staleDays is '-1', not 0 or more"):
        _ = s.audit_stale_days
    with pytest.raises(AideError, match="not a number from 0 to 1"):
        _ = s.audit_duplicate_threshold
    with pytest.raises(AttributeError):
        _ = s.no_such_setting  # type: ignore[attr-defined]


def test_a_bad_setting_of_one_command_does_not_stop_another(repo: Path) -> None:
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    git(repo, "config", "aide.audit.churnCommits", "lots")
    assert aide_ok(repo, "recall", "src/auth/x.ts").stdout
    git(repo, "config", "aide.recall.limit", "lots")
    res = aide(repo, "recall", "src/auth/x.ts")
    assert res.returncode != 0 and "aide.recall.limit is 'lots'" in res.stderr


def test_the_man_page_names_every_key() -> None:
    man = (ROOT / "man" / "git-aide.1").read_text()
    section = man.split(".SH CONFIGURATION", 1)[1].split(".SH ", 1)[0]
    for key in KEYS:
        assert f".B {key.name}\n" in section or f"\\fB{key.name}\\fR" in section, key.name
