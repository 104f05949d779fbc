"""A warm server ranks a search's best from its view's columns (app/columns.py,
app/column_search.py): the same matches, in the same order, with the same scores as the
way that looks up each entry and orders Hits (search.relevance_in, then search.order),
after any edit of the working tree; and when the columns cannot tell (a blob at two
places) the slow way answers."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import aide_ok, commit_for_a_view, git, in_this_process, served, write_memory

from git_aide.app import column_edits, column_search, columns
from git_aide.app import search as sr
from git_aide.core import memory
from git_aide.rank import candidates
from git_aide.rank.duplicates import jaccard, word_set
from git_aide.rank.memo import RankMemo

pytest.importorskip("mcp")

from git_aide.agents.mcp import server  # noqa: E402

#: Dates written into the memories: many share one, so that the recency lift counts
#: distinct dates, and ties of score are broken by uuid, then path.
DATES = ["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"]
QUERIES = ["refunds", "ledger", "queue worker", "invoice", "adyen payouts", "sandbox", "kestrel",
           "nothing-matches-this"]


def _dated(repo: Path, what: str, date: str, **fields: Any) -> Path:
    record = write_memory(repo, what, **fields)
    record["updated_at"] = record["created_at"] = date
    path = repo / memory.relpath(record)
    path.write_bytes(memory.canonical(record))
    return path


@pytest.fixture
def store(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Memories whose scores tie (the same text, other uuids, one date or another),
    one that supersedes another, and others, committed; this process in the repo."""
    for i in range(12):
        # The same words in each: equal scores, ordered by date's lift, uuid, then path.
        _dated(repo, "refunds go through the ledger", DATES[i % 3],
               scope=f"src/m{i}/**")
    for i in range(8):
        _dated(repo, f"the queue worker retries refunds {i} times", DATES[i % 2],
               layer="guidelines")
    _dated(repo, "Seller payouts run through Adyen version two", DATES[0])
    _dated(repo, "Seller payouts run through Adyen version three now", DATES[2])
    for i in range(4):
        _dated(repo, f"payouts report {i} is mailed on Mondays", DATES[1])
    # The newer supersedes the older (the same subject, most words shared).
    _dated(repo, "kestrel falcon osprey harrier merlin hobby", DATES[0])
    _dated(repo, "kestrel falcon osprey harrier merlin buzzard", DATES[1])
    for i in range(30):
        _dated(repo, f"invoice {i} keeps its number after a partial refund", DATES[i % 3],
               layer="area_context", scope="src/billing/**")
    # Every answer whole, to compare with the command line's.
    git(repo, "config", "aide.mcp.maxChars", "1000000")
    commit_for_a_view(repo)
    return in_this_process(repo, monkeypatch)


def warm(mem: server.ServerState) -> None:
    served(mem, "aide_search", {"keyword": "warm"})  # asks for the view to be warmed
    assert mem.worked(30)
    mem.done()


def same_as_the_command_line(mem: server.ServerState, repo: Path) -> None:
    for query in QUERIES:
        assert served(mem, "aide_search", {"keyword": query, "limit": 50}) \
            == aide_ok(repo, "search", query, "--limit", "50", "--json").json()


def both_ways(mem: server.ServerState, query: str, limit: int = 50
              ) -> tuple[list[tuple[str, float]] | None, list[tuple[str, float]] | None]:
    """(path, score) of a search's hits from the columns, and the slow way's, asked as
    a call (the server's idle work, on a thread of its own, waits for it)."""
    with mem.lock:
        _repo, cache, snap = mem.read()
        ft = mem.index(cache)
        sr.robust(ft, lambda: sr._add_missing(ft, snap, sr.Among(snap.blob_ids()), None))
        fast = column_search.search_columns(ft, snap, query, limit, mem.memo)
        found = sr.relevance_in(ft, snap, query, limit)
        slow = None if found is None or not found[0] else \
            sr._ranked(sorted(found[1], key=lambda e: e.path), found[0], limit, RankMemo())
        mem.done()
    return ([(h.entry.path, h.score) for h in fast] if fast is not None else None,
            [(h.entry.path, h.score) for h in slow] if slow is not None else None)


def test_the_columns_rank_as_the_entries_do(store: Path) -> None:
    mem = server.ServerState()
    warm(mem)
    for query in QUERIES:
        for limit in (1, 5, 50):
            fast, slow = both_ways(mem, query, limit)
            if query in ("sandbox", "nothing-matches-this"):  # no word of the store
                assert fast is None and slow is None  # fragments are the slow way's
                continue
            assert fast is not None, query  # the columns answered
            assert fast == slow, (query, limit)
    # Ties were broken: the twelve alike memories by date, then uuid and path.
    fast, _slow = both_ways(mem, "ledger")
    assert fast is not None and len({score for _p, score in fast}) < len(fast)
    # The superseded memory follows every current match.
    paths = [p for p, _s in both_ways(mem, "payouts")[0] or []]
    older = next(p for p in paths if "version two" in (store / p).read_text())
    assert paths.index(older) == len(paths) - 1
    same_as_the_command_line(mem, store)


def warm_ledger(store: Path) -> tuple[server.ServerState, list[Path]]:
    """A warm server, and the files of the memories that name the ledger."""
    mem = server.ServerState()
    warm(mem)
    files = sorted((store / ".aide" / "memories").rglob("*.json"))
    return mem, [p for p in files if "ledger" in p.read_text()]


def test_after_edits_the_columns_still_rank_as_the_entries_do(store: Path) -> None:
    mem, ledger = warm_ledger(store)
    # Edited (a date of its own, between the view's: an odd place in the column), removed,
    # and new.
    data = json.loads(ledger[0].read_text())
    data.update(what="refunds go through the ledger and the sandbox",
                updated_at="2026-01-15T00:00:00.000Z")
    ledger[0].write_text(json.dumps(data))
    ledger[1].unlink()
    _dated(store, "refunds go through the ledger", "2026-04-01T00:00:00.000Z")
    _dated(store, "refunds go through the ledger", DATES[1])
    # Newer, and closer to the oldest bird than the one that supersedes it (the same
    # words), but of another subject: the oldest is then superseded by neither.
    _dated(store, "hobby merlin harrier osprey falcon kestrel", DATES[2])
    time.sleep(0.01)
    for query in QUERIES:
        fast, slow = both_ways(mem, query)
        if slow is not None:
            assert fast is not None and fast == slow, query
    paths = [p for p, _s in both_ways(mem, "ledger")[0] or []]
    assert str(ledger[0].relative_to(store)) in paths
    assert str(ledger[1].relative_to(store)) not in paths
    same_as_the_command_line(mem, store)


def test_a_text_a_memory_had_before_is_found_again(store: Path) -> None:
    # The index keeps the documents of every text a memory had: put back, a file's
    # text is a document of no place in the view (Columns.strays).
    mem, ledger = warm_ledger(store)
    original = ledger[0].read_bytes()
    data = json.loads(original)
    data.update(what="refunds go through the ledger twice", updated_at=DATES[2])
    edited = json.dumps(data).encode()
    ledger[0].write_bytes(edited)
    assert both_ways(mem, "ledger")[0] == both_ways(mem, "ledger")[1]
    with mem.lock:
        assert mem.pending() and mem._index is not None
        mem._index.write_pending()  # the edited text is a document on disk now
    broken = b'{"what": "not a memory any more"'
    for text in (broken, edited, original, edited):
        ledger[0].write_bytes(text)
        fast, slow = both_ways(mem, "ledger")
        assert fast is not None and fast == slow, text[:30]
        paths = [p for p, _s in fast]
        assert (str(ledger[0].relative_to(store)) in paths) == (text != broken), paths
    ledger[1].unlink()  # a path replaced by none
    fast, slow = both_ways(mem, "ledger")
    assert fast is not None and fast == slow
    assert str(ledger[1].relative_to(store)) not in [p for p, _s in fast]
    same_as_the_command_line(mem, store)


def test_a_blob_at_two_places_is_left_to_the_slow_way(store: Path) -> None:
    # A preference that does not say whether it is shared, kept both shared and personal
    # (the personal file, which git ignores, laid over the view): one blob at two places,
    # which only the slow way tells apart (by path).
    record = write_memory(store, "Adyen payouts are checked by hand", layer="preferences")
    written = store / memory.relpath(record)
    data = json.loads(written.read_text())
    del data["shared"]
    written.unlink()
    for folder in (store / memory.MEMORIES_DIR / "preferences" / "shared",
                   store / memory.PERSONAL_DIR):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / written.name).write_text(json.dumps(data))
    commit_for_a_view(store)
    mem = server.ServerState()
    warm(mem)
    assert both_ways(mem, "payouts")[0] is None
    assert both_ways(mem, "ledger")[0] is None  # whatever the query: not told apart
    same_as_the_command_line(mem, store)


#: A small vocabulary: many memories alike enough to be compared, some superseding.
WORDS = ("billing", "refunds", "queue", "worker", "retries", "stripe", "webhook", "invoice",
         "sandbox", "merchant", "limit", "cache", "token", "ledger", "export")


def test_supersession_read_from_the_columns_is_related_among(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Which memory of a search's best a newer one supersedes is read from arrays of
    # places (Columns.among): what candidates.among reads from the candidates by blob.
    rng = random.Random(5)
    for i in range(120):
        what = " ".join(rng.sample(WORDS, rng.randint(3, 6)))
        write_memory(repo, f"{what} {rng.choice(WORDS)}",
                     layer=rng.choice(("technical", "guidelines")),
                     scope=rng.choice((None, "src/billing/**", "src/api/**", "docs/**")))
        if i % 10 == 0:
            time.sleep(0.002)
    commit_for_a_view(repo)
    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    warm(mem)
    cols = mem.memo.columns
    assert cols is not None and cols.known is not None
    every = cols.every
    found = 0
    for _ in range(80):
        head = rng.sample(range(len(every)), rng.randint(1, len(every)))
        entries = [every[p] for p in head]
        want = candidates.among(entries, mem.memo.rank)
        got = cols.among(np.array(head))
        assert want is not None and got is not None
        index = {id(e): i for i, e in enumerate(entries)}
        assert sorted(zip(got[0].tolist(), got[1].tolist(), strict=True)) \
            == sorted((index[id(o)], index[id(n)]) for o, n in want)
        found += len(want)
    assert found > 50
    # A hand edit's words are weighed against the view's from their numbers
    # (Columns.alike): the very floats the pairwise comparison has.
    for _ in range(40):
        words = frozenset(rng.sample([*WORDS, "unheard"], rng.randint(1, 7)))
        places = np.array(rng.sample(range(len(every)), rng.randint(1, 30)))
        blob = f"{rng.getrandbits(160):040x}"
        want_sims = [jaccard(words, word_set(every[p], RankMemo())) for p in places.tolist()]
        assert cols.alike(words, places, blob).tolist() == want_sims
        assert cols.alike(words, places, blob).tolist() == want_sims  # kept: the same
    # Candidates made again since (another view's): not read from the old arrays.
    mem.memo.rank.made += 1
    assert cols.among(np.array([0, 1])) is None


def test_values_laid_between_the_views_keep_their_order() -> None:
    # A hand edit's date, uuid or path falls between two of the view's, or beside
    # another laid value in the same gap: its number keeps every order.
    distinct = ["b", "d", "f"]
    values = ["e", "a", "d", "ee", "g", "e", "c", "h", "0"]
    got = column_edits._between(distinct, values)
    everything = sorted(set(distinct) | set(values))
    numbers = {**{v: 2.0 * i for i, v in enumerate(distinct)},
               **dict(zip(values, got, strict=True))}
    assert [numbers[v] for v in everything] == sorted(numbers[v] for v in everything)
    assert len(set(numbers.values())) == len(everything)  # none ordered alike
    assert got[0] == got[5]  # one value, one number


def test_a_large_table_is_placed_by_one_job() -> None:
    # A table too large to place in a call is placed between calls, by one job however
    # many calls meet it first; once placed, it is not placed again.
    from git_aide.cache import postings_build
    from git_aide.read import later

    batch = postings_build.Batch()
    for i in range(columns.SMALL_TABLE + 10):
        batch.add(f"{i:040x}", {"what": (1, [("word", 1)])})
    table = postings_build.in_memory(batch, {"what": 1.0}, {"what": True},
                               (lambda v: v, lambda b: b), {"what": 1})
    table.path = "/tmp/a-table.qt"
    queue = later.Queue()
    cols = columns.Columns([], {}, queue, RankMemo())
    assert cols.table_places(table) is None
    assert cols.table_places(table) is None
    assert len(queue.wanted) == 1
    for _ in queue.wanted[0].steps():
        pass
    placed = cols.table_places(table)
    assert placed is not None and len(placed) == table.n and (placed == -1).all()
    assert list(cols.place_steps(table)) == []  # nothing to do again
