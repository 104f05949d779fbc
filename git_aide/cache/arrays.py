"""The postings tables scored with numpy, for a long-lived process.

Tables.scores (postings.py) scores a query posting by posting in Python: 0.5 ms at
10,000 memories, 3-4 ms at 100,000 for a word a quarter of them hold, and cutting the
best from a dict of 25,000 scores another ms. The MCP server answers a search in a few
ms in all, so there it is done here, a term's postings at a time, in numpy: the same
weights (postings.Weight), the same operations in the same order on the same floats,
so the same scores; and the same cut (the best by score, the first added first among
equals). tests/cache/test_arrays.py holds the two to the same answers.

Only a long-lived process imports this: numpy takes ~60 ms to import, more than a
whole search by a command that runs once.
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Container, Iterable
from itertools import groupby

import numpy as np

from git_aide.cache.postings import K1, Tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    import weakref as _weakref

    from numpy.typing import NDArray

    from git_aide.cache.postings import Table, Weight

    #: A table's postings of a term as Scorer keeps them: (the table, weakly; its
    #: documents numbered in the collection; f * boost; f * boost * (K1 + 1), or None
    #: for a field without lengths; the documents' field lengths, or None).
    Postings = tuple[_weakref.ref[Table], NDArray[np.intp], NDArray[np.float64],
                     NDArray[np.float64] | None, NDArray[np.float64] | None]
    #: A term's postings as scoring needs them, without the table: (documents, f *
    #: boost, f * boost * (K1 + 1) or None, lengths or None).
    Joined = tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64] | None,
                   NDArray[np.float64] | None]


class Scored:
    """Hold every matching document of a query and its score."""

    __slots__ = ("docs", "values")

    def __init__(self, docs: NDArray[np.intp], values: NDArray[np.float64]) -> None:
        #: The documents, ascending (numbers in the tables' collection).
        self.docs = docs
        #: Their scores, in the same order.
        self.values = values


#: Postings of at most this many bytes (4 a document) are scored in Python.
_FEW_BYTES = 4 * 8
#: How many postings a Scorer keeps (about 32 bytes each) before it starts again.
_POSTINGS_MOST = 1_000_000


class Scorer:
    """Score the postings tables with numpy, keeping between queries what scoring a
    table's term needs. One belongs to one full-text index of a long-lived process
    (FullText.numbers()), whose calls come one at a time: its buffers are reused."""

    #: Whether scores() gives arrays (Scored) that app/columns.py can rank.
    arrays = True

    def __init__(self) -> None:
        #: A table's postings of a term as arrays (the table, weakly: a table let go is
        #: not held here; its documents numbered in the collection, f * boost,
        #: f * boost * (K1 + 1), and the field's lengths; postings.Weight), by (the
        #: table's id, field, term, where its documents start, the boost): what scoring
        #: them needs that the pending documents do not change (they change a term's
        #: idf and a field's mean length at each call). A table on disk never changes;
        #: the pending table, new at each call, is not kept.
        self.postings: dict[tuple[int, str, str, int, float], Postings] = {}
        #: The postings of a term in several tables on disk joined (`_joined`): by
        #: (field, term, boost, the tables' ids), with the tables, weakly.
        self.joined: dict[tuple[str, str, float, tuple[int, ...]],
                          tuple[tuple[_weakref.ref[Table], ...], Joined]] = {}
        #: How many postings `postings` holds now.
        self._held = 0
        #: The sums and marks of the last collection's size, zeros again after each
        #: query: a long-lived process asks of nearly the same collection every time,
        #: and new zeros of 100,000 documents each time cost more than the scoring
        #: (pages mapped anew).
        self._zeros: tuple[NDArray[np.float64], NDArray[np.bool_]] | None = None
        #: The lengths a table's length codes stand for, as an array, by the table's
        #: list (held here, so that its id names no other list while it is kept).
        self._lengths: dict[int, tuple[list[int], NDArray[np.float64]]] = {}

    def scores(self, tables: Tables, terms: Iterable[tuple[str, str]]) -> Scored:
        """Return Tables.scores as arrays: each document's score adds each matching
        term's in the order of the terms, as that dict's do."""
        total, hit = self._zeros_of(tables.count)
        # The tables of one (field, term) come one after another, with one weight; their
        # documents differ, so each document's score adds the same terms in the same
        # order whether the tables' postings are scored one by one or joined.
        # (Grouped by the weight itself, which matching() makes anew for each term asked.)
        for _w, group in groupby(tables.matching(terms), key=lambda m: m[2]):
            many: list[Postings] = []
            for field, term, weight, start, t, raw in group:
                if len(raw[0]) <= _FEW_BYTES:
                    # A few documents (a pending table's, a rare word's): the same
                    # operations on Python's floats, which are numpy's, without numpy's
                    # cost per call.
                    codes_of = t.lengths
                    field_codes = t.codes[field] if weight.scorable else b""
                    for d, f in zip(array("I", raw[0]), array("I", raw[1]), strict=True):
                        one = (weight.of(float(f), float(codes_of[field_codes[d]]))
                               if weight.scorable else float(f) * weight.boost)
                        total[start + d] += one
                        hit[start + d] = True
                    continue
                many.append(self._postings_of(t, field, term, start, weight, raw))
            if not many:
                continue
            docs, weighted, top, lengths = many[0][1:] if len(many) == 1 \
                else self._joined(field, term, weight.boost, many)
            got = (weight.weighed(weighted, top, lengths)
                   if top is not None and lengths is not None else weighted)
            # A document is in a term's postings once: no index repeats in one add.
            total[docs] += got
            hit[docs] = True
        matched = np.flatnonzero(hit)
        out = Scored(matched, total[matched])
        total[matched] = 0.0
        hit[matched] = False
        return out

    def best(self, tables: Tables, scored: Scored, allowed: Container[str], want: int
             ) -> dict[str, float]:
        """Return best(): the allowed blobs among the best of `scored`."""
        return best(tables, scored, allowed, want)

    def _postings_of(self, t: Table, field: str, term: str, start: int, weight: Weight,
                     raw: tuple[bytes, bytes]) -> Postings:
        key = (id(t), field, term, start, weight.boost)
        got = self.postings.get(key)
        if got is not None and got[0]() is t:
            return got
        docs = np.frombuffer(raw[0], dtype=np.uint32).astype(np.intp)
        weighted = np.frombuffer(raw[1], dtype=np.uint32).astype(np.float64) * weight.boost
        lengths = top = None
        if weight.scorable:
            top = weighted * (K1 + 1)
            lengths = self._lengths_of(t.lengths)[
                np.frombuffer(t.codes[field], dtype=np.uint8)[docs]]
        if start:
            docs += start
        got = (weakref.ref(t), docs, weighted, top, lengths)
        if t.path != "<pending>":
            if self._held + len(docs) > _POSTINGS_MOST:
                self.postings.clear()
                self.joined.clear()
                self._held = 0
            self.postings[key] = got
            self._held += len(docs)
        return got

    def _joined(self, field: str, term: str, boost: float, many: list[Postings]) -> Joined:
        """Return the postings of one (field, term) in several tables joined, in their
        order: one numpy operation each for them all (kept while those tables are)."""
        key = (field, term, boost, tuple(id(p[0]()) for p in many))
        got = self.joined.get(key)
        if got is not None and all(a() is b[0]() for a, b in zip(got[0], many, strict=True)):
            return got[1]
        tops = [p[3] for p in many if p[3] is not None]
        lengths = [p[4] for p in many if p[4] is not None]
        joined = (np.concatenate([p[1] for p in many]), np.concatenate([p[2] for p in many]),
                  np.concatenate(tops) if len(tops) == len(many) else None,
                  np.concatenate(lengths) if len(lengths) == len(many) else None)
        if any(p[0]().path == "<pending>" for p in many):  # type: ignore[union-attr]
            return joined  # new at each call: not kept
        if self._held + len(joined[0]) > _POSTINGS_MOST:
            self.postings.clear()
            self.joined.clear()
            self._held = 0
        self.joined[key] = (tuple(p[0] for p in many), joined)
        self._held += len(joined[0])
        return joined

    def _zeros_of(self, count: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        if self._zeros is None or len(self._zeros[0]) != count:
            self._zeros = (np.zeros(count, dtype=np.float64), np.zeros(count, dtype=np.bool_))
        return self._zeros

    def _lengths_of(self, lengths: list[int]) -> NDArray[np.float64]:
        got = self._lengths.get(id(lengths))
        if got is None:
            if len(self._lengths) > 64:
                self._lengths.clear()
            got = self._lengths[id(lengths)] = (lengths, np.array(lengths, dtype=np.float64))
        return got[1]


def cut(scored: Scored, limit: int) -> NDArray[np.intp]:
    """Return the best `limit` documents (their indices in `scored`), best first, the first
    added first among equals, and any tied with the last left out as best() leaves them."""
    docs, values = scored.docs, scored.values
    n = len(docs)
    if n > limit:
        least = np.partition(values, n - limit)[n - limit]
        at = np.flatnonzero(values >= least)
    else:
        at = np.arange(n)
    # lexsort's last key is its first: by score descending, then by document.
    return at[np.lexsort((docs[at], -values[at]))][:limit]


def best(tables: Tables, scored: Scored, allowed: Container[str], want: int
         ) -> dict[str, float]:
    """Do postings.best on scores as arrays: the allowed blobs among the best max(3 * want,
    60) documents, then four times as many until `want` of them are allowed or none are
    left; best first, the first added first among equals."""
    n = len(scored.docs)
    limit = max(want * 3, 60)
    while True:
        ordered = cut(scored, limit)
        # A blob named twice keeps its first place and its last score, as a loop would.
        out = {blob: score for blob, score in zip(tables.blobs_of(scored.docs[ordered].tolist()),
                                                  scored.values[ordered].tolist(), strict=True)
               if blob in allowed}
        if len(out) >= want or n <= limit:
            return out
        limit *= 4
