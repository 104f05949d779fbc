"""Search by meaning with the real all-MiniLM-L6-v2 (int8), when the project's shared/
folder holds it (skipped otherwise: the tests never download a model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide_ok, git, remember, shared_model, uuids

REAL = shared_model()


@pytest.mark.skipif(REAL is None, reason="no shared/models/all-MiniLM-L6-v2-onnx-int8")
def test_a_paraphrase_finds_the_memory_it_means(repo: Path) -> None:
    tokens = remember(repo, "Access tokens are rotated on every refresh; the old refresh "
                            "token is revoked", "--why", "stolen tokens expire quickly")
    for what in ("We ship releases on Fridays after the QA sign-off",
                 "The database is Postgres 16, migrations run with alembic",
                 "Use tabs for indentation in the Go services",
                 "CI caches the node_modules folder between runs"):
        remember(repo, what)
    git(repo, "config", "aide.semantic.model", str(REAL))
    for mode in ("semantic", "auto"):
        hits = uuids(aide_ok(repo, "search", "how do we log users in", "--mode", mode,
                             "--json"))
        assert hits and hits[0] == tokens["uuid"], mode
    doc = aide_ok(repo, "semantic", "status", "--json").json()
    assert doc["dim"] == 384 and doc["with_vectors"] == doc["memories"] == 5


@pytest.mark.skipif(REAL is None, reason="no shared/models/all-MiniLM-L6-v2-onnx-int8")
def test_a_question_by_meaning_returns_what_answers_it_not_the_store(repo: Path) -> None:
    # Below a cosine floor (rank/fusion.py, measured on bench/quality/), a memory that
    # holds none of the question's words is no answer: not the whole store down to 0.0.
    whats = ("Access tokens are rotated on every refresh; the old refresh token is revoked",
             "We ship releases on Fridays after the QA sign-off",
             "The database is Postgres 16, migrations run with alembic",
             "Use tabs for indentation in the Go services",
             "CI caches the node_modules folder between runs",
             "The office plants are watered on Mondays",
             "Invoices are numbered per tenant, never globally",
             "The design system's colours live in tokens.css",
             "Our on-call rotation changes every Wednesday")
    for what in whats:
        remember(repo, what)
    git(repo, "config", "aide.semantic.model", str(REAL))
    for mode in ("semantic", "auto"):
        doc = aide_ok(repo, "search", "which database do we run", "--mode", mode,
                      "--json").json()
        found = [m["what"] for m in doc["memories"]]
        assert found and found[0].startswith("The database is Postgres"), (mode, found)
        assert len(found) < len(whats), (mode, found)
    got = aide_ok(repo, "recall", "--query", "which database do we run", "--json").json()
    assert 0 < len(got["memories"]) < len(whats)


@pytest.mark.skipif(REAL is None, reason="no shared/models/all-MiniLM-L6-v2-onnx-int8")
def test_a_session_start_leaves_out_a_rule_restated_by_meaning(repo: Path) -> None:
    # The loaded CLAUDE.md says it; the memory says it in words too few to match: with
    # the model, it is not sent again; a memory on another subject still is.
    from helpers import hook, write_memory

    (repo / "CLAUDE.md").write_text("# Rules\n\n- Use pnpm for installs; npm is not allowed.\n")
    write_memory(repo, "Install packages with pnpm, never with npm", "guidelines")
    write_memory(repo, "The frontend build uses Vite", "guidelines")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    start = {"session_id": "m1", "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "startup"}
    words_only = hook(repo, "session-start", start)[1]
    assert "never with npm" in words_only and "Vite" in words_only
    git(repo, "config", "aide.semantic.model", str(REAL))
    meant = hook(repo, "session-start", {**start, "session_id": "m2"})[1]
    assert "never with npm" not in meant and "Vite" in meant
    again = hook(repo, "session-start", {**start, "session_id": "m3"})[1]
    assert again == meant  # the rules' vectors kept: the same answer
