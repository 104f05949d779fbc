"""A store with more memory files than the server's share of inotify watches (agents/
watch.py, a large store) is watched by its folders and its multiply-linked files: git
is not asked on every call, and every edit is still seen. The server runs in this
process (agents/mcp/server.call on a ServerState), with its share made small enough that five
memories are a large store."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import aide_ok, commit, in_this_process, write_memory

from git_aide.agents.mcp import server
from git_aide.core import memory
from git_aide.warm import watch

pytest.importorskip("mcp")


def edit_in_place(path: Path, what: str) -> None:
    """Rewrite a memory file in place (same inode), through whichever name `path` is."""
    record = json.loads(path.read_text())
    record["what"] = what
    with open(path, "r+", encoding="utf-8") as f:
        f.write(json.dumps(record, indent=2) + "\n")
        f.truncate()


@pytest.fixture
def large(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[Path]]:
    """Five memories, committed; this process in the repository, with the user's
    watches shared so that a server may watch two files each."""
    paths = [repo / memory.relpath(write_memory(repo, f"memory number {i}")) for i in range(5)]
    commit(repo)
    in_this_process(repo, monkeypatch)
    monkeypatch.setattr(watch, "FILE_WATCH_SHARE", max(watch.max_watches() // 2, 1))
    return repo, paths


def answer(mem: server.ServerState) -> Any:
    text, doc, failed = server.call(mem, "aide_memories", {"limit": 1000})
    assert not failed, text
    return doc


def started(mem: server.ServerState) -> Any:
    """Answer a first call, then wait for the watch the server makes between calls (a
    call until then asks git)."""
    doc = answer(mem)
    assert mem.worked(20)
    return doc


def whats(doc: Any) -> list[str]:
    return sorted(m["what"] for m in doc["memories"])


def listed(repo: Path) -> list[str]:
    return whats(aide_ok(repo, "list", "--json").json())


def test_a_large_store_sees_every_edit_without_asking_git_each_call(
        large: tuple[Path, list[Path]], tmp_path: Path) -> None:
    repo, paths = large
    backup = tmp_path / "backup.json"
    os.link(paths[1], backup)  # before the server starts
    mem = server.ServerState()
    started(mem)
    assert mem.changes.watch is not None and mem.changes.watch.large
    answer(mem)
    assert mem.changes.vouched  # the folder's watch answered, not git

    edit_in_place(paths[0], "edited by its own name")
    assert whats(answer(mem)) == listed(repo)
    assert mem.changes.vouched
    edit_in_place(backup, "edited through a link made before the server started")
    assert "edited through a link made before the server started" in whats(answer(mem))
    new = repo / memory.relpath(write_memory(repo, "a new memory file"))
    assert "a new memory file" in whats(answer(mem))
    assert whats(answer(mem)) == listed(repo)
    assert new.exists()


def test_a_link_made_later_from_outside_is_seen_within_the_rebase_time(
        large: tuple[Path, list[Path]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, paths = large
    monkeypatch.setattr(watch, "REBASE_SECONDS", 1.0)
    mem = server.ServerState()
    started(mem)
    later = tmp_path / "later.json"
    os.link(paths[2], later)
    edit_in_place(later, "edited through a link made after the server looked")
    time.sleep(1.2)
    assert "edited through a link made after the server looked" in whats(answer(mem))
    # Counted again: the file's own watch now reports the next write through the link.
    answer(mem)
    edit_in_place(later, "edited through that link again")
    assert "edited through that link again" in whats(answer(mem))
    assert mem.changes.vouched


def test_a_store_that_outgrows_a_watch_per_file_is_watched_as_a_large_one(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [repo / memory.relpath(write_memory(repo, f"memory number {i}"))
             for i in range(5)]
    commit(repo)
    in_this_process(repo, monkeypatch)
    monkeypatch.setattr(watch, "FILE_WATCH_SHARE", max(watch.max_watches() // 7, 1))
    mem = server.ServerState()
    started(mem)
    assert mem.changes.watch is not None and not mem.changes.watch.large  # a watch per file
    for i in range(5):
        write_memory(repo, f"one more memory {i}")
    assert whats(answer(mem)) == listed(repo)
    answer(mem)
    assert mem.changes.watch.large and mem.changes.vouched  # not given up: git not asked each call
    edit_in_place(paths[0], "edited once the store is large")
    assert whats(answer(mem)) == listed(repo)
    assert mem.changes.vouched
