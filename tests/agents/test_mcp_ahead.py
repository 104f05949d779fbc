"""A warm server decodes its view between calls and works out ahead the word sets and
subjects that supersession compares (read/later.py, read/groups.warm, rank/supersede.warm):
its searches and recalls then rank with them, and answer as the command line does,
which works them out from the memories' texts."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import aide_ok, commit_for_a_view, in_this_process, served, write_memory

from git_aide.agents.mcp import server
from git_aide.core import memory
from git_aide.rank.duplicates import word_set, words
from git_aide.rank.supersede import subject, subject_of

pytest.importorskip("mcp")

#: (layer, scope, older text, newer text): each newer one supersedes the older (the same
#: subject, most words shared), and every one names refunds.
PAIRS = [
    ("technical", "src/billing/**", "The billing service sends refunds through Stripe v2",
     "The billing service sends refunds through Stripe v3 now"),
    ("technical", None, "Refunds are retried three times by the queue worker",
     "Refunds are retried five times by the queue worker"),
    ("guidelines", "src/**", "Refunds above 500 euros need a second reviewer",
     "Refunds above 1000 euros need a second reviewer"),
]
#: Memories that name refunds and supersede nothing.
OTHERS = [
    ("guidelines", None, "Write refunds tests against the sandbox account"),
    ("technical", "src/api/**", "The refunds endpoint is rate limited per merchant"),
    ("area_context", "src/billing/**", "The billing folder owns invoices and refunds"),
    ("guidelines", None, "Partial refunds keep the original invoice number"),
]


@pytest.fixture
def store(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The memories above, the older of each pair written first, and forty more that
    name nothing asked here, committed; this process in the repository."""
    for layer, scope, older, _newer in PAIRS:
        write_memory(repo, older, layer=layer, scope=scope)
    time.sleep(0.01)  # the newer ones are newer
    for layer, scope, _older, newer in PAIRS:
        write_memory(repo, newer, layer=layer, scope=scope)
    for layer, scope, what in OTHERS:
        time.sleep(0.01)  # each newer than the one before
        write_memory(repo, what, layer=layer, scope=scope)
    for i in range(40):
        write_memory(repo, f"module {i} logs with the structured logger", scope=f"src/m{i}/**")
    commit_for_a_view(repo)
    return in_this_process(repo, monkeypatch)


def whats(doc: Any) -> list[str]:
    return [m["what"] for m in doc["memories"]]


def test_ranks_with_what_it_worked_out_between_calls(store: Path) -> None:
    mem = server.ServerState()
    served(mem, "aide_search", {"keyword": "logger"})  # asks for the view to be warmed
    assert mem.worked(20)
    view = mem.read()[2]
    mem.done()
    rank = mem.memo.rank
    assert all(rank.known_ahead(e.blob) for e in view.entries)
    # What was worked out ahead is what comparing them uses: no text is read again.
    rank.word_sets.clear()
    view.records.whats.clear()
    for e in view.entries:
        assert word_set(e, rank) == words(e.parse_what())
        assert subject_of(e, rank) == subject(e.parse_what())
    assert not view.records.whats
    got = served(mem, "aide_search", {"keyword": "refunds"})
    assert got == aide_ok(store, "search", "refunds", "--json").json()
    # Each newer memory comes before the one it supersedes, which follows every
    # current match.
    order = whats(got)
    for _layer, _scope, older, newer in PAIRS:
        assert order.index(newer) < order.index(older)
        assert order.index(older) >= len(order) - len(PAIRS)
    recalled = served(mem, "aide_recall", {"paths": ["src/billing/refund.py"]})
    assert recalled == aide_ok(store, "recall", "src/billing/refund.py", "--json").json()
    order = whats(recalled)
    assert order.index(PAIRS[0][3]) < order.index(PAIRS[0][2])


def test_a_hand_edit_after_the_work_is_compared_from_its_text(store: Path) -> None:
    # The edited file's blob was not worked out ahead: its words come from its text, and
    # it supersedes an older memory it did not resemble before.
    mem = server.ServerState()
    served(mem, "aide_search", {"keyword": "logger"})
    assert mem.worked(20)
    view = mem.read()[2]
    mem.done()
    assert all(mem.memo.rank.known_ahead(e.blob) for e in view.entries)
    path = next(p for p in (store / ".aide" / "memories").rglob("*.json")
                if "Partial refunds" in p.read_text())
    time.sleep(0.01)
    path.write_text(path.read_text().replace(
        "Partial refunds keep the original invoice number",
        "Write refunds tests against the sandbox account first"))
    got = served(mem, "aide_search", {"keyword": "sandbox"})
    assert got == aide_ok(store, "search", "sandbox", "--json").json()
    order = whats(got)
    assert order.index("Write refunds tests against the sandbox account first") \
        < order.index("Write refunds tests against the sandbox account")


def test_a_warm_search_finds_each_copy_and_leaves_out_what_was_edited(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Once warm, the entries of a search's best are looked up by blob (Reader.whole),
    # not sought group by group: a preference that does not say whether it is shared,
    # kept both shared and personal (one blob, two paths: the personal file, which git
    # ignores, laid over the view), is found at both, and a file edited since the view
    # is found only as it is now (the lookup leaving out what the working tree changed
    # is caught).
    for i in range(12):
        write_memory(repo, f"refunds step {i} runs in the queue worker", scope=f"src/m{i}/**")
    edited = write_memory(repo, "refunds are mailed to the customer")
    record = write_memory(repo, "refunds are copied to the ledger nightly", layer="preferences")
    written = repo / memory.relpath(record)
    data = json.loads(written.read_text())
    del data["shared"]
    written.unlink()
    shared = repo / memory.MEMORIES_DIR / "preferences" / "shared" / written.name
    personal = repo / memory.PERSONAL_DIR / written.name
    for path in (shared, personal):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    commit_for_a_view(repo)
    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    served(mem, "aide_search", {"keyword": "logger"})
    assert mem.worked(20)
    mem.done()
    assert mem.read()[2]._reader.whole is not None  # the lookup is what answers below
    path = repo / memory.relpath(edited)
    path.write_text(path.read_text().replace("mailed to the customer", "sent by post"))
    for word in ("refunds", "ledger", "post", "mailed"):
        assert served(mem, "aide_search", {"keyword": word}) \
            == aide_ok(repo, "search", word, "--json").json()
    paths = [m["path"] for m in served(mem, "aide_search", {"keyword": "ledger"})["memories"]]
    assert sorted(paths) == sorted(str(p.relative_to(repo)) for p in (shared, personal))
    found = whats(served(mem, "aide_search", {"keyword": "refunds"}))
    assert "refunds are sent by post" in found
    assert "refunds are mailed to the customer" not in found


def test_a_hand_edit_supersedes_one_that_scores_higher(store: Path) -> None:
    # The edited file has no bits worked out ahead (rank/wordbits.py): its own are made
    # from its words, numbered as the view's, and it supersedes an older memory that
    # the search scores above it (the older says "sandbox" three times).
    write_memory(store, "Refunds sandbox tests use the sandbox account and the sandbox key",
                 layer="guidelines")
    commit_for_a_view(store)
    mem = server.ServerState()
    served(mem, "aide_search", {"keyword": "logger"})
    assert mem.worked(20)
    mem.done()
    path = next(p for p in (store / ".aide" / "memories").rglob("*.json")
                if "Partial refunds" in p.read_text())
    time.sleep(0.01)
    edited = json.loads(path.read_text())
    edited.update(what="Refunds sandbox tests use the sandbox account and a new key",
                  updated_at=memory.now())  # newer than the other
    path.write_text(json.dumps(edited))
    got = served(mem, "aide_search", {"keyword": "sandbox"})
    assert got == aide_ok(store, "search", "sandbox", "--json").json()
    order = whats(got)
    assert order.index("Refunds sandbox tests use the sandbox account and a new key") \
        < order.index("Refunds sandbox tests use the sandbox account and the sandbox key")
