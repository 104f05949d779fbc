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

from git_aide.cache import idtable
from git_aide.cache.index import MAX_SEGMENTS
from git_aide.core import memory
from git_aide.warm.state import IDLE_SECONDS

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
                                          "arguments": {"keyword": word,
                                                        "detail": "full"}})["result"]
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
    """Rewrite a memory by hand: `what` names the edit, `why` is longer or shorter."""
    rec = json.loads(path.read_text())
    rec["what"] = f"Migration batches run overnight, edit {n}{word}"
    rec["why"] = WHY * (n % 4 + 1)
    path.write_text(json.dumps(rec, indent=2) + "\n")


def indexed_notes(repo: Path, n: int) -> list[Path]:
    """Commit and index `n` memories on migration batches (their `why` of three lengths);
    their files."""
    records = [write_memory(repo, f"Migration note {i} on batches", why=WHY * (i % 3 + 1))
               for i in range(n)]
    commit(repo)
    aide_ok(repo, "index")
    return [repo / memory.relpath(r) for r in records]


def test_an_edit_is_scored_before_it_is_written_and_written_when_idle(repo: Path) -> None:
    paths = indexed_notes(repo, 12)
    srv = start(repo)
    try:
        search(srv, "migration")
        for n in range(MAX_SEGMENTS + 4):
            target = paths[n % len(paths)]
            edit(target, n)
            got = search(srv, "migration")
            # The command line, run alone (not through the server's socket), writes
            # the edit into the index, then reads it.
            want = aide_ok(repo, "search", "migration", "--json",
                           env={"GIT_AIDE_SERVER": "0"}).json()
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


def test_what_is_pending_is_written_when_the_client_leaves(repo: Path) -> None:
    records = [write_memory(repo, f"Migration note {i} on batches") for i in range(4)]
    commit(repo)
    aide_ok(repo, "index")
    srv = start(repo)
    search(srv, "migration")
    edit(repo / memory.relpath(records[0]), 5, " (quokka)")
    before = indexed(repo)
    assert search(srv, "quokka")["memories"]
    code, err = srv.close()  # at once: before the server was idle for IDLE_SECONDS
    assert code == 0, err
    assert len(indexed(repo) - before) == 1


# -- in this process (agents/mcp/server.call on a ServerState): the edge cases of one call -------


class Warm:
    """The warm server's calls, made in this process."""

    def __init__(self) -> None:
        from git_aide.agents.mcp import server
        from git_aide.warm.state import ServerState

        self.server, self.mem = server, ServerState()

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The call's document, in full (scores too)."""
        text, doc, failed = self.server.call(self.mem, name, {**args, "detail": "full"})
        assert not failed, text
        assert doc is not None
        return doc


def scores(doc: dict[str, Any]) -> list[tuple[str, float]]:
    return [(m["what"], m["score"]) for m in doc["memories"]]


@pytest.fixture
def here(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository, with this process in it and the tests' environment."""
    from helpers import in_this_process

    return in_this_process(repo, monkeypatch)


def test_a_recall_with_a_question_scores_every_edit_its_additions_deferred(here: Path) -> None:
    # Such a recall adds to the index up to three times in one call: what its first
    # addition deferred counts in every later search, as the command line's first
    # addition writes it before the later ones look.
    recs = [write_memory(here, f"Migration note {i} on batches", why=WHY[:60] * (i % 3 + 1))
            for i in range(8)]
    recs += [write_memory(here, f"Migration rule {i} for docs", why=WHY[:60] * (i % 2 + 1),
                          scope=f"docs/d{i}.md") for i in range(8)]
    (here / "src").mkdir()
    (here / "src/a.py").write_text("x\n")
    commit(here)
    aide_ok(here, "index")
    paths = [here / memory.relpath(r) for r in recs]
    warm = Warm()
    warm.call("aide_recall", {"paths": ["src/a.py"], "query": "migration"})
    edit(paths[1], 1)  # project-wide
    rec = json.loads(paths[9].read_text())
    rec["what"], rec["why"] = "Rule one changed entirely", "nothing"
    paths[9].write_text(json.dumps(rec, indent=2) + "\n")  # scoped elsewhere
    got = warm.call("aide_recall", {"paths": ["src/a.py"], "query": "migration overnight"})
    want = aide_ok(here, "recall", "src/a.py", "--query", "migration overnight",
                   "--json").json()
    assert got["memories"] and scores(got) == scores(want)[:len(got["memories"])]


def test_a_rebuild_during_a_call_counts_a_deferred_edit_once(here: Path) -> None:
    recs = [write_memory(here, f"Migration note {i} on batches", why=WHY[:60] * (i % 3 + 1))
            for i in range(12)]
    commit(here)
    aide_ok(here, "index")
    paths = [here / memory.relpath(r) for r in recs]
    warm = Warm()
    warm.call("aide_search", {"keyword": "migration"})
    edit(paths[0], 7, " (quokka)")
    warm.call("aide_search", {"keyword": "migration"})  # deferred
    for table in (here / CACHE / "whoosh").glob("*.qt"):  # damaged in place
        size = table.stat().st_size
        with open(table, "r+b") as f:
            f.seek(size - 40)
            f.write(b"\xff" * 40)
    got = warm.call("aide_search", {"keyword": "batches"})  # rebuilt during this call
    want = aide_ok(here, "search", "batches", "--json").json()
    assert got["memories"] and scores(got) == scores(want)[:len(got["memories"])]


def test_an_idle_write_never_holds_the_calls_while_another_process_writes(
        here: Path) -> None:
    import subprocess
    import sys

    recs = [write_memory(here, f"Migration note {i}") for i in range(6)]
    commit(here)
    aide_ok(here, "index")
    warm = Warm()
    warm.call("aide_search", {"keyword": "migration"})
    edit(here / memory.relpath(recs[0]), 3)
    warm.call("aide_search", {"keyword": "migration"})  # pending: the idle write is due
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); fcntl.flock(fd, fcntl.LOCK_EX); "
         "print(1, flush=True); time.sleep(4)", str(here / CACHE / "whoosh.lock")],
        stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None
        holder.stdout.readline()
        before = indexed(here)
        time.sleep(IDLE_SECONDS + 0.5)  # the idle write found the index busy
        t = time.monotonic()
        warm.call("aide_recall", {"paths": ["src/x.py"]})
        assert time.monotonic() - t < 1.0
        assert indexed(here) == before
    finally:
        holder.wait()
    deadline = time.monotonic() + IDLE_SECONDS + 10
    while indexed(here) == before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(indexed(here) - before) == 1  # written once the index was free


def test_edits_back_and_forth_a_word_removed_and_a_new_file(repo: Path) -> None:
    """A warm server keeps the terms of the texts it analysed (a hand edit's other fields
    are most often unchanged): a memory edited back to a text it had, one edited to
    lose the word searched, and a memory file new in the working tree are each seen at
    the next call, and the answers are the command line's, score for score."""
    paths = indexed_notes(repo, 8)
    srv = start(repo)

    def answered_alike(word: str) -> list[str]:
        got = search(srv, word)
        want = aide_ok(repo, "search", word, "--json", env={"GIT_AIDE_SERVER": "0"}).json()
        assert same(got, want)
        return [m["what"] for m in got["memories"]]

    try:
        answered_alike("migration")
        for n in (1, 2, 1, 2, 1):  # back and forth: the same texts analysed again
            edit(paths[0], n)
            assert f"Migration batches run overnight, edit {n}" in answered_alike("migration")
        # The word taken out of a memory: it is no longer found.
        rec = json.loads(paths[1].read_text())
        rec["what"], rec["why"] = "Quokkas sleep through the day", "they are nocturnal"
        paths[1].write_text(json.dumps(rec, indent=2) + "\n")
        found = answered_alike("migration")
        assert "Migration note 1 on batches" not in found
        assert answered_alike("quokkas") == ["Quokkas sleep through the day"]
        # A memory file new in the working tree, not staged: found at the next call.
        write_memory(repo, "Migration of the quokka enclosure waits for spring")
        assert "Migration of the quokka enclosure waits for spring" in \
            answered_alike("migration")
        assert answered_alike("quokka")[0] in ("Quokkas sleep through the day",
                                               "Migration of the quokka enclosure waits "
                                               "for spring")
        assert len(answered_alike("quokka")) == 2
    finally:
        srv.close()
