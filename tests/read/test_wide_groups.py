"""Large stores: a path recall decodes only the newest few hundred project-wide
memories (the view keeps them newest first) and answers exactly as if it had decoded
them all; and it answers the same before its view is saved as after."""

from __future__ import annotations

import json
import os
import random
import time
import uuid as uuidlib
from pathlib import Path

import pytest
from helpers import aide_ok, git, remember

from git_aide.app.queries import RecallQuery, SearchQuery

WORDS = ["invoice", "billing", "ledger", "retry", "cache", "deploy", "schema", "queue",
         "token", "audit", "export", "report", "tenant", "webhook", "upload"]


def write_memory(repo: Path, template: dict, what: str, updated: str) -> str:
    record = dict(template, uuid=str(uuidlib.uuid4()), what=what,
                  created_at=updated, updated_at=updated)
    rel = f".aide/memories/technical/{record['uuid']}.json"
    (repo / rel).write_text(json.dumps(record, indent=2) + "\n")
    return rel


def load_counting(repo: Path, monkeypatch):  # type: ignore[no-untyped-def]
    """(repo, cache, snapshot) of the working tree, in process, and the list that the
    index of every group it decodes is added to."""
    from git_aide.app.context import open_context
    from git_aide.read.snapshot import Snapshot

    monkeypatch.chdir(repo)
    ctx = open_context()
    where, cache, snap = ctx.repo, ctx.cache, ctx.snapshot()
    decoded: list[int] = []
    made = Snapshot._made
    monkeypatch.setattr(Snapshot, "_made",
                        lambda self, i, *a: decoded.append(i) or made(self, i, *a))
    return where, cache, snap, decoded


def test_many_project_wide_memories_answer_as_if_all_were_read(repo: Path) -> None:
    template = remember(repo, "invoices are immutable once sent", "--scope",
                        "src/billing/**", "--layer", "technical")
    template = json.loads((repo / template["path"]).read_text())
    rng = random.Random(7)
    paths = []
    for i in range(700):
        words = rng.sample(WORDS, 3)
        # Times collide on purpose: equal times must be ordered the same way either way.
        day = 1 + rng.randrange(28)
        paths.append(write_memory(repo, dict(template, scope=None),
                                  f"note {i}: {' '.join(words)}",
                                  f"2025-03-{day:02d}T10:00:00.000Z"))
    zephyr = json.loads((repo / write_memory(repo, dict(template, scope=None),
                                             "zephyr exports run weekly",
                                             "2024-06-01T10:00:00.000Z")).read_text())["uuid"]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many project-wide memories")
    time.sleep(2.2)  # the index is trusted, and the view saved, once it is 2 s old
    file = "src/billing/invoice_export.py"

    def both() -> tuple[list[str], list[str]]:
        fast = aide_ok(repo, "recall", file, "--json").json()["memories"]
        # A filter every memory passes makes recall decode every project-wide memory.
        full = aide_ok(repo, "recall", file, "--contributor", template["contributor"],
                       "--json").json()["memories"]
        return [m["uuid"] for m in fast], [m["uuid"] for m in full]

    aide_ok(repo, "recall", file)  # saves the view
    fast, full = both()
    assert fast == full
    assert len([u for u in fast if u != template["uuid"]]) == 3  # the project-wide cap
    # An old note made the newest by hand: it lies over the view, and is weighed.
    old = min(paths, key=lambda p: json.loads((repo / p).read_text())["updated_at"])
    record = json.loads((repo / old).read_text())
    record.update(what="invoice export billing ledger", updated_at="2026-01-01T00:00:00.000Z")
    (repo / old).write_text(json.dumps(record, indent=2) + "\n")
    fast, full = both()
    assert fast == full
    assert record["uuid"] in fast
    # The newest 550 deleted by hand, not committed: older ones take their places, down
    # to the oldest note of all, the only one about zephyr.
    dated = sorted(paths, key=lambda p: json.loads((repo / p).read_text())["updated_at"])
    for rel in dated[-550:]:
        (repo / rel).unlink()
    file = "src/billing/zephyr_export.py"
    fast, full = both()
    assert fast == full
    assert zephyr in fast


def test_a_stems_count_is_the_same_with_a_view_and_without(repo: Path) -> None:
    # 40 notes on the billing folder and 20 elsewhere say "invoice": 60 in the store, a
    # common word there, so the file's stem brings no notes from elsewhere; right after
    # a commit (no view saved yet) the answer must be the one a saved view gives
    template = remember(repo, "billing runs nightly", "--scope", "src/billing/**",
                        "--layer", "technical")
    template = json.loads((repo / template["path"]).read_text())
    for i in range(40):
        write_memory(repo, dict(template, scope="src/billing/**"),
                     f"billing note {i}: the invoice total is rounded", "2025-01-01T00:00:00Z")
    for i in range(20):
        write_memory(repo, dict(template, scope=f"src/area{i}/**"),
                     f"area note {i}: an invoice goes out monthly", "2025-01-01T00:00:00Z")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notes")
    file = "src/billing/invoice.py"
    fresh = [m["uuid"] for m in aide_ok(repo, "recall", file, "--limit", "100", "--json"
                                        ).json()["memories"]]
    time.sleep(2.2)  # the index is trusted now: the view is saved, then read
    aide_ok(repo, "recall", file)
    saved = [m["uuid"] for m in aide_ok(repo, "recall", file, "--limit", "100", "--json"
                                        ).json()["memories"]]
    assert fresh == saved
    assert len(saved) == 41  # the folder's own notes; none of the 20 from elsewhere


def test_search_and_a_question_by_blob_id_answer_as_a_full_read(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`search` and `recall --query` find their best matches by blob id in the view and
    decode only the groups that hold them; they answer as a read of every memory does
    (no view: right after the index changed), also with files deleted, edited and added
    in the working tree since."""
    template = remember(repo, "invoices are immutable once sent", "--scope",
                        "src/billing/**", "--layer", "technical")
    template = json.loads((repo / template["path"]).read_text())
    rng = random.Random(11)
    scopes = [None, None, None, "src/billing/**", "src/api/*.py", "docs/**", "web/**",
              *(f"src/mod{k}/**" for k in range(60))]
    for i in range(600):
        words = " ".join(rng.sample(WORDS, 3))
        day = 1 + rng.randrange(28)
        write_memory(repo, dict(template, scope=rng.choice(scopes)), f"note {i}: {words}",
                     f"2025-04-{day:02d}T10:00:00.000Z")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many memories")
    asks = [("search", "ledger webhook", "--json", "--limit", "30"),
            ("search", "tenant", "--json"),
            ("recall", "src/billing/ledger.py", "--query", "webhook retry", "--json"),
            ("recall", "src/api/upload.py", "--query", "tenant", "--json", "--limit", "8")]

    def answers() -> list[list[str]]:
        return [[m["uuid"] for m in aide_ok(repo, *ask).json()["memories"]] for ask in asks]

    def full_and_fast() -> tuple[list[list[str]], list[list[str]]]:
        os.utime(repo / ".git/index")  # a fresh index: its view is neither read nor kept
        full = answers()
        time.sleep(2.2)
        aide_ok(repo, "search", "ledger")  # saves the view
        return full, answers()

    full, fast = full_and_fast()
    assert full == fast and all(full)
    # The best matches deleted by hand, one edited to match no more, a new one added.
    first = aide_ok(repo, *asks[0]).json()["memories"]
    for m in first[:3]:
        (repo / m["path"]).unlink()
    edited = json.loads((repo / first[3]["path"]).read_text())
    edited["what"] = "nothing to see here"
    (repo / first[3]["path"]).write_text(json.dumps(edited, indent=2) + "\n")
    added = json.loads((repo / write_memory(repo, dict(template, scope="docs/**"),
                                            "ledger webhook ledger webhook tenant",
                                            "2026-01-01T10:00:00.000Z")).read_text())
    full, fast = full_and_fast()
    assert full == fast
    gone = {m["uuid"] for m in first[:4]}
    assert not gone & set(fast[0]) and added["uuid"] == fast[0][0]
    # And the fast path is the one that answered: a search through the view decodes
    # only the groups holding its best 90 matches, not every group of the store.
    from git_aide.app import answers as answering
    from git_aide.app import search as sr

    where, cache, snap, decoded = load_counting(repo, monkeypatch)
    hits = answering.search_hits(where, snap, sr.open_index(cache),
                                 SearchQuery("ledger webhook", limit=30))
    assert [h.entry.uuid for h in hits] == fast[0]
    assert snap.blob_ids() is not None and len(set(decoded)) < len(snap._groups)


def test_mentions_found_through_the_view_answer_as_a_full_read(repo: Path, monkeypatch
                                                                ) -> None:  # type: ignore[no-untyped-def]
    """A memory elsewhere that names the path is found where its content lies in the
    view's run of contents: only the groups holding such memories are decoded, and the
    answer is the one a read without a view gives, with files changed since the view
    (one deleted, one new and untracked) taken as they are."""
    template = json.loads((repo / remember(repo, "carts expire after a day", "--scope",
                                           "src/shop/**")["path"]).read_text())
    rng = random.Random(11)
    naming = []
    for i in range(300):
        text = f"note {i}: {' '.join(rng.sample(WORDS, 3))}"
        if i % 60 == 0:
            text += " (keep in step with src/shop/cart.py)"
        rel = write_memory(repo, dict(template, scope=f"lib/mod{i}/**"), text,
                           f"2025-04-{1 + i % 28:02d}T10:00:00.000Z")
        if i % 60 == 0:
            naming.append(rel)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories in many scopes")
    file = "src/shop/cart.py"

    def full_and_fast() -> tuple[list[str], list[str]]:
        os.utime(repo / ".git/index")  # a fresh index: its view is neither read nor kept
        full = aide_ok(repo, "recall", file, "--json").json()["memories"]
        time.sleep(2.2)
        aide_ok(repo, "recall", file)  # saves the view
        fast = aide_ok(repo, "recall", file, "--json").json()["memories"]
        return [m["uuid"] for m in full], [m["uuid"] for m in fast]

    full, fast = full_and_fast()
    assert full == fast and len(fast) == 1 + len(naming)
    (repo / naming[0]).unlink()
    added = json.loads((repo / write_memory(repo, dict(template, scope="docs/**"),
                                            "the guide quotes src/shop/cart.py",
                                            "2026-01-01T10:00:00.000Z")).read_text())
    full, fast = full_and_fast()
    assert full == fast and len(fast) == len(naming) + 1 and added["uuid"] in fast
    # And through the view: only the groups of the memories that name the path.
    from git_aide.app import answers as answering

    where, cache, snap, decoded = load_counting(repo, monkeypatch)
    hits = answering.recall_hits(where, cache, snap, RecallQuery([file]), count=False)
    assert [h.entry.uuid for h in hits] == fast
    assert snap.blob_ids() is not None and len(set(decoded)) < 20 < len(snap._groups)
