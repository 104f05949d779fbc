"""One plain engine per job, and the accelerators a long-lived process picks once: this
suite says which accelerator disagrees with the plain engine, on stores hypothesis
generates.

- BM25F scores: Whoosh's own searcher is the reference; the plain engine scores the
  postings tables in Python (postings.PlainScorer), the MCP server's in numpy
  (arrays.Scorer, chosen once by FullText.numbers()).
- Supersession: the plain engine compares a list's memories pair by pair from their
  word sets (a fresh RankMemo: what a command has); a server's RankMemo adds the view's
  words as bits (rank/wordbits.py) and each memory's candidates worked out ahead
  (rank/candidates.py), and must find the same pairs, in the same order.

The narrower suites (tests/cache/test_postings.py, test_arrays.py,
tests/rank/test_wordbits.py, tests/agents/test_mcp_candidates.py, tests/app/test_columns.py)
hold each accelerator's parts and the answers a warm server gives through git.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_aide.cache.index import QUERIED, FullText
from git_aide.core import memory
from git_aide.core import scope as scopes
from git_aide.rank import candidates, supersede, wordbits
from git_aide.rank.memo import RankMemo
from git_aide.read.record import Entry, Reader, meta_of, new_entry

arrays = pytest.importorskip("git_aide.cache.arrays")

#: A small vocabulary, so that many memories are alike and some supersede others.
WORDS = ("billing", "refunds", "queue", "worker", "retries", "stripe", "webhook", "v2",
         "v3", "sandbox", "merchant", "limit", "2MiB", "4MiB", "SameSite=Lax", "token")
SCOPES = (None, "src/billing/**", "src/api/**", "docs/**", "src/billing/refund.py")
LAYERS = ("technical", "guidelines")

PROPS = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def stores(draw: st.DrawFn, most: int = 60) -> list[dict[str, object]]:
    """Memories of a few words each, in two layers and a few scopes, with dates that
    differ and dates that tie (the uuid then decides which is newer)."""
    n = draw(st.integers(2, most))
    out = []
    for i in range(n):
        what = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=7)))
        record = memory.new(what, layer=draw(st.sampled_from(LAYERS)), contributor="test",
                            scope=draw(st.sampled_from(SCOPES)))
        record["uuid"] = f"{i:08x}-0000-4000-8000-{draw(st.integers(0, 2**40)):012x}"
        stamp = f"2026-01-01T00:{draw(st.integers(0, 5)):02d}:00Z"
        record["created_at"] = record["updated_at"] = stamp
        out.append(record)
    return out


def entries_of(records: list[dict[str, object]]) -> list[Entry]:
    """The records as a read's entries, their bytes at hand (no cache is asked)."""
    reader = Reader(None, None)  # type: ignore[arg-type]
    out = []
    for r in records:
        data = memory.canonical(r)
        parsed = memory.parse(data)
        scope = parsed["scope"]
        compiled = None if scopes.is_project_wide(scope) else scopes.compile_scope(scope)
        out.append(new_entry(Entry, (memory.relpath(parsed), f"{len(out):040x}",
                                     meta_of(parsed), compiled, reader, data)))
    return out


def pairs_of(found: list[tuple[Entry, Entry]]) -> list[tuple[str, str]]:
    return [(o.uuid, n.uuid) for o, n in found]


def plain_supersession(entries: list[Entry]) -> list[tuple[str, str]]:
    """The plain engine: pair by pair, from word sets, nothing worked out ahead."""
    return pairs_of(supersede.superseded(entries, RankMemo()))


def warmed(entries: list[Entry]) -> RankMemo:
    """A RankMemo as a server's is after its idle work on this view."""
    memo = RankMemo()
    supersede.warm(entries, memo)
    for _step in supersede.relate(entries, memo):
        pass
    return memo


@PROPS
@given(stores(), st.data())
def test_supersession_engines_agree(records: list[dict[str, object]], data: st.DataObject
                                    ) -> None:
    entries = entries_of(records)
    memo = warmed(entries)
    with_bits = RankMemo()  # the view's words as bits, no candidates (too many pairs)
    supersede.warm(entries, with_bits)
    for _step in wordbits.build(entries, with_bits.words_ahead, with_bits):
        pass
    lists = [entries, *(data.draw(st.lists(st.sampled_from(entries), min_size=1,
                                           max_size=len(entries), unique_by=id))
                        for _ in range(3))]
    for some in lists:
        want = plain_supersession(some)
        assert pairs_of(supersede.superseded(some, with_bits)) == want, "bits disagree"
        among = candidates.among(some, memo)
        assert among is not None, "a warmed view's candidates answer for any list of it"
        assert pairs_of(among) == want, "candidates disagree"


def test_supersession_engines_find_pairs() -> None:
    """The generated stores do hold superseding memories (the suite above compares
    something): a changed value in the same words."""
    records = []
    for i, what in enumerate(["billing webhook retries stripe limit 2MiB",
                              "billing webhook retries stripe limit 4MiB"]):
        r = memory.new(what, layer="technical", contributor="test")
        r["created_at"] = r["updated_at"] = f"2026-01-01T00:0{i}:00Z"
        records.append(r)
    entries = entries_of(records)
    want = plain_supersession(entries)
    assert want == [(entries[0].uuid, entries[1].uuid)]
    assert candidates.among(entries, warmed(entries)) is not None
    assert pairs_of(candidates.among(entries, warmed(entries)) or []) == want


@PROPS
@given(stores(), st.data())
def test_supersession_by_meaning_takes_the_pairs_its_rule_names(
        records: list[dict[str, object]], data: st.DataObject) -> None:
    """With a model, a memory is superseded by its closest newer one in words (from
    supersede.MEANING_WORDS) when their cosine and words together reach
    supersede.MEANING (words alone, supersede.WORDS, when either has no vector) and the
    newer tells the same fact: whichever the cosines, and however the list is warmed."""
    from git_aide.rank.duplicates import pairs

    entries = entries_of(records)
    cosines: dict[tuple[str, str], float | None] = {}

    def meaning(a: Entry, b: Entry) -> float | None:
        key = (a.uuid, b.uuid)
        if key not in cosines:
            cosines[key] = data.draw(st.none() | st.floats(-1.0, 1.0), label=str(key))
        return cosines[key]

    rule = RankMemo()
    want = []
    for older, newer, sim in pairs(entries, supersede.MEANING_WORDS, rule):
        cos = meaning(older, newer)
        alike = sim >= supersede.WORDS if cos is None else cos + sim >= supersede.MEANING
        if supersede.passes(older, newer, rule) and alike:
            want.append((older.uuid, newer.uuid))
    assert pairs_of(supersede.superseded(entries, RankMemo(), meaning)) == want
    assert pairs_of(supersede.superseded(entries, warmed(entries), meaning)) == want


def _pairs(ft: FullText, text: str) -> list[tuple[str, str]]:
    pairs = [(f, w) for w in ft.terms(text) for f in QUERIED if f != "tags"]
    return pairs + [("tags", w.lower()) for w in text.replace(",", " ").split()]


#: Every query of one or two of the vocabulary's words.
QUERIES = [" ".join(q) for q in itertools.chain(
    ((w,) for w in WORDS), itertools.combinations(WORDS[:8], 2))]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(stores(most=40), st.lists(st.integers(1, 8), min_size=1, max_size=4))
def test_bm25f_engines_agree(tmp_path_factory: pytest.TempPathFactory,
                             records: list[dict[str, object]], commits: list[int]) -> None:
    root = tmp_path_factory.mktemp("index")
    ft = FullText(str(root))
    docs = [(f"{i:040x}", r) for i, r in enumerate(records)]
    # Several commits: several tables, each a Whoosh segment.
    at = 0
    for size in commits:
        ft.add(docs[at:at + size])
        at += size
    ft.add(docs[at:])
    every = {blob for blob, _r in docs}
    plain = FullText(str(root))
    fast = FullText(str(root))
    assert fast.numbers()
    for query in QUERIES:
        pairs = _pairs(plain, query)
        tables = plain.tables()
        assert tables is not None
        want = tables.scores(pairs)
        scored = arrays.Scorer().scores(tables, pairs)
        # numpy's scores are the plain engine's floats, exactly.
        assert dict(zip(scored.docs.tolist(), scored.values.tolist(), strict=True)) \
            == want, query
        for limit in (1, 5, 50):
            got = plain.search(query, every, limit)
            assert list(fast.search(query, every, limit).items()) == list(got.items()), query
        # Whoosh's searcher, the reference: the same scores, to rounding.
        q = ft._w.query
        reference = ft._run(ft._open(), q.Or([q.Term(f, w) for f, w in pairs]), every, 10**6)
        assert {tables.blob(d): s for d, s in want.items()} == pytest.approx(reference,
                                                                              rel=1e-9), query
