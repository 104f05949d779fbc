"""`git aide config`: every aide.* key with its value, default and origin, as git config
says them; a value checked against its key's type and bounds before it is set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import aide, aide_ok, git

from git_aide.core.settings import KEYS


@pytest.mark.quick
def test_lists_every_key_its_value_default_and_origin(repo: Path, tmp_path: Path) -> None:
    user = tmp_path / "user.gitconfig"
    env = {"GIT_CONFIG_GLOBAL": str(user)}
    git(repo, "config", "--file", str(user), "aide.search.limit", "7")
    git(repo, "config", "aide.recall.limit", "30")
    git(repo, "config", "aide.recal.limit", "3")  # a typo: git-aide reads no such key
    doc = json.loads(aide_ok(repo, "config", "--json", env=env).stdout)
    by = {e["key"]: e for e in doc["settings"]}
    assert list(by) == [k.name for k in KEYS]
    assert by["aide.recall.limit"] | {"origin": None} == {
        "key": "aide.recall.limit", "value": "30", "scope": "local", "origin": None,
        "default": 20, "type": "int", "bounds": None, "problem": None}
    assert by["aide.recall.limit"]["origin"] == "file:.git/config"
    assert (by["aide.search.limit"]["scope"], by["aide.search.limit"]["origin"]) == (
        "global", f"file:{user}")
    assert by["aide.mcp.watch"]["value"] is None and by["aide.mcp.watch"]["default"] is True
    assert [(e["key"], e["value"], e["closest"]) for e in doc["unknown"]] == [
        ("aide.recal.limit", "3", "aide.recall.limit")]
    text = aide_ok(repo, "config", env=env).stdout
    assert "aide.recall.limit" in text and "30  (local file:.git/config; default 20)" in text
    assert "unknown keys" in text and "did you mean aide.recall.limit?" in text
    # one key, by any case git accepts
    one = json.loads(aide_ok(repo, "config", "AIDE.SEARCH.LIMIT", "--json", env=env).stdout)
    assert (one["key"], one["value"], one["scope"]) == ("aide.search.limit", "7", "global")
    # a value out of bounds in the config is shown with what is wrong with it
    git(repo, "config", "aide.hooks.fileChars", "99999")
    assert "[bad: aide.hooks.fileChars is at most 9000" in aide_ok(repo, "config").stdout


def test_a_value_is_checked_before_it_is_set(repo: Path, tmp_path: Path) -> None:
    aide_ok(repo, "config", "aide.recall.limit", "40")
    assert git(repo, "config", "--local", "aide.recall.limit").strip() == "40"
    for key, value, said in (
            ("aide.recall.limit", "many", "aide.recall.limit takes a whole number, not 'many'"),
            ("aide.audit.staleDays", "-1", "aide.audit.staleDays is 0 or more, not '-1'"),
            ("aide.hooks.fileChars", "10000", "aide.hooks.fileChars is at most 9000"),
            ("aide.audit.duplicateThreshold", "1.5", "a number from 0 to 1"),
            ("aide.mcp.watch", "perhaps", "aide.mcp.watch takes true or false"),
            ("aide.recall.limt", "5", "unknown setting 'aide.recall.limt'; did you mean "
                                      "aide.recall.limit?")):
        res = aide(repo, "config", key, value)
        assert res.returncode == 2 and said in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
    assert git(repo, "config", "--local", "aide.recall.limit").strip() == "40"
    assert git(repo, "config", "aide.recall.limt", check=False) == ""
    # --global: the user's config
    user = tmp_path / "user.gitconfig"
    aide_ok(repo, "config", "--global", "aide.mcp.watch", "false",
            env={"GIT_CONFIG_GLOBAL": str(user)})
    assert "watch = false" in user.read_text()
    assert git(repo, "config", "--local", "aide.mcp.watch", check=False) == ""
