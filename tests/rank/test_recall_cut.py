"""A path recall leaves out at once the scoped memories farther than its 200 nearest
(rank/selection.select's `most_specific`) when its answer needs fewer: the answers are
those of ranking every candidate, whatever the limit, path or filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import commit, in_this_process, write_memory

from git_aide.agents.mcp import server
from git_aide.core import memory
from git_aide.rank import recall as rc
from git_aide.rank.selection import Hit

pytest.importorskip("mcp")


@pytest.fixture
def crowded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """More scoped memories for src/auth/login.py than the nearest 200, at several
    distances, some naming the file's words, some nearly the same (supersession)."""
    layers = ("technical", "area_context", "guidelines", "preferences")
    scopes = [("src/auth/login.py", 10), ("src/auth/**", 90), ("src/**", 150),
              ("**/*.py", 120), ("src/**/*.py", 60)]
    n = 0
    for scope, count in scopes:
        for i in range(count):
            n += 1
            what = (f"login sessions expire after {i % 7} hours" if i % 5 == 0
                    else f"note {n} about the {scope} code, item {i}")
            rec = write_memory(repo, what, layer=layers[n % 4], scope=scope)
            # Times that tie and differ, so that every part of the order counts.
            rec["updated_at"] = f"2024-02-{1 + n % 28:02d}T12:{n % 3:02d}:00.000Z"
            (repo / memory.relpath(rec)).write_bytes(memory.canonical(rec))
    for i in range(20):
        write_memory(repo, f"project-wide rule {i} for login", layer=layers[i % 4])
    commit(repo)
    return in_this_process(repo, monkeypatch)


def answers(mem: server.ServerState, calls: list[dict[str, Any]]) -> list[Any]:
    out = []
    for a in calls:
        text, doc, failed = server.call(mem, "aide_recall", a)
        assert not failed, text
        out.append(doc)
    return out


def test_the_cut_changes_no_answer(crowded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    for path in ("src/auth/login.py", "src/auth/other.py", "src/util/x.py", "src/auth/"):
        for limit in (1, 5, 20, 40, 60, 300):
            calls.append({"paths": [path], "limit": limit})
        calls.append({"paths": [path], "layers": ["technical"]})
    cut = answers(server.ServerState(), calls)
    asked: list[int | None] = []
    select = rc.select

    def whole(*args: Any, **kwargs: Any) -> list[Hit]:
        asked.append(kwargs.get("most_specific"))
        return select(*args, **{**kwargs, "most_specific": None})

    monkeypatch.setattr(rc, "select", whole)
    assert answers(server.ServerState(), calls) == cut
    assert rc.PATH_WORDS_SCAN in asked  # the cut was asked for, and made no difference
