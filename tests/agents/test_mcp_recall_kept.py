"""What a warm MCP server keeps between recalls (which path words each memory's blob
holds, each scope's verdict, the decoded groups of the view) never outlives what it is
about: after each hand edit that changes whether or how a memory applies to a file,
the next `aide_recall` of that file is the command line's answer for what is there now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import McpServer, aide_ok, edit_by_hand, git, remember

pytest.importorskip("mcp")

FILE = "src/billing/invoice_totals.py"


def start(repo: Path) -> McpServer:
    srv = McpServer(repo)
    srv.initialize()
    srv.notify("notifications/initialized")
    return srv


def recall(srv: McpServer, repo: Path, *more: str) -> dict[str, Any]:
    """The server's answer for FILE, checked equal to the command line's."""
    res = srv.request("aide_recall", "tools/call",
                      {"name": "aide_recall", "arguments": {"paths": [FILE, *more],
                                                          "detail": "full"}})
    res = res["result"]
    assert not res.get("isError"), res
    got: dict[str, Any] = res["structuredContent"]
    assert got == aide_ok(repo, "recall", FILE, *more, "--json").json()
    return got


def whats(doc: dict[str, Any]) -> list[str]:
    return [m["what"] for m in doc["memories"]]


def test_hand_edits_that_change_what_applies_to_a_file(repo: Path) -> None:
    own = remember(repo, "invoice totals round half to even", "--scope", "src/billing/**",
                   "--layer", "area_context")["path"]
    other = remember(repo, "the search index rebuilds nightly", "--scope", "src/search/**",
                     "--layer", "technical")["path"]
    wide = remember(repo, "deploys happen on Tuesdays", "--layer", "guidelines")["path"]
    for i in range(6):  # more notes of the folder, so that the edited ones must rank
        remember(repo, f"billing note {i} about currencies", "--scope", "src/billing/**",
                 "--layer", "technical")
        remember(repo, f"a project-wide note {i}", "--layer", "preferences")
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)
    try:
        first = recall(srv, repo)
        assert "invoice totals round half to even" in whats(first)
        assert "the search index rebuilds nightly" not in whats(first)

        # Its scope no longer reaches the file: it is gone from the next answer.
        edit_by_hand(repo, own, scope="src/search/**")
        assert "invoice totals round half to even" not in whats(recall(srv, repo))

        # Another one's scope now names the file: it comes first.
        edit_by_hand(repo, other, scope=FILE)
        assert whats(recall(srv, repo))[0] == "the search index rebuilds nightly"

        # A project-wide note that now names the file by its path is a mention of it,
        # and one whose words no longer hold the path's words falls back again.
        edit_by_hand(repo, wide, what=f"deploys wait for {FILE} to pass its checks")
        assert f"deploys wait for {FILE} to pass its checks" in whats(recall(srv, repo))
        edit_by_hand(repo, wide, what="deploys happen on Tuesdays")
        assert "deploys happen on Tuesdays" not in whats(recall(srv, repo))[:2]

        # Back to the bytes it was committed with (a blob seen before): as at first.
        edit_by_hand(repo, own, scope="src/billing/**")
        edit_by_hand(repo, other, scope="src/search/**")
        assert whats(recall(srv, repo)) == whats(first)

        # A recall of the folder too: the edits count there as well.
        edit_by_hand(repo, own, scope="src/billing/invoice_totals.py")
        assert whats(recall(srv, repo, "src/billing/"))[0] == \
            "invoice totals round half to even"
    finally:
        srv.close()


def test_a_memory_moved_into_the_folder_by_hand_ranks_by_its_new_words(repo: Path) -> None:
    """A new file (untracked) in the store, then its words changed: each time the next
    answer weighs the words the file holds now."""
    for i in range(4):
        remember(repo, f"currency note {i}", "--scope", "src/billing/**",
                 "--layer", "technical")
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)
    try:
        recall(srv, repo)
        # (in the notes' own scope: the path's words order a scope's memories, and never
        # lift one above a nearer scope)
        fresh = remember(repo, "rounding is banker's rounding", "--scope", "src/billing/**",
                         "--layer", "technical")["path"]
        assert "rounding is banker's rounding" in whats(recall(srv, repo))
        edit_by_hand(repo, fresh, what="invoice totals use banker's rounding")
        assert whats(recall(srv, repo))[0] == "invoice totals use banker's rounding"
        edit_by_hand(repo, fresh, scope="docs/**")
        assert "invoice totals use banker's rounding" not in whats(recall(srv, repo))
    finally:
        srv.close()


def test_supersession_follows_hand_edits(repo: Path) -> None:
    """Which memories a group's join found alike is kept by their blobs: an edit that
    makes a newer memory say the same thing differently sinks the older one at the next
    answer, and one that makes it another fact lifts the older one again; the same for
    a search."""
    older = "The invoice totals round to 2 decimal places per line"
    remember(repo, older, "--scope", FILE, "--layer", "technical")
    newer = remember(repo, "Refunds are issued within five days", "--scope",
                     "src/billing/**", "--layer", "technical")["path"]
    for i in range(3):
        remember(repo, f"billing note {i} about currencies", "--scope", "src/billing/**",
                 "--layer", "technical")
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)

    def searched() -> list[str]:
        res = srv.request("aide_search", "tools/call",
                          {"name": "aide_search", "arguments": {"keyword": "invoice",
                                                                "detail": "full"}})
        got: dict[str, Any] = res["result"]["structuredContent"]
        assert got == aide_ok(repo, "search", "invoice", "--json").json()
        return whats(got)

    try:
        assert whats(recall(srv, repo))[0] == older  # the file's own note first
        searched()
        again = "The invoice totals round to 4 decimal places per line"
        edit_by_hand(repo, newer, what=again)
        got = whats(recall(srv, repo))
        assert got.index(again) < got.index(older)  # it supersedes the file's note
        got = searched()
        assert got.index(again) < got.index(older)
        edit_by_hand(repo, newer, what="Refunds are issued within five days")
        assert whats(recall(srv, repo))[0] == older
        searched()
    finally:
        srv.close()
