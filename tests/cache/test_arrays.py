"""A long-lived process scores the postings tables with numpy (cache/arrays.py): the
same scores, to the last bit, and the same best documents in the same order as the
tables' own scoring (postings.py), which test_postings.py holds to Whoosh's."""

from __future__ import annotations

import gc
import random
import weakref
from pathlib import Path

import pytest
from test_postings import QUERIES, WORDS, _blob, _pairs, _record

from git_aide.cache import postings, postings_build
from git_aide.cache.index import FullText

arrays = pytest.importorskip("git_aide.cache.arrays")


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[FullText, int]:
    """An index of several tables (added in several commits, none merged), memories of
    few words, so that a word recurs in a field (frequencies above one) and scores tie."""
    monkeypatch.setattr(postings_build, "EAGER_BYTES", 0)
    rng = random.Random(11)
    ft = FullText(str(tmp_path))
    n = 0
    for size in (50, 1, 7, 30, 2, 1, 80):
        ft.add([(_blob(n + i), _record(rng)) for i in range(size)])
        n += size
    return FullText(str(tmp_path)), n


def test_the_same_scores_and_the_same_best(index: tuple[FullText, int]) -> None:
    ft, n = index
    tables = ft._postings()
    assert tables is not None and len(tables.tables) > 1
    rng = random.Random(5)
    repeated = 0
    scorer = arrays.Scorer()
    for query in (*QUERIES, *WORDS, "auth auth auth tokens"):
        pairs = _pairs(ft, query)
        plain = tables.scores(pairs)
        scored = scorer.scores(tables, pairs)
        # Equal floats, not close ones: the same operations in the same order.
        assert dict(zip(scored.docs.tolist(), scored.values.tolist(), strict=True)) == plain
        repeated += sum(1 for v in plain.values() if list(plain.values()).count(v) > 1)
        for want in (1, 3, 20, 500):
            pool = {_blob(i) for i in range(n) if rng.random() < 0.6}
            got = scorer.best(tables, scored, pool, want)
            assert list(got.items()) == list(postings.best(tables, plain, pool, want).items())
    assert repeated > 100  # ties at the cut were met, and decided alike


def test_a_long_lived_index_answers_alike(index: tuple[FullText, int]) -> None:
    """FullText.numbers() (the MCP server's index), with documents pending (added, not
    yet written: cache/pending.py), answers as an index that scores in Python."""
    ft, n = index
    ft.deferring = True
    assert ft.numbers()
    rng = random.Random(2)
    docs = [(_blob(n + i), _record(rng)) for i in range(3)]
    ft.begin()
    ft.add(docs)
    assert ft.pending.docs
    plain = FullText(ft.root.rsplit("/", 1)[0])
    plain.deferring = True
    plain.begin()
    plain.add(docs)
    every = {_blob(i) for i in range(n + 3)}
    for query in QUERIES:
        assert list(ft.search(query, every, 10).items()) \
            == list(plain.search(query, every, 10).items()), query


def test_kept_postings_score_anew_as_the_pending_documents_change(
        index: tuple[FullText, int]) -> None:
    """What scoring a table's term needs is kept between queries (Scorer.postings);
    each new set of pending documents changes every idf and mean length, and the
    scores are still the floats the tables' own scoring gives. A table let go is not
    held by what was kept of it."""
    ft, n = index
    ft.deferring = True
    assert ft.numbers()
    rng = random.Random(3)
    for round_ in range(4):
        ft.begin()
        ft.add([(_blob(n + 10 * round_ + i), _record(rng)) for i in range(round_ + 1)])
        tables = ft._collection()
        assert tables is not None and tables.tables[-1].path == "<pending>"
        for query in QUERIES:
            pairs = _pairs(ft, query)
            scored = ft._scorer.scores(tables, pairs)
            assert dict(zip(scored.docs.tolist(), scored.values.tolist(), strict=True)) \
                == tables.scores(pairs), (round_, query)
    assert ft._scorer.postings  # the tables on disk were kept, and met again
    assert ft._scorer.joined  # and a term's postings in several of them, joined
    paths = [t.path for t in tables.tables if t.path != "<pending>"]
    apart = postings.Tables(paths)
    ft._scorer.scores(apart, _pairs(ft, QUERIES[0]))
    gone = weakref.ref(apart.tables[0])
    apart.close()
    del apart
    gc.collect()
    assert gone() is None
