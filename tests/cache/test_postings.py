"""The postings tables answer a query with Whoosh's own scores, without Whoosh.

A query is scored from git-aide's postings tables (postings.py) when they cover the
index; these tests hold that answer to the one Whoosh's searcher gives over the same
index, on memories with identifiers, tags, scopes and long and empty fields.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from zlib import crc32

import pytest
from helpers import CACHE, aide_ok, git, remember

from git_aide.cache import postings, postings_build
from git_aide.cache.index import QUERIED, FullText
from git_aide.cache.postings import best

WORDS = ("migration", "migrations", "migrate", "retry", "retries", "HTTPAdapter",
         "MAX_UPLOAD_BYTES", "findByEmail", "serializer", "serializers", "cache",
         "caching", "token", "tokens", "auth", "v2", "SD500", "wi-fi", "O'Neil's",
         "src/app/views.py", "rest_framework.throttling", "upload", "limit", "the",
         "a", "Ünïcode", "naïve", "x", "404", "GraphQL", "graphql")


def _record(rng: random.Random) -> dict[str, object]:
    def text(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, k)))

    return {"what": text(12) or "note", "why": text(40) if rng.random() < 0.7 else None,
            "context_label": text(3) if rng.random() < 0.5 else None,
            "tags": sorted({rng.choice(("db", "auth", "http", "Perf", "ci"))
                            for _ in range(rng.randint(0, 3))}),
            "scope": rng.choice((None, "src/**", "src/app/*.py", "docs/{a,b}/**"))}


def _blob(i: int) -> str:
    return f"{i:040x}"


def _whoosh_scores(ft: FullText, pairs: list[tuple[str, str]], allowed: set[str],
                   want: int) -> dict[str, float]:
    q = ft._w.query
    return ft._run(ft._open(), q.Or([q.Term(f, w) for f, w in pairs]), allowed, want)


def _pairs(ft: FullText, text: str) -> list[tuple[str, str]]:
    pairs = [(f, w) for w in ft.terms(text) for f in QUERIED if f != "tags"]
    return pairs + [("tags", w.lower()) for w in text.replace(",", " ").split()]


QUERIES = ("migration", "retries HTTPAdapter", "max upload bytes", "find by email",
           "MAX_UPLOAD_BYTES limit", "auth auth tokens", "db", "perf caching", "v2 404",
           "wi-fi O'Neil", "views.py", "naïve Ünïcode", "the a", "graphql 404 src",
           "retrying migrated caches", "zebra")


def test_tables_score_as_whoosh_does(tmp_path: Path) -> None:
    rng = random.Random(7)
    ft = FullText(str(tmp_path))
    # Several commits: several tables, then merged ones; every blob stays findable.
    n = 0
    for size in (40, 1, 3, 25, 1, 1, 2, 1, 1, 1, 60, 2, 1):
        ft.add([(_blob(n + i), _record(rng)) for i in range(size)])
        n += size
    tables = [p for p in os.listdir(ft.root) if p.endswith(postings.SUFFIX)]
    assert 1 <= len(tables) <= postings_build.MAX_TABLES
    fresh = FullText(str(tmp_path))  # a new process: reads the tables, not Whoosh
    allowed = {_blob(i) for i in range(n) if i % 3}
    checked = 0
    for query in QUERIES:
        for want, pool in ((5, allowed), (200, {_blob(i) for i in range(n)})):
            native = fresh.search(query, pool, want)
            assert fresh._whoosh is None, "the query imported Whoosh's index"
            expected = _whoosh_scores(ft, _pairs(ft, query), pool, want)
            every = _whoosh_scores(ft, _pairs(ft, query), pool, 10**6)
            # The same scores; among equal scores at the cut, either may be kept.
            assert sorted(native.values()) == pytest.approx(
                sorted(expected.values()), rel=1e-9), query
            for blob, score in native.items():
                assert score == pytest.approx(every[blob], rel=1e-9), (query, blob)
            checked += len(native)
    assert checked > 500  # the queries did match


def test_query_words_match_whoosh_analysis(tmp_path: Path) -> None:
    """The shortcut for plain words gives the terms Whoosh's analyzer gives, with the
    stems the postings tables keep and with Whoosh's stemmer alike."""
    from git_aide.cache.analysis import analyzer as _analyzer
    from git_aide.cache.analysis import prepare

    texts = (*QUERIES, *WORDS, "Retries RETRIES retries", "123 456", "ÉCOLE école",
             "generously relational conditional")
    analyzer = _analyzer(FullText(str(tmp_path / "a"))._w)
    ft = FullText(str(tmp_path / "b"))
    ft.add([(_blob(i), {"what": text, "why": None, "context_label": None, "tags": [],
                        "scope": None}) for i, text in enumerate(texts[::2])])
    fresh = FullText(str(tmp_path / "b"))
    assert fresh._postings() is not None
    for text in texts:
        want = list(dict.fromkeys(t.text for t in analyzer(prepare(text))))
        assert fresh.terms(text) == want, text
        assert FullText(str(tmp_path / "a")).terms(text) == want, text


def test_a_plain_query_imports_no_whoosh_index(tmp_path: Path) -> None:
    ft = FullText(str(tmp_path))
    ft.add([(_blob(i), _record(random.Random(i))) for i in range(30)])
    code = (
        "import sys\n"
        "from git_aide.cache.index import FullText\n"
        f"ft = FullText({str(tmp_path)!r})\n"
        f"scores = ft.search('migration retries', {{{_blob(1)!r}, {_blob(2)!r}}}, 5)\n"
        "print(sorted(m for m in sys.modules if m.startswith('whoosh')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "whoosh.index" not in out and "whoosh.searching" not in out, out


def test_best_widens_like_whoosh() -> None:
    """Few allowed among many matches: the cut widens until enough are allowed."""
    class Stub:
        def blob(self, doc: int) -> str:
            return _blob(doc)

    scores = {d: 1000.0 - d for d in range(500)}
    allowed = {_blob(d) for d in (10, 70, 300, 499)}
    got = best(Stub(), scores, allowed, 3)  # type: ignore[arg-type]
    assert set(got) == {_blob(10), _blob(70), _blob(300), _blob(499)}
    got = best(Stub(), scores, allowed, 1)  # type: ignore[arg-type]
    assert set(got) == {_blob(10)}


def test_sha256_blob_ids(tmp_path: Path) -> None:
    """A repository in SHA-256 names its blobs with 64 hex digits: the tables keep them."""
    ft = FullText(str(tmp_path))
    blobs = [f"{i:064x}" for i in range(5)]
    ft.add([(b, _record(random.Random(i)) | {"what": f"migration {i}"})
            for i, b in enumerate(blobs)])
    fresh = FullText(str(tmp_path))
    assert set(fresh.search("migration", set(blobs), 5)) == set(blobs)
    assert fresh._whoosh is None


def test_a_large_table_damaged_in_place_is_rebuilt(repo: Path) -> None:
    """A table over the size whose checksum the id table checks on every read, changed
    with its size and time kept: its bucket's own CRC-32 notices, the index is rebuilt
    once, and the answer is the same."""
    import json
    import uuid as uuidlib

    template = remember(repo, "webhook retries back off", "--layer", "technical")
    record = json.loads((repo / template["path"]).read_text())
    rng = random.Random(3)
    for i in range(900):
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        rec = dict(record, uuid=str(uuidlib.uuid4()), what=f"note {i}: {words}")
        (repo / f".aide/memories/technical/{rec['uuid']}.json").write_text(
            json.dumps(rec, indent=2) + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many")
    want = aide_ok(repo, "search", "webhook", "--json").json()["memories"]
    root = repo / CACHE / "whoosh"
    table = max(root.glob(f"*{postings.SUFFIX}"), key=lambda p: p.stat().st_size)
    assert table.stat().st_size > 64 * 1024
    st = table.stat()
    t = postings.Table(str(table))
    b = crc32(b"what\0webhook") % (len(t._offsets) - 1)  # the bucket asked
    at = t._base + (t._offsets[b] + t._offsets[b + 1]) // 2
    t.close()
    data = bytearray(table.read_bytes())
    data[at] ^= 0x55
    table.write_bytes(bytes(data))
    os.utime(table, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = aide_ok(repo, "search", "webhook", "--json")
    assert "full-text index was damaged" in r.stderr and r.json()["memories"] == want
    assert aide_ok(repo, "search", "webhook", "--json").json()["memories"] == want
    assert "damaged" not in aide_ok(repo, "search", "webhook").stderr


def test_a_table_made_in_memory_is_the_table_written() -> None:
    # A warm server's pending documents are scored from a table made in memory, never
    # encoded (postings.in_memory): what it holds is what the written table holds.
    rng = random.Random(3)
    batch = postings_build.Batch()
    for i in range(30):
        batch.add(_blob(i), {
            "what": (rng.randint(1, 40), [(w, rng.randint(1, 3))
                                          for w in rng.sample(WORDS, rng.randint(1, 6))]),
            "tags": (0, [(t, 1) for t in rng.sample(("db", "auth", "ci"), rng.randint(0, 2))]),
        })
    batch.stems = {"migrations": "migrat", "retries": "retri"}
    args = ({"what": 3.0, "tags": 2.0}, {"what": True, "tags": False},
            (lambda v: min(v, 255), lambda b: b * 2), {"what": 1234})
    written = postings.Table("<written>", postings_build.build(batch, *args))
    made = postings_build.in_memory(batch, *args)
    for attr in ("n", "blobs", "width", "codes", "totals", "boosts", "scorable", "lengths"):
        assert getattr(made, attr) == getattr(written, attr), attr
    every = written.everything()
    assert made.everything() == every and len(every) > 30
    for key in every:
        field, _, term = key.partition("\0")
        if term:
            assert made.raw(field, term) == written.raw(field, term)
    assert made.stem("retries") == written.stem("retries") == "retri"
    assert made.blob(7) == written.blob(7) == _blob(7)


def test_small_tables_are_merged_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    # Each small addition (a hand edit a warm server writes) would be a table of its
    # own, and every table costs each query a pass: the small ones are merged at once
    # while they are small, leaving the large table and one more.
    rng = random.Random(8)
    ft = FullText(str(tmp_path))
    ft.add([(_blob(i), _record(rng)) for i in range(300)])
    for k in range(5):
        ft.add([(_blob(1000 + k), _record(rng))])
        assert len([n for n in os.listdir(ft.root) if n.endswith(postings.SUFFIX)]) <= 2
    monkeypatch.setattr(postings_build, "EAGER_BYTES", 0)
    for k in range(3):
        ft.add([(_blob(2000 + k), _record(rng))])
    assert len([n for n in os.listdir(ft.root) if n.endswith(postings.SUFFIX)]) > 2
