"""The warm server does not write a hand-edited memory into the full-text index before
it answers a search: it scores it as if written (cache/pending.py), and writes it once
no call came for a while. Its answer is still the command line's, score for score, over
more edits than the index keeps segments apart (then the write merges, and is made at
once)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import CACHE, McpServer, aide_ok, commit, write_memory

from git_aide.agents.warm import IDLE_SECONDS
from git_aide.cache import idtable
from git_aide.cache.index import MAX_SEGMENTS
from git_aide.core import memory

pytest.importorskip("mcp")

#: Long texts: Whoosh keeps a field's length in a byte that rounds lengths over 10, so a
#: merge of segments changes the totals the scores are made of.
WHY = ("because the migration of the billing tables runs in batches overnight and "
       "every batch must finish before the replicas catch up with the primary, "
       "otherwise reads go stale ")


def start(repo: Path) -> McpServer:
    srv = McpServer(repo)
    srv.initialize()
    srv.notify("notifications/initialized")
    return srv


def search(srv: McpServer, word: str) -> dict[str, Any]:
    res = srv.request("s", "tools/call", {"name": "aide_search",
                                          "arguments": {"keyword": word}})["result"]
    assert not res.get("isError"), res
    doc: dict[str, Any] = res["structuredContent"]
    return doc


def indexed(repo: Path) -> set[str]:
    table = idtable.read(str(repo / CACHE / "whoosh"))
    assert table is not None
    return table[1]


def ranked(doc: dict[str, Any], n: int | None = None) -> list[tuple[str, str, float]]:
    """(uuid, what, score) of the memories found, best first (the first n)."""
    return [(m["uuid"], m["what"], m["score"]) for m in doc["memories"]][:n]


def same(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """The server's answer (cut to its budget) is the command line's, score for score."""
    return bool(got["memories"]) and ranked(got) == ranked(want, len(got["memories"]))


def edit(path: Path, n: int, word: str = "") -> None:
    rec = json.loads(path.read_text())
    rec["what"] = f"Migration batches run overnight, edit {n}{word}"
    rec["why"] = WHY * (n % 4 + 1)
    path.write_text(json.dumps(rec, indent=2) + "\n")


def test_an_edit_is_scored_before_it_is_written_and_written_when_idle(repo: Path) -> None:
    records = [write_memory(repo, f"Migration note {i} on batches", why=WHY * (i % 3 + 1))
               for i in range(12)]
    commit(repo)
    aide_ok(repo, "index")
    paths = [repo / memory.relpath(r) for r in records]
    srv = start(repo)
    try:
        search(srv, "migration")
        for n in range(MAX_SEGMENTS + 4):
            target = paths[n % len(paths)]
            edit(target, n)
            got = search(srv, "migration")
            # The command line writes the edit into the index, then reads it.
            want = aide_ok(repo, "search", "migration", "--json").json()
            assert same(got, want), n
            assert f"Migration batches run overnight, edit {n}" in \
                [m["what"] for m in want["memories"]]
        # Now one the command line has not seen: pending in the server until it is idle.
        edit(paths[0], 99, " (quokka)")
        before = indexed(repo)
        got = search(srv, "quokka")
        assert [m["what"] for m in got["memories"]] == \
            ["Migration batches run overnight, edit 99 (quokka)"]
        assert indexed(repo) == before
        deadline = time.monotonic() + IDLE_SECONDS + 10
        while indexed(repo) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(indexed(repo) - before) == 1
        assert same(search(srv, "quokka"), aide_ok(repo, "search", "quokka", "--json").json())
    finally:
        srv.close()
