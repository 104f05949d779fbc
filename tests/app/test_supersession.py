"""Supersession as a user sees it: a newer memory that says the same thing differently
sinks the older one; a newer one that only shares a topic does not (issue 22, fault 2)."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import aide_ok, remember, uuids


def _two(repo: Path, older: str, newer: str) -> tuple[str, str]:
    """The older memory scoped to the file itself (more specific), the newer to its
    folder: without supersession the older comes first."""
    (repo / "src").mkdir()
    (repo / "src" / "db.py").write_text("")
    a = remember(repo, older, "--scope", "src/db.py")["uuid"]
    time.sleep(0.01)  # a later updated_at
    b = remember(repo, newer, "--scope", "src/**")["uuid"]
    return a, b


def test_a_changed_value_supersedes_the_older_memory(repo: Path) -> None:
    old, new = _two(repo, "The database pool size is 10 connections per worker",
                    "The database pool size is 25 connections per worker")
    order = uuids(aide_ok(repo, "recall", "src/db.py", "--json"))
    assert order.index(new) < order.index(old)


def test_two_facts_about_one_topic_are_both_kept_in_place(repo: Path) -> None:
    old, new = _two(repo, "Tests run in parallel", "Tests run against a real Postgres")
    order = uuids(aide_ok(repo, "recall", "src/db.py", "--json"))
    # Two true facts: the file's own note keeps its place above the folder's.
    assert order.index(old) < order.index(new)
