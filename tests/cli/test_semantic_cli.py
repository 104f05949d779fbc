"""`git aide semantic status` and the words the CLI says of semantic search."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide, aide_ok, git, remember


@pytest.mark.quick
def test_status_without_a_model(repo: Path, user_env: dict[str, str]) -> None:
    remember(repo, "Users authenticate with a password and get a session")
    doc = aide_ok(repo, "semantic", "status", "--json", env=user_env).json()
    assert doc["extra_installed"] is True
    assert doc["model"] is None and doc["loads"] is False
    assert "semantic fetch" in doc["error"]
    text = aide_ok(repo, "semantic", "status", env=user_env).stdout
    assert "model: (none: git aide semantic fetch)" in text and "loads: no" in text


def test_status_with_a_model(repo: Path, tiny: Path, user_env: dict[str, str]) -> None:
    remember(repo, "Users authenticate with a password and get a session")
    remember(repo, "We ship releases on Friday")
    git(repo, "config", "aide.semantic.model", str(tiny))
    doc = aide_ok(repo, "semantic", "status", "--json", env=user_env).json()
    assert doc["loads"] is True and doc["error"] is None
    assert doc["folder"] == str(tiny) and doc["memories"] == 2
    assert doc["with_vectors"] == 0 and len(doc["key"]) == 24
    aide_ok(repo, "index", env=user_env)
    text = aide_ok(repo, "semantic", "status", env=user_env).stdout
    assert f"model: {tiny}" in text and "loads: yes" in text
    assert "memories with vectors: 2 of 2" in text


def test_status_of_a_model_that_does_not_load_says_why_once(
        repo: Path, tmp_path: Path, user_env: dict[str, str]) -> None:
    git(repo, "config", "aide.semantic.model", str(tmp_path / "nowhere"))
    r = aide_ok(repo, "semantic", "status", env=user_env)
    assert "loads: no (no model at" in r.stdout and r.stderr == ""


def test_a_known_name_not_fetched_yet_is_said_by_status_and_search_goes_on(
        repo: Path, user_env: dict[str, str]) -> None:
    """aide.semantic.model = all-MiniLM-L6-v2 before `semantic fetch` ran (offline,
    say): search answers by words and says once how to get the model."""
    remember(repo, "Users authenticate with a password and get a session")
    git(repo, "config", "--global", "aide.semantic.model", "all-MiniLM-L6-v2", env=user_env)
    doc = aide_ok(repo, "semantic", "status", "--json", env=user_env).json()
    assert doc["folder"].startswith(user_env["XDG_CACHE_HOME"])
    assert "all-MiniLM-L6-v2@" in doc["folder"] and not doc["loads"]
    r = aide_ok(repo, "search", "password", env=user_env)
    assert "authenticate" in r.stdout and "semantic fetch" in r.stderr
    assert aide_ok(repo, "search", "password", env=user_env).stderr == ""


def test_search_mode_is_a_choice_and_semantic_is_in_the_help(repo: Path) -> None:
    r = aide(repo, "search", "x", "--mode", "fuzzy")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "auto" in r.stderr and "semantic" in r.stderr
    assert "--mode" in aide_ok(repo, "search", "--help").stdout
    helped = aide_ok(repo, "semantic", "fetch", "--help").stdout
    assert "--mirror" in helped and "--no-config" in helped
