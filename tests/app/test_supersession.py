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


#: A newer memory that says less than the older (issue 41.3): the older's SameSite=Lax
#: is nowhere in the newer, which names nothing exact in its place.
COOKIES = ("Session cookies are httpOnly, secure and SameSite=Lax",
           "Session cookies use httpOnly and secure flags always")
#: Memories that also match "session cookies", and supersede nothing.
OTHERS = ("Login sessions expire after 30 minutes without a request",
          "Cookies set by the CDN are stripped at the edge")


def test_a_newer_memory_that_says_less_does_not_hide_the_older(repo: Path) -> None:
    older = remember(repo, COOKIES[0])["uuid"]
    time.sleep(0.01)
    newer = remember(repo, COOKIES[1])["uuid"]
    for what in OTHERS:
        remember(repo, what)
    found = aide_ok(repo, "search", "session cookies", "--limit", "3", "--json").json()
    got = [m["uuid"] for m in found["memories"]]
    assert older in got and newer in got
    assert any("SameSite=Lax" in m["what"] for m in found["memories"])
    assert not any(m.get("superseded_by") for m in found["memories"])


def test_a_newer_value_still_supersedes_what_it_replaces(repo: Path) -> None:
    # The older's value (2 MiB) is not in the newer, but the newer names its own (4 MiB).
    older = remember(repo, "Uploaded files are capped at 2 MiB by FILE_UPLOAD_MAX_BYTES")["uuid"]
    time.sleep(0.01)
    newer = remember(repo, "Uploaded files are capped at 4 MiB by FILE_UPLOAD_MAX_BYTES")["uuid"]
    for what in ("Uploaded images are resized to 1440 pixels wide",
                 "Files dropped on the canvas are uploaded once"):
        remember(repo, what)
    got = uuids(aide_ok(repo, "search", "uploaded files capped", "--json"))
    assert got.index(newer) < got.index(older)
    assert got[-1] == older
