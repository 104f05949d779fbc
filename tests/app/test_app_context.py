"""The use cases of app/ called in-process, as the CLI, the hooks and the MCP server call
them: a Context on a real repository, data in and data out, nothing printed.

The end-to-end suite runs git-aide as a process; these tests pin the layer the front
ends share, so that a use case that starts printing, or answers differently through one
front end, fails here.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CACHE, git, make_repo

from git_aide.app import answers, audit, store
from git_aide.app.context import Context, open_context
from git_aide.app.queries import RecallQuery, SearchQuery
from git_aide.core.errors import AideError


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Context]:
    """A context on a fresh repository with git-aide initialised, opened from inside it."""
    top = make_repo(tmp_path / "repo")
    monkeypatch.chdir(top)
    yield open_context()


def test_a_memory_remembered_is_recalled_for_its_scope_and_nothing_is_printed(
        ctx: Context, capsys: pytest.CaptureFixture[str]) -> None:
    w = store.remember(ctx.repo, ctx.cache, "tokens rotate hourly", scope="src/auth/**")
    assert w.created and w.staged
    snap = ctx.snapshot()
    hits = answers.recall_hits(ctx.repo, ctx.cache, snap, RecallQuery(["src/auth/login.py"]))
    assert [h.entry.uuid for h in hits] == [w.uuid]
    assert answers.recall_hits(ctx.repo, ctx.cache, ctx.snapshot(),
                              RecallQuery(["docs/x.md"])) == []
    doc = answers.memories_doc(snap, hits)
    assert doc["source"]["kind"] == "worktree"
    assert doc["memories"][0]["what"] == "tokens rotate hourly"
    assert capsys.readouterr() == ("", "")


def test_the_sources_differ_until_the_memory_is_committed(ctx: Context) -> None:
    top = Path(ctx.repo.worktree or "")
    git(top, "commit", "-qm", "init", "--allow-empty")
    w = store.remember(ctx.repo, ctx.cache, "use postgres", stage=False)
    assert [e.uuid for e in ctx.snapshot().entries] == [w.uuid]
    assert ctx.snapshot(cached=True).entries == []
    assert ctx.snapshot(rev="HEAD").entries == []
    git(top, "add", "-A")
    git(top, "commit", "-qm", "memory")
    assert [e.uuid for e in ctx.snapshot(rev="HEAD").entries] == [w.uuid]


def test_search_ranks_by_the_words_asked(ctx: Context) -> None:
    store.remember(ctx.repo, ctx.cache, "the billing module is event-sourced")
    wanted = store.remember(ctx.repo, ctx.cache, "raw GraphQL queries 404 in prod")
    hits = answers.search_hits(ctx.repo, ctx.snapshot(), ctx.index(), SearchQuery("graphql"))
    assert [h.entry.uuid for h in hits] == [wanted.uuid]


def test_update_and_forget_resolve_a_prefix_once(ctx: Context) -> None:
    w = store.remember(ctx.repo, ctx.cache, "prefer small commits")
    store.update(ctx.repo, ctx.cache, w.uuid[:8], what="prefer small, reviewed commits")
    assert ctx.snapshot().entries[0].read_record()["what"] == "prefer small, reviewed commits"
    gone, staged, _warnings = store.forget(ctx.repo, ctx.cache, [w.uuid[:8]])
    assert gone == [w.uuid] and staged
    assert ctx.snapshot().entries == []
    with pytest.raises(AideError):
        store.forget(ctx.repo, ctx.cache, [w.uuid[:8]])


def test_audit_returns_findings_and_changes_nothing(ctx: Context) -> None:
    top = Path(ctx.repo.worktree or "")
    (top / "src" / "old").mkdir(parents=True)
    (top / "src" / "old" / "a.py").write_text("x = 1\n")
    w = store.remember(ctx.repo, ctx.cache, "old code is frozen", scope="src/old/**")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "one")
    git(top, "mv", "src/old", "src/new")
    git(top, "commit", "-qm", "moved")
    before = (top / w.path).read_bytes()
    snap = ctx.snapshot()
    findings, audited = audit.run(ctx.repo, snap, [])
    assert audited == 1
    assert [(f.kind, f.uuid) for f in findings] == [("moved", w.uuid)]
    assert audit.fixes(snap, findings) == [(w.uuid, "src/old/**", "src/new/**")]
    assert (top / w.path).read_bytes() == before  # audit proposes; the command applies


def test_a_damaged_cache_is_a_notice_on_the_context(ctx: Context) -> None:
    store.remember(ctx.repo, ctx.cache, "cache notices reach every front end")
    ctx.snapshot()  # writes the record packs
    root = Path(ctx.repo.worktree or "") / CACHE
    shutil.rmtree(root / "views", ignore_errors=True)  # the packs are read without a view
    metas = sorted((root / "packs").glob("*.meta"))
    assert metas
    for meta in metas:
        meta.write_bytes(b"\0" * 64)
    fresh = open_context()
    assert [e.read_record()["what"] for e in fresh.snapshot().entries] == [
        "cache notices reach every front end"]
    notices = fresh.take_notices()
    assert notices and all("damaged" in n for n in notices), notices
    assert fresh.take_notices() == []  # said once
