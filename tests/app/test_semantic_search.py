"""Search by meaning (README, Semantic search) in a real repository, with the tests'
tiny model (helpers.tiny_model): `search --mode`, `recall --query` with a model, and a
configured model that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide, aide_ok, broken_model, code_file, error_line, git, remember, uuids

AUTH = "Users authenticate with a password and get a session"
SHIP = "We ship releases on Friday"


@pytest.fixture
def store(repo: Path) -> dict[str, str]:
    """Four memories on four subjects, none of them using the word "signin"."""
    return {
        "auth": remember(repo, AUTH)["uuid"],
        "ship": remember(repo, SHIP)["uuid"],
        "db": remember(repo, "The database uses postgres")["uuid"],
        "tabs": remember(repo, "Use tabs for indentation", "--layer", "preferences")["uuid"],
    }


def with_model(repo: Path, folder: Path) -> None:
    git(repo, "config", "aide.semantic.model", str(folder))


def found(repo: Path, query: str, *extra: str) -> list[str]:
    return uuids(aide_ok(repo, "search", query, "--json", *extra))


def test_semantic_mode_finds_by_meaning_where_no_word_matches(
        repo: Path, store: dict[str, str], tiny: Path) -> None:
    with_model(repo, tiny)
    assert found(repo, "signin", "--mode", "semantic")[0] == store["auth"]
    assert found(repo, "how do we deploy", "--mode", "semantic")[0] == store["ship"]
    # Meaning is case-blind like words are (the tokenizer lower-cases).
    assert found(repo, "LOGIN", "--mode", "semantic")[0] == store["auth"]
    # --limit and --layer hold for meaning too.
    assert found(repo, "signin", "--mode", "semantic", "--limit", "1") == [store["auth"]]
    assert store["auth"] not in found(repo, "signin", "--mode", "semantic",
                                      "--layer", "preferences")


def test_keyword_mode_does_not_find_by_meaning(repo: Path, store: dict[str, str],
                                               tiny: Path) -> None:
    with_model(repo, tiny)
    assert found(repo, "signin", "--mode", "keyword") == []
    assert found(repo, "password", "--mode", "keyword") == [store["auth"]]


def test_auto_fuses_words_and_meaning(repo: Path, store: dict[str, str],
                                      tiny: Path) -> None:
    with_model(repo, tiny)
    # By meaning, where no word matches ...
    assert found(repo, "signin")[0] == store["auth"]
    # ... and a query in a memory's own words still has that memory first.
    assert found(repo, "postgres")[0] == store["db"]
    assert found(repo, "tabs")[0] == store["tabs"]
    assert found(repo, "friday")[0] == store["ship"]
    doc = aide_ok(repo, "search", "postgres", "--json").json()
    scores = [m["score"] for m in doc["memories"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


def test_auto_without_a_model_is_by_words(repo: Path, store: dict[str, str]) -> None:
    assert found(repo, "signin") == []
    assert found(repo, "password") == [store["auth"]]


def test_semantic_mode_without_a_model_is_an_error(repo: Path, store: dict[str, str]) -> None:
    line = error_line(aide(repo, "search", "signin", "--mode", "semantic"))
    assert "aide.semantic.model" in line
    r = aide(repo, "search", "signin", "--mode", "meaning")
    assert r.returncode != 0 and "Traceback" not in r.stderr


def test_recall_query_is_reordered_by_meaning(repo: Path, tiny: Path) -> None:
    code_file(repo, "src/app/main.py")
    auth = remember(repo, AUTH, "--scope", "src/app/**")["uuid"]
    ship = remember(repo, SHIP, "--scope", "src/app/**")["uuid"]
    # By words, "signin" matches neither: the newer memory comes first.
    before = uuids(aide_ok(repo, "recall", "src/app/main.py", "--query", "signin", "--json"))
    assert before == [ship, auth]
    with_model(repo, tiny)
    after = uuids(aide_ok(repo, "recall", "src/app/main.py", "--query", "signin", "--json"))
    assert after == [auth, ship]
    # A question about the other subject keeps the other order.
    assert uuids(aide_ok(repo, "recall", "src/app/main.py", "--query", "deploy",
                         "--json")) == [ship, auth]
    # Without --query the model is not asked: the order is recall's own.
    assert uuids(aide_ok(repo, "recall", "src/app/main.py", "--json")) == before


@pytest.mark.parametrize("damage", ["missing", "no tokenizer", "corrupt"])
def test_a_broken_model_leaves_search_by_words_and_is_said_once(
        repo: Path, store: dict[str, str], tiny: Path, tmp_path: Path, damage: str) -> None:
    folder = broken_model(tiny, tmp_path / "model", damage)
    with_model(repo, folder)
    first = aide_ok(repo, "search", "password", "--json")
    assert uuids(first) == [store["auth"]]
    notices = [x for x in first.stderr.splitlines() if x.strip()]
    assert len(notices) == 1 and "semantic search is off" in notices[0], first.stderr
    assert str(folder) in notices[0]
    second = aide_ok(repo, "search", "password", "--json")
    assert uuids(second) == [store["auth"]] and second.stderr == ""
    r = aide_ok(repo, "recall", "src/x.py", "--query", "password", "--json")
    assert store["auth"] in uuids(r) and r.stderr == ""
    # Asking for meaning outright is an error, in one line.
    assert str(folder) in error_line(aide(repo, "search", "signin", "--mode", "semantic"))
