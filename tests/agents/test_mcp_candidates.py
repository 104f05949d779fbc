"""A warm server works out once, between its calls, which newer memories could supersede
each memory of its view (rank/candidates.py): supersession among any of its memories is
then read from that, and is what comparing them pair by pair (the command line's way)
finds."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import aide_ok, commit_for_a_view, git, in_this_process, served, write_memory

from git_aide.agents.mcp import server
from git_aide.rank import candidates, supersede, wordbits
from git_aide.rank.memo import RankMemo

pytest.importorskip("mcp")

#: A small vocabulary: many memories alike enough to be compared, some superseding.
WORDS = ("billing", "refunds", "queue", "worker", "retries", "stripe", "webhook", "invoice",
         "sandbox", "merchant", "limit", "cache", "token", "ledger", "export")


@pytest.fixture
def store(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """120 memories of a few words each, in two layers and four scopes (two of which do
    not overlap), each newer than the one before; committed, this process in it."""
    rng = random.Random(4)
    scopes = (None, "src/billing/**", "src/api/**", "docs/**")
    for i in range(120):
        what = " ".join(rng.sample(WORDS, rng.randint(3, 6)))
        write_memory(repo, f"{what} {rng.choice(WORDS)}",
                     layer=rng.choice(("technical", "guidelines")), scope=rng.choice(scopes))
        if i % 10 == 0:
            time.sleep(0.002)  # dates that differ, and dates that tie (uuid decides)
    commit_for_a_view(repo)
    git(repo, "config", "aide.mcp.maxChars", "10000000")  # whole answers, as the CLI's
    return in_this_process(repo, monkeypatch)


def warmed(mem: server.ServerState) -> list[Any]:
    served(mem, "aide_search", {"keyword": "billing"})
    assert mem.worked(30)
    view = mem.read()[2]
    mem.done()
    return list(view.entries)


def pairwise(entries: list[Any]) -> list[tuple[str, str]]:
    """Supersession as the command line finds it: pair by pair, nothing worked out."""
    return [(o.uuid, n.uuid) for o, n in supersede.superseded(entries, RankMemo())]


def test_what_was_worked_out_is_what_comparing_finds(store: Path) -> None:
    mem = server.ServerState()
    entries = warmed(mem)
    memo = mem.memo.rank
    assert all((e.blob, False) in memo.candidates for e in entries)
    assert sum(len(c[0]) for c in memo.candidates.values()) > 200
    rng = random.Random(9)
    found = 0
    for _ in range(60):
        some = rng.sample(entries, rng.randint(2, len(entries)))
        got = candidates.among(some, memo)
        assert got is not None
        assert [(o.uuid, n.uuid) for o, n in got] == pairwise(some)
        found += len(got)
    assert found > 50  # memories were superseded, in many lists
    # A memory it does not know (a hand edit's new blob): it is compared pair by pair.
    del memo.candidates[(entries[0].blob, False)]
    assert candidates.among(entries, memo) is None
    assert supersede.superseded(entries, memo) is not None


def test_answers_equal_the_command_lines(store: Path) -> None:
    mem = server.ServerState()
    warmed(mem)
    for word in WORDS:
        assert served(mem, "aide_search", {"keyword": word, "limit": 30}) \
            == aide_ok(store, "search", word, "--limit", "30", "--json").json(), word
    assert served(mem, "aide_recall", {"paths": ["src/billing/a.py"]}) \
        == aide_ok(store, "recall", "src/billing/a.py", "--json").json()


def test_a_view_with_too_many_pairs_is_compared_per_query(store: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(candidates, "MOST", 50)
    monkeypatch.setattr(candidates, "SAMPLE", 40)
    mem = server.ServerState()
    entries = warmed(mem)
    memo = mem.memo.rank
    assert not memo.candidates and memo.too_many == len(entries)
    assert candidates.among(entries, memo) is None
    # Each query's best are compared pair by pair, from their words as bits, worked
    # out for every memory of the view.
    assert wordbits.of(entries, lambda e: pytest.fail("not worked out ahead"), memo) is not None
    assert served(mem, "aide_search", {"keyword": "refunds", "limit": 30}) \
        == aide_ok(store, "search", "refunds", "--limit", "30", "--json").json()


def test_memories_of_two_views_apart_are_compared(store: Path) -> None:
    """A merge brings together memories that two views each joined on their own: what
    was worked out for neither view answers for them together."""
    entries = warmed(server.ServerState())
    rng = random.Random(3)
    rng.shuffle(entries)
    a, b, c = entries[:40], entries[40:80], entries[80:]
    memo = RankMemo()
    for view in (a + c, b + c):
        for _ in supersede.relate(view, memo):
            pass
    assert candidates.among(b + c, memo) is not None
    assert candidates.among(a + b, memo) is None  # a's and b's memories were never compared
    merged = a + b + c
    for _ in supersede.relate(merged, memo):
        pass
    got = candidates.among(a + b, memo)
    assert got is not None and [(o.uuid, n.uuid) for o, n in got] == pairwise(a + b)
    assert got  # the two views' memories do supersede one another


def test_a_newer_memory_that_says_less_hides_nothing_in_every_engine(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41.3 as the server sees it: worked out ahead (related), read from columns,
    or compared pair by pair, an older memory that names something the newer lacks
    (SameSite=Lax, a port) keeps its place, and a changed value still supersedes."""
    pairs = [("Session cookies are httpOnly, secure and SameSite=Lax",
              "Session cookies use httpOnly and secure flags always", False),
             ("The session cache listens on port 6379 with cookies signed",
              "The session cache listens on a port with cookies signed", False),
             ("Session cookies expire after 30 minutes of inactivity",
              "Session cookies expire after 45 minutes of inactivity", True)]
    for older, _newer, _replaces in pairs:
        write_memory(repo, older)
    time.sleep(0.01)
    for _older, newer, _replaces in pairs:
        write_memory(repo, newer)
    for i in range(30):
        write_memory(repo, f"session worker {i} logs cookies it rejects", scope=f"src/w{i}/**")
    commit_for_a_view(repo)
    git(repo, "config", "aide.mcp.maxChars", "10000000")
    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    entries = warmed(mem)
    got = candidates.among(entries, mem.memo.rank)
    assert got is not None
    found = {(o.read_what(), n.read_what()) for o, n in got}
    assert found == {(o, n) for o, n, replaces in pairs if replaces}
    assert sorted((o.uuid, n.uuid) for o, n in got) == sorted(pairwise(entries))
    for words in ("session cookies", "cookies", "port", "minutes"):
        assert served(mem, "aide_search", {"keyword": words, "limit": 40}) \
            == aide_ok(repo, "search", words, "--limit", "40", "--json").json(), words
