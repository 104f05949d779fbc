"""The full-text index read without Whoosh: each commit to it also writes its documents'
postings in tables of our own (postings_build.py writes them; this module reads and
scores them).

Importing Whoosh and opening its index costs a query more than the rest of a recall, and
an agent asks on every file it touches. So every batch of documents Whoosh indexes is
also written as one postings table: the terms Whoosh's own fields produced for it (the
same analysis, the same weights), each field's length as Whoosh stores it, and the blob
ids. A query looks up its terms in the tables and scores them by BM25F exactly as
Whoosh's searcher does; tests/cache/test_postings.py holds the two to the same scores.

The tables sit in the index's folder, so the id table (index.py) vouches for them as for
Whoosh's own files, and each carries CRC-32s of its own (of its header, and of each
bucket, checked as it is read): a damaged or missing table rebuilds the whole index. A
table file is framed by codec.py: its head is a short header (the documents), then come
buckets of postings found by a CRC-32 of the term: a query reads the header and the few
buckets its terms fall in, never the whole table.
The buckets also hold the stem of every plain word the documents use, so that a query
of such words needs not even Whoosh's stemmer.
"""

from __future__ import annotations

import heapq
import marshal
import mmap
import os
from array import array
from bisect import bisect_left
from math import log
from zlib import crc32

from git_aide.cache import codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    import numpy as np
    from numpy.typing import NDArray

    #: A float, or numpy's array of them (arrays.py): Weight works either out alike.
    Numbers = TypeVar("Numbers", float, NDArray[np.float64])
    from collections.abc import Container, Iterable, Iterator
    from typing import Any

#: The kind of file codec.py frames for a table, and its format: bumped with
#: index_folder.FORMAT when its layout changes.
KIND = "postings"
FORMAT = 2
#: A table's file name ends so (Whoosh's own clean-up never touches such names).
SUFFIX = ".qt"
#: BM25F's free parameters, Whoosh's defaults (scoring.BM25F).
B = 0.75
K1 = 1.2


def _key(field: str, term: str) -> str:
    return f"{field}\0{term}"


#: How a word's key starts in the buckets (no field name starts so).
_STEM = "\1"


def _as_bytes(posts: dict[str, dict[str, tuple[array[int], array[int]]]]
              ) -> dict[str, tuple[bytes, bytes]]:
    """Return a batch's postings by key, as a table holds them."""
    return {_key(field, t): (d.tobytes(), f.tobytes())
            for field, terms in posts.items() for t, (d, f) in terms.items()}


def order(path: str) -> tuple[int, str]:
    """Give a table's sort key: when it was written, as named (name()); older documents first."""
    name = os.path.basename(path)
    try:
        return int(name.split("-")[1].split(".")[0]), name
    except (IndexError, ValueError):
        return 0, name


#: How many bytes of postings a table keeps once asked (Table.raw) before it starts again.
ASKED_BYTES = 4 << 20


class Table:
    """Map one table file: its documents, and its postings found bucket by bucket."""

    __slots__ = ("path", "n", "blobs", "codes", "totals", "boosts", "scorable", "lengths",
                 "_offsets", "_crcs", "_map", "_base", "width", "_sound", "_asked", "_held",
                 "__weakref__")

    def __init__(self, path: str, data: bytes | None = None) -> None:
        #: Where it is (or what it stands for, when `data` holds it in memory).
        self.path = path
        #: The file, mapped (buckets are read from it on demand); or its bytes.
        self._map: mmap.mmap | bytes
        if data is not None:
            self._map = data
        else:
            with open(path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            head, base = codec.unframe(KIND, FORMAT, self._map)
        except ValueError as e:
            raise ValueError(f"{path}: not a whole postings table ({e})") from None
        (n, blobs, codes, totals, boosts, scorable, lengths, offsets) = marshal.loads(head)
        #: How many documents it holds.
        self.n: int = n
        #: Their blob ids, in document order, as bytes (20 each; 32 in a SHA-256 repo).
        self.blobs: bytes = blobs
        #: How many bytes a blob id takes.
        self.width = len(blobs) // n if n else 20
        #: Each scorable field's length code per document (Whoosh's length byte).
        self.codes: dict[str, bytes] = codes
        #: Each scorable field's total length over the whole index when it was written.
        self.totals: dict[str, int] = totals
        #: Each field's weight per occurrence of a term.
        self.boosts: dict[str, float] = boosts
        #: Which fields are scored with their length (BM25) rather than by weight alone.
        self.scorable: dict[str, bool] = scorable
        #: The length each code stands for.
        self.lengths: list[int] = lengths
        every = array("I")
        every.frombytes(offsets)
        half = (len(every) + 1) // 2
        self._offsets = every[:half]
        #: Each bucket's CRC-32.
        self._crcs = every[half:]
        self._base = base
        #: The buckets whose CRC-32 was checked: a table file is never rewritten
        #: (write() names a new one), so a long-lived process checks each bucket once,
        #: not a few hundred KB again on every query.
        self._sound: set[int] = set()
        #: The postings of the terms asked, by key (a long-lived process asks the same
        #: words again: a bucket is unpacked whole, a few hundred postings lists).
        self._asked: dict[str, Any] = {}
        #: How many bytes of postings _asked holds.
        self._held = 0
        if len(self._offsets) < 2 or len(self._crcs) != len(self._offsets) - 1:
            raise ValueError(f"{path}: a postings table of the wrong shape")
        if len(blobs) != self.width * n or self.width not in (20, 32) \
                or self._base + self._offsets[-1] != len(self._map):
            raise ValueError(f"{path}: a postings table of the wrong size")

    def _bucket(self, b: int) -> dict[str, Any]:
        lo, hi = self._offsets[b], self._offsets[b + 1]
        data = self._map[self._base + lo:self._base + hi]
        if b not in self._sound:
            if crc32(data) != self._crcs[b]:
                raise ValueError(f"{self.path}: a damaged bucket")
            self._sound.add(b)
        return marshal.loads(data)  # type: ignore[no-any-return]

    def _find(self, key: str) -> tuple[bytes, bytes] | str | None:
        return self._bucket(crc32(key.encode()) % (len(self._offsets) - 1)).get(key)

    def stem(self, word: str) -> str | None:
        """Return the stem of a plain word its documents use, or None (kept as raw()'s
        answers are: a warm server asks the same words' stems at every search)."""
        key = _STEM + word
        asked = self._asked
        if key in asked:
            return asked[key]  # type: ignore[no-any-return]
        found = self._find(key)
        got = found if isinstance(found, str) else None
        if self._held + 64 > ASKED_BYTES:
            asked.clear()
            self._held = 0
        asked[key] = got
        self._held += 64
        return got

    def raw(self, field: str, term: str) -> tuple[bytes, bytes] | None:
        """Return (documents, frequencies) of a term in a field as stored (unsigned 32-bit
        integers, in the machine's order), or None."""
        key = _key(field, term)
        asked = self._asked
        if key in asked:
            return asked[key]  # type: ignore[no-any-return]
        found = self._find(key)
        got = found if isinstance(found, tuple) else None
        size = 64 if got is None else 64 + 2 * len(got[0])
        if self._held + size > ASKED_BYTES:
            asked.clear()
            self._held = 0
        asked[key] = got
        self._held += size
        return got

    def everything(self) -> dict[str, Any]:
        """Return every posting list, and every word's stem (to merge tables)."""
        out: dict[str, Any] = {}
        for b in range(len(self._offsets) - 1):
            out.update(self._bucket(b))
        return out

    def blob(self, i: int) -> str:
        """Return the blob id of document `i`."""
        w = self.width
        return self.blobs[w * i:w * i + w].hex()

    def close(self) -> None:
        """Unmap the file."""
        if isinstance(self._map, mmap.mmap):
            self._map.close()


class MemoryTable(Table):
    """Hold a table made in memory (in_memory()): its batch's postings and stems."""

    __slots__ = ("posts", "stems")

    #: field -> term -> (documents, frequencies), as Batch.posts holds them.
    posts: dict[str, dict[str, tuple[array[int], array[int]]]]
    #: word -> its stem, for (at least) every plain word of the documents.
    stems: dict[str, str]

    def stem(self, word: str) -> str | None:
        """Return the stem of a plain word, or None."""
        return self.stems.get(word)

    def raw(self, field: str, term: str) -> tuple[bytes, bytes] | None:
        """Return (documents, frequencies) of a term in a field, as a table file holds them."""
        got = self.posts.get(field)
        found = None if got is None else got.get(term)
        return None if found is None else (found[0].tobytes(), found[1].tobytes())

    def everything(self) -> dict[str, Any]:
        """Return every posting list, and every word's stem."""
        out: dict[str, Any] = dict(_as_bytes(self.posts))
        out.update((_STEM + w, stem) for w, stem in self.stems.items())
        return out

    def close(self) -> None:
        """Do nothing: there is nothing to unmap."""


class Weight:
    """Score a document by one term of one field: BM25F's terms for it, as Whoosh's
    searcher works them out, for both ways of scoring (Tables.scores, which inlines
    of() for a posting met more than once, and arrays.py's; test_arrays.py holds the
    two to the same floats)."""

    __slots__ = ("boost", "scorable", "idf", "per")

    #: K1 * (1 - B), the part of the length norm that does not grow with the length.
    K1B = K1 * (1 - B)

    def __init__(self, boost: float, scorable: bool, idf: float, per: float) -> None:
        #: The field's weight per occurrence.
        self.boost = boost
        #: Whether it is scored with the document's length (BM25) or by weight alone.
        self.scorable = scorable
        #: The term's inverse document frequency.
        self.idf = idf
        #: K1 * B / the field's average length.
        self.per = per

    def of(self, f: Numbers, length: Numbers) -> Numbers:
        """Score `f` occurrences in a field of `length` (numbers, or numpy's
        arrays of them: the same operations in the same order, so the same floats)."""
        weighted = f * self.boost
        return self.weighed(weighted, weighted * (K1 + 1), length)

    def weighed(self, weighted: Numbers, top: Numbers, length: Numbers) -> Numbers:
        """Work out of() from `f * boost` and `f * boost * (K1 + 1)`, which do not change with
        the collection (arrays.py keeps them for a table's postings)."""
        return self.idf * (top / (weighted + (self.K1B + self.per * length)))

    def once(self, lengths: list[int]) -> list[float]:
        """Score one occurrence by the document's length code: a term met once
        scores by that alone (256 scores, worked out as of() works them)."""
        return [self.of(1, lengths[c]) for c in range(256)]


class Tables:
    """Read all the tables of one state of the index as one collection of documents."""

    def __init__(self, paths: list[str]) -> None:
        #: The tables, in the order their documents were added.
        self.tables = [Table(p) for p in sorted(paths, key=order)]
        #: Where each table's documents start in the collection's numbering.
        self.starts: list[int] = []
        at = 0
        for t in self.tables:
            self.starts.append(at)
            at += t.n
        #: How many documents the collection holds (Whoosh's doc_count_all).
        self.count = at

    def plus(self, table: Table) -> Tables:
        """Return these tables and one more after them (documents not written yet: see
        cache/pending.py), sharing the tables (closing this one closes them)."""
        more = Tables([])
        more.tables = [*self.tables, table]
        more.starts = [*self.starts, self.count]
        more.count = self.count + table.n
        return more

    def stem(self, word: str) -> str | None:
        """Return the stem of a plain word some document uses, or None."""
        for t in self.tables:
            found = t.stem(word)
            if found is not None:
                return found
        return None

    def blob(self, doc: int) -> str:
        """Return the blob id of a document of the collection."""
        i = bisect_left(self.starts, doc + 1) - 1
        return self.tables[i].blob(doc - self.starts[i])

    def blobs_of(self, docs: list[int]) -> list[str]:
        """Return blob() of each document: a search names its best few hundred, and with one
        table (a long-lived process's, most often) each is a slice of its ids."""
        if len(self.tables) != 1:
            return [self.blob(d) for d in docs]
        t = self.tables[0]
        raw, w = t.blobs, t.width
        return [raw[w * d:w * d + w].hex() for d in docs]

    def scores(self, terms: Iterable[tuple[str, str]]) -> dict[int, float]:
        """Score by BM25F every document matching any (field, term), as Whoosh's searcher
        scores an Or of Term queries: the sum of each matching term's score."""
        out: dict[int, float] = {}
        for field, _term, weight, start, t, raw in self.matching(terms):
            docs, freqs = array("I"), array("I")
            docs.frombytes(raw[0])
            freqs.frombytes(raw[1])
            if not weight.scorable:
                for d, f in zip(docs, freqs, strict=True):
                    out[start + d] = out.get(start + d, 0.0) + f * weight.boost
                continue
            codes, lengths = t.codes[field], t.lengths
            once = weight.once(lengths)
            if max(freqs, default=1) == 1:
                got = [once[codes[d]] for d in docs]
            else:
                # Weight.of inlined: a call per posting costs a third more here.
                idf, boost, k1b, per = weight.idf, weight.boost, weight.K1B, weight.per
                got = [once[codes[d]] if f == 1 else
                       idf * ((f * boost * (K1 + 1))
                              / (f * boost + (k1b + per * lengths[codes[d]])))
                       for d, f in zip(docs, freqs, strict=True)]
            keys = docs if start == 0 else [start + d for d in docs]
            if not out:
                out = dict(zip(keys, got, strict=True))
                continue
            get = out.get
            for k, sc in zip(keys, got, strict=True):
                out[k] = get(k, 0.0) + sc
        return out

    def matching(self, terms: Iterable[tuple[str, str]]
                 ) -> Iterator[tuple[str, str, Weight, int, Table, tuple[bytes, bytes]]]:
        """List (field, term, how it scores, where the table's documents start, the table, the
        term's raw postings there) of each table holding each (field, term), in the
        order of the terms: what both ways of scoring (this one's and arrays.py's) add
        up. Not made unique: a term asked twice counts twice, as in Whoosh's Or."""
        count = self.count
        for field, term in terms:
            found = [(start, t, p) for start, t in zip(self.starts, self.tables, strict=True)
                     if (p := t.raw(field, term)) is not None]
            if not found:
                continue
            first = found[0][1]
            boost = first.boosts.get(field, 1.0)
            if not first.scorable.get(field, False):
                weight = Weight(boost, False, 0.0, 0.0)
            else:
                df = sum(len(p[0]) for _s, _t, p in found) // 4
                avgfl = self.tables[-1].totals.get(field, 0) / (count or 1) or 1
                weight = Weight(boost, True, log(count / (df + 1)) + 1, K1 * B / avgfl)
            for start, t, p in found:
                yield field, term, weight, start, t, p

    def close(self) -> None:
        """Unmap every table."""
        for t in self.tables:
            t.close()


def best(tables: Tables, scores: dict[int, float], allowed: Container[str],
          want: int) -> dict[str, float]:
    """Return the allowed blobs among the best-scored documents, as FullText._run takes them
    from Whoosh: the best max(3 * want, 60), then four times as many until `want` of
    them are allowed or none are left."""
    limit = max(want * 3, 60)
    while True:
        out: dict[str, float] = {}
        # Best first, the first added first among equals; only the cut is sorted: the
        # least score of the best `limit` (compared in C), then every document at or
        # above it in order.
        if len(scores) > limit:
            least = heapq.nlargest(limit, scores.values())[-1]
            cut = [(-v, d) for d, v in scores.items() if v >= least]
        else:
            cut = [(-v, d) for d, v in scores.items()]
        cut.sort()
        for score, doc in ((-v, d) for v, d in cut[:limit]):
            blob = tables.blob(doc)
            if blob in allowed:
                out[blob] = score
        if len(out) >= want or len(scores) <= limit:
            return out
        limit *= 4


class PlainScorer:
    """Score the postings tables in Python: the plain BM25F engine, which a command uses
    (numpy's import alone would cost more than its whole search). A long-lived process
    swaps in cache/arrays.Scorer, the same scores from numpy (FullText.numbers())."""

    #: Whether scores() gives arrays (arrays.Scored) that app/columns.py can rank.
    arrays = False

    def scores(self, tables: Tables, terms: Iterable[tuple[str, str]]) -> dict[int, float]:
        """Return Tables.scores: each matching document's BM25F score."""
        return tables.scores(terms)

    def best(self, tables: Tables, scores: dict[int, float], allowed: Container[str],
             want: int) -> dict[str, float]:
        """Return best(): the allowed blobs among the best-scored documents."""
        return best(tables, scores, allowed, want)
