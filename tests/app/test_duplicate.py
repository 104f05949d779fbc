"""Agents do not make near duplicates (app/duplicate.py, issue 41.2): `aide_remember`
updates the memory it nearly repeats (the newer text wins, tags and scopes joined, the
old text in `git aide log`), `remember` warns and merges with `--merge`, and a memory
that names something the new text lacks is never merged into."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import aide, aide_ok, commit, git, in_this_process, remember, shared_model

OLD = "Session cookies are httpOnly, secure and SameSite=Lax"
#: The same fact, told again in nearly the same words (and one more).
AGAIN = "Session cookies are always httpOnly, secure and SameSite=Lax"


def memory_files(repo: Path) -> list[Path]:
    return sorted((repo / ".aide" / "memories").rglob("*.json"))


def test_remember_warns_as_before_and_offers_merge(repo: Path) -> None:
    first = remember(repo, OLD)["uuid"]
    r = aide_ok(repo, "remember", AGAIN)
    assert f"a near duplicate of {first} (86% the same words)" in r.stderr
    assert "--merge updates it instead" in r.stderr
    assert len(memory_files(repo)) == 2


def test_merge_updates_the_near_duplicate_and_log_keeps_the_old_text(repo: Path) -> None:
    first = remember(repo, OLD, "--tag", "security", "--scope", "src/api/**")["uuid"]
    commit(repo, "cookies")
    r = aide_ok(repo, "remember", AGAIN, "--merge", "--tag", "cookies", "--scope",
                "src/api/v2/**")
    assert r.stdout.startswith(f"Merged into {first[:8]}, a near duplicate (86% the same words)")
    assert f"git aide log --uuid {first[:8]}" in r.stdout
    (path,) = memory_files(repo)
    shown = aide_ok(repo, "show", first[:8], "--json").json()["memory"]
    assert shown["what"] == AGAIN
    assert shown["tags"] == ["security", "cookies"]
    assert shown["scope"] == "{src/api/**,src/api/v2/**}"
    assert shown["updated_at"] > shown["created_at"]
    assert git(repo, "diff", "--cached", "--name-only").split() == [
        str(path.relative_to(repo))]
    commit(repo, "merged")
    log = aide_ok(repo, "log", "--uuid", first[:8], "--json").json()["commits"]
    assert [c["changes"][0]["memory"]["what"] for c in log] == [AGAIN, OLD]


def test_merge_as_json(repo: Path) -> None:
    first = remember(repo, OLD)["uuid"]
    doc = aide_ok(repo, "remember", AGAIN, "--merge", "--json").json()
    assert doc["uuid"] == first and doc["created"] is False
    assert doc["merged"] == {"into": first, "by": "words", "similarity": 0.857}


@pytest.mark.parametrize(("older", "newer"), [
    # The newer lacks a flag of the older: merged, SameSite=Lax would be lost.
    (OLD, "Session cookies are httpOnly and secure"),
    # Two values: perhaps two facts (a second reviewer above 500, a director above 1000).
    ("Refunds above 500 euros need a second reviewer on the billing team",
     "Refunds above 1000 euros need a second reviewer on the billing team"),
])
def test_a_memory_naming_what_the_new_text_lacks_is_not_merged(repo: Path, older: str,
                                                               newer: str) -> None:
    first = remember(repo, older)["uuid"]
    r = aide_ok(repo, "remember", newer, "--merge", "--json")
    assert r.json()["created"] and r.json()["uuid"] != first
    assert f"a near duplicate of {first}" in r.stderr and "not merged" in r.stderr
    assert len(memory_files(repo)) == 2
    assert aide_ok(repo, "show", first[:8], "--json").json()["memory"]["what"] == older


def test_other_layers_and_scopes_apart_are_not_merged(repo: Path) -> None:
    remember(repo, OLD, "--layer", "guidelines")
    remember(repo, OLD, "--scope", "src/web/**")
    doc = aide_ok(repo, "remember", AGAIN, "--merge", "--scope", "src/api/**", "--json").json()
    assert doc["created"]
    assert len(memory_files(repo)) == 3


def _call(mem: Any, tool: str, args: dict[str, Any]) -> tuple[str, Any]:
    from git_aide.agents.mcp import server

    text, doc, failed = server.call(mem, tool, args)
    assert not failed, text
    return text, doc


def test_an_agent_updates_the_memory_it_repeats(repo: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    from git_aide.agents.mcp import server

    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    _text, doc = _call(mem, "aide_remember", {"what": OLD, "layer": "technical"})
    first = doc["uuid"]
    text, doc = _call(mem, "aide_remember", {"what": AGAIN, "layer": "technical",
                                             "tags": ["cookies"]})
    assert text.startswith(f"Merged into `{first[:8]}`") and "merge=false keeps both" in text
    assert doc["merged"]["into"] == first and doc["created"] is False
    assert len(memory_files(repo)) == 1
    record = aide_ok(repo, "show", first[:8], "--json").json()["memory"]
    assert record["what"] == AGAIN and record["tags"] == ["cookies"]
    assert record["generated_by"] is not None  # marked as the agent's change
    # Asked to, it keeps both.
    _text, doc = _call(mem, "aide_remember", {"what": OLD + ", set by the gateway",
                                              "layer": "technical", "merge": False})
    assert doc["created"] and len(memory_files(repo)) == 2


def test_an_agent_is_told_why_a_near_duplicate_was_kept_apart(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    from git_aide.agents.mcp import server

    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    _call(mem, "aide_remember", {"what": OLD, "layer": "technical"})
    text, doc = _call(mem, "aide_remember", {"what": "Session cookies are httpOnly and secure",
                                             "layer": "technical"})
    assert doc["created"] and "merged" not in doc
    assert "names SameSite, Lax, which this text lacks" in text
    assert len(memory_files(repo)) == 2


def test_with_a_model_a_repeat_in_other_words_is_merged(repo: Path) -> None:
    model = shared_model()
    if model is None:
        pytest.skip("no shared model (all-MiniLM-L6-v2) beside the checkout")
    git(repo, "config", "aide.semantic.model", str(model))
    first = remember(repo, "Run the linter before every commit.")["uuid"]
    # 43% the same words: no near duplicate by words, but the same meaning (cosine 0.86).
    plain = aide_ok(repo, "remember", "Always run the linter before committing.", "--json")
    assert plain.json()["created"] and "near duplicate" not in plain.stderr
    aide_ok(repo, "forget", plain.json()["uuid"])
    doc = aide_ok(repo, "remember", "Always run the linter before committing.", "--merge",
                  "--json").json()
    assert doc["uuid"] == first and doc["merged"]["by"] == "meaning"
    assert doc["merged"]["similarity"] >= 0.85
    # Two facts of one topic are not one meaning.
    other = aide(repo, "remember", "Run the type checker in CI only.", "--merge", "--json")
    assert other.json()["created"]


def test_with_a_model_the_server_merges_by_meaning_with_the_model_it_keeps(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    model = shared_model()
    if model is None:
        pytest.skip("no shared model (all-MiniLM-L6-v2) beside the checkout")
    from git_aide.agents.mcp import server

    git(repo, "config", "aide.semantic.model", str(model))
    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    _text, doc = _call(mem, "aide_remember", {"what": "Run the linter before every commit.",
                                              "layer": "guidelines"})
    kept = mem.semantic(mem.repo(), mem.cache(mem.repo()))
    text, merged = _call(mem, "aide_remember", {
        "what": "Always run the linter before committing.", "layer": "guidelines"})
    assert merged["merged"]["into"] == doc["uuid"] and merged["merged"]["by"] == "meaning"
    assert "the same meaning, cosine 0.8" in text
    assert mem.semantic(mem.repo(), mem.cache(mem.repo())) is kept  # loaded once
    assert len(memory_files(repo)) == 1
