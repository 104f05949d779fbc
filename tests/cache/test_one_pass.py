"""A first index written in one pass (segment.py) is the index Whoosh's own writer makes.

The same memories are indexed both ways: Whoosh's files hold the same bytes, the
postings tables the same postings, and `search` and `recall --query` answer the same
on a real repository. A first index that is interrupted leaves nothing a later command
trusts: that command builds the index again and answers as if there had been no cache.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import BASE_ENV, CACHE, aide_ok, commit_memories, put, valid_record

from git_aide.cache import index, postings
from git_aide.cache.index import FullText

#: Words that exercise the analysis: identifiers split into parts, possessives, digits,
#: non-ASCII letters, paths, and common words (so that some terms fill many blocks).
WORDS = ("migration", "migrations", "migrate", "retry", "retries", "HTTPAdapter",
         "MAX_UPLOAD_BYTES", "findByEmail", "serializer", "cache", "caching", "token",
         "auth", "v2", "SD500", "wi-fi", "O'Neil's", "src/app/views.py",
         "rest_framework.throttling", "the", "a", "Ünïcode", "naïve", "x", "404",
         "GraphQL", "graphql", "ÉCOLE", "école", "--", "x86_64", "don't", "API2Client")
SCOPES = (None, "src/**", "src/app/*.py", "docs/{a,b}/**", "packages/web/", "*.md")
TAGS = ("db", "auth", "http", "Perf", "ci", "schema-changes")
QUERIES = ("migration", "retries HTTPAdapter", "max upload bytes", "find by email",
           "MAX_UPLOAD_BYTES limit", "auth tokens", "db", "perf caching", "v2 404",
           "wi-fi O'Neil", "views.py", "naïve Ünïcode", "the a", "graphql 404 src",
           "retrying migrated caches", "école", "x86_64", "api2client", "zebra")


def _text(rng: random.Random, most: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))


def _fields(rng: random.Random) -> dict[str, Any]:
    return {"what": _text(rng, 14) or "note",
            "why": _text(rng, 40) if rng.random() < 0.7 else None,
            "context_label": _text(rng, 3) if rng.random() < 0.5 else None,
            "tags": sorted({rng.choice(TAGS) for _ in range(rng.randint(0, 3))}),
            "scope": rng.choice(SCOPES)}


def _whoosh(ft: FullText) -> dict[str, Any]:
    """Everything a Whoosh searcher can read of an index: every posting with its
    weight and value, each block's statistics, lengths and stored fields."""
    ix = ft._w.index.open_dir(ft.root)
    with ix.reader() as r:
        out: dict[str, Any] = {"docs": r.doc_count_all(),
                               "segments": len(ix._segments())}
        names = ix.schema.names()
        for f in names:
            out[f"total {f}"] = r.field_length(f)
        for f, t in r.all_terms():
            m = r.postings(f, t)
            posts = []
            while m.is_active():
                posts.append((m.id(), m.weight(), m.value(), m.block_max_weight(),
                              m.block_min_length(), m.block_max_length()))
                m.next()
            ti = r.term_info(f, t)
            out[f"{f}:{t!r}"] = (posts, ti.weight(), ti.doc_frequency(), ti.min_length(),
                                 ti.max_length(), ti.max_weight())
        out["stored"] = [r.stored_fields(i) for i in range(r.doc_count_all())]
        out["lengths"] = [[r.doc_field_length(i, f) for f in names]
                          for i in range(r.doc_count_all())]
    return out


def _segment_files(ft: FullText) -> dict[str, bytes]:
    """The files inside the index's one compound segment, by kind (their names hold
    the segment's random id)."""
    from whoosh.filedb.compound import CompoundStorage
    from whoosh.filedb.filestore import FileStorage

    storage = FileStorage(ft.root)
    [seg] = [n for n in storage.list() if n.endswith(".seg")]
    compound = CompoundStorage(storage.open_file(seg), use_mmap=False)
    return {name.split(".", 1)[1]: compound.open_file(name).read()
            for name in compound.list()}


def _table(ft: FullText) -> tuple[Any, ...]:
    [path] = [p for p in Path(ft.root).iterdir() if p.name.endswith(postings.SUFFIX)]
    t = postings.Table(str(path))
    try:
        return (t.n, t.blobs, t.codes, t.totals, t.boosts, t.scorable, t.lengths,
                t.everything())
    finally:
        t.close()


def test_one_pass_writes_what_whoosh_writes(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    docs = [(f"{i:040x}", _fields(rng)) for i in range(700)]
    # Terms of one posting each, in every kind of field (one block, written alone).
    docs.append((f"{700:040x}", {**_fields(rng), "what": "zebra quagga", "why": "okapi",
                                 "context_label": "tapir", "tags": ["unique-tag"],
                                 "scope": "lone/**"}))
    built = {}
    for one_pass in (False, True):
        monkeypatch.setattr(index, "ONE_PASS", one_pass)
        ft = FullText(str(tmp_path / str(one_pass)))
        assert ft.add(docs) == len(docs)
        built[one_pass] = ft
    whoosh, fast = built[False], built[True]
    want = _whoosh(whoosh)
    assert want["segments"] == 1 and any(len(v[0]) > 128 for k, v in want.items()
                                         if ":" in k)  # terms of several blocks
    assert _whoosh(fast) == want
    # Byte for byte: the postings, the terms, the lengths and the stored fields.
    assert _segment_files(fast) == _segment_files(whoosh)
    assert _table(fast) == _table(whoosh)
    for query in QUERIES:
        allowed = {b for b, _r in docs[::2]}
        assert FullText(fast.root).search(query, allowed, 10) == \
            FullText(whoosh.root).search(query, allowed, 10), query


@pytest.mark.parametrize("child", ["works", "fails"])
def test_a_child_process_works_out_the_same_segment(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     child: str) -> None:
    """The last terms of a large segment, worked out by a child process (or by this one
    when the child fails), are written as Whoosh writes them."""
    import marshal

    from git_aide.cache import blocks

    rng = random.Random(3)
    docs = [(f"{i:040x}", _fields(rng)) for i in range(400)]
    docs.append((f"{400:040x}", {**_fields(rng), "what": "zebra", "context_label": None}))
    built = {}
    forks: list[int] = []
    real = blocks.os.fork
    monkeypatch.setattr(blocks.os, "fork", lambda: forks.append(1) or real())
    monkeypatch.setattr(blocks, "forkable", lambda: True)  # pytest's workers run threads
    for shared in (False, True):
        monkeypatch.setattr(blocks, "SHARED_FROM", 0 if shared else 10**9)
        if shared and child == "fails":
            # The child cannot hand its terms over: this process works them out.
            monkeypatch.setattr(blocks, "marshal", type("M", (), {
                "dumps": staticmethod(lambda _v: 1 / 0), "loads": marshal.loads}))
        ft = FullText(str(tmp_path / str(shared)))
        assert ft.add(docs) == len(docs)
        assert len(forks) == shared
        built[shared] = ft
    assert _segment_files(built[True]) == _segment_files(built[False])
    assert _whoosh(built[True]) == _whoosh(built[False])
    assert _table(built[True]) == _table(built[False])


def test_more_after_a_one_pass_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Documents added later go through Whoosh's writer as before, on top of the
    segment written in one pass, and the answers are Whoosh's own."""
    rng = random.Random(5)
    docs = [(f"{i:040x}", _fields(rng)) for i in range(300)]
    ft = FullText(str(tmp_path))
    ft.add(docs[:250])
    for start in range(250, 300, 10):
        ft.add(docs[start:start + 10])
    fresh = FullText(str(tmp_path))
    every = {b for b, _r in docs}
    q = ft._w.query
    for query in QUERIES:
        pairs = [(f, w) for w in ft.terms(query) for f in index.QUERIED if f != "tags"]
        pairs += [("tags", w.lower()) for w in query.replace(",", " ").split()]
        native = fresh.search(query, every, 1000)
        assert fresh._whoosh is None
        expected = ft._run(ft._open(), q.Or([q.Term(f, w) for f, w in pairs]), every, 1000)
        assert native == pytest.approx(expected, rel=1e-9), query


def test_one_pass_reports_progress(tmp_path: Path) -> None:
    """The bar moves while the documents are analysed and while the segment is
    written, never back, and ends at the last document."""
    rng = random.Random(2)
    docs = [(f"{i:040x}", _fields(rng)) for i in range(1000)]
    seen: list[int] = []
    FullText(str(tmp_path)).add(docs, seen.append)
    assert seen == sorted(seen) and len(set(seen)) > 20
    assert seen[-1] >= 990 and max(s for s in seen if s < 500) >= 450


def _memories(repo: Path, count: int) -> None:
    # Each at its own time: which of two alike memories supersedes the other is then
    # decided by the memories, not by the order a command happened to meet them in.
    rng = random.Random(3)
    for i in range(count):
        f = _fields(rng)
        when = f"2024-05-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"
        put(repo, valid_record(what=f"{f['what']} {i}", why=f["why"],
                               context_label=f["context_label"], tags=f["tags"],
                               scope=f["scope"], created_at=when, updated_at=when))
    commit_memories(repo, "many")


def _answers(repo: Path) -> list[Any]:
    out = []
    for query in QUERIES:
        for args in (["search", query, "--limit", "25"],
                     ["recall", "src/app/views.py", "--query", query]):
            r = aide_ok(repo, *args, "--json")
            assert "notice" not in r.stderr, r.stderr
            out.append([(m["uuid"], m.get("score")) for m in r.json()["memories"]])
    return out


#: Runs git-aide in a process of its own with one change made first (argv[1]: code).
_PATCHED = ("import sys\n"
            "exec(sys.argv[1])\n"
            "from git_aide.__main__ import main\n"
            "sys.argv = ['git-aide', *sys.argv[2:]]\n"
            "main()\n")


def _patched(repo: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _PATCHED, code, *args], cwd=repo,
                          env=BASE_ENV, capture_output=True, text=True, timeout=300)


def test_first_index_answers_as_before(repo: Path) -> None:
    """On a real repository, `index` built by Whoosh's own writer and `index` built in
    one pass answer every query alike."""
    _memories(repo, 400)
    old = _patched(repo, "import git_aide.cache.index as i; i.ONE_PASS = False", "index")
    assert old.returncode == 0 and "Indexed 400 new memories" in old.stdout, old.stderr
    before = _answers(repo)
    shutil.rmtree(repo / ".git" / "aide")
    assert "Indexed 400 new memories" in aide_ok(repo, "index").stdout
    assert _answers(repo) == before


@pytest.mark.parametrize("where", [
    # Interrupted while the documents are analysed: Whoosh's writer is cancelled.
    "import git_aide.cache.segment as s\n"
    "def stop(*a, **k): raise KeyboardInterrupt\n"
    "s._write_postings = stop",
    # After Whoosh's commit, before the postings table and the id table are written.
    "import git_aide.cache.postings_build as p\n"
    "def stop(*a, **k): raise KeyboardInterrupt\n"
    "p.write = stop",
    # The process killed after Whoosh's commit: nothing cleaned up at all.
    "import os, git_aide.cache.postings_build as p\n"
    "p.write = lambda *a, **k: os._exit(9)",
], ids=["analysing", "before-the-tables", "killed"])
def test_an_interrupted_first_index_is_built_again(repo: Path, where: str) -> None:
    _memories(repo, 150)
    aide_ok(repo, "index")
    want = _answers(repo)
    shutil.rmtree(repo / ".git" / "aide")
    stopped = _patched(repo, where, "index")
    assert stopped.returncode != 0
    assert (repo / CACHE / "whoosh").is_dir()
    r = aide_ok(repo, "index")
    assert "Traceback" not in r.stderr
    # Whatever the interrupted build left, the index is made whole again (a commit no
    # id table vouches for is said to be damaged).
    assert r.stdout.startswith("Indexed 150 new memories"), r.stdout + r.stderr
    assert _answers(repo) == want
    assert aide_ok(repo, "index").stdout.startswith("Indexed 0 new memories")
