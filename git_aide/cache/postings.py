"""The full-text index read without Whoosh: each commit to it also writes its documents'
postings here, in tables of our own.

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
from functools import lru_cache
from math import log
from zlib import crc32

from git_aide.cache import codec
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Iterator
    from typing import Any

#: The kind of file codec.py frames for a table, and its format: bumped with
#: index.FORMAT when its layout changes.
KIND = "postings"
FORMAT = 2
#: A table's file name ends so (Whoosh's own clean-up never touches such names).
SUFFIX = ".qt"
#: BM25F's free parameters, Whoosh's defaults (scoring.BM25F).
B = 0.75
K1 = 1.2
#: Terms per bucket, on average: a bucket is decoded whole.
PER_BUCKET = 8
#: More tables than this after a commit: the smaller ones are merged into one.
MAX_TABLES = 8
#: The smaller tables are merged at once, however few, while together they take at most
#: this many bytes (some 800 documents, a few ms to rewrite): each table costs a query a
#: lookup and a pass per term and field (about 60 us for one word), and a warm server
#: writes each hand edit as a table of its own.
EAGER_BYTES = 256 * 1024

#: One document's fields: field -> (length as Whoosh counts it, [(term, frequency)]).
Fields = dict[str, "tuple[int, Iterable[tuple[str, int]]]"]


def _key(field: str, term: str) -> str:
    return f"{field}\0{term}"


#: How a word's key starts in the buckets (no field name starts so).
_STEM = "\1"


class Batch:
    """The documents of one table, analysed: blob ids, lengths, postings by term."""

    def __init__(self) -> None:
        #: The blob ids, in document order.
        self.blobs: list[str] = []
        #: Each field's length per document, as Whoosh counts it (0: no length).
        self.lengths: dict[str, array[int]] = {}
        #: field -> term -> (documents, frequencies), documents ascending.
        self.posts: dict[str, dict[str, tuple[array[int], array[int]]]] = {}
        #: The plain words of the documents, each with the stem Whoosh gives it.
        self.stems: dict[str, str] = {}

    def add(self, blob: str, fields: Fields) -> None:
        """The next document: its blob id and its fields' lengths and terms."""
        i = len(self.blobs)
        self.blobs.append(blob)
        for field, (length, terms) in fields.items():
            lengths = self.lengths.get(field)
            if lengths is None:
                lengths = self.lengths[field] = array("I", bytes(4 * i))
                self.posts[field] = {}
            lengths.append(length)
            posts = self.posts[field]
            for term, freq in terms:
                entry = posts.get(term)
                if entry is None:
                    entry = posts[term] = (array("I"), array("I"))
                entry[0].append(i)
                entry[1].append(freq)


def build(batch: Batch, boosts: dict[str, float], scorable: dict[str, bool],
          quantize: tuple[Any, Any], totals: dict[str, int]) -> bytes:
    """A table of the batch's documents, in its order.

    `boosts`: each field's weight per occurrence; `scorable`: which fields have lengths
    (BM25) rather than a plain weight; `quantize`: Whoosh's length_to_byte and
    byte_to_length, since its searcher sees a document's length only as a byte says it;
    `totals`: each field's total length over the whole index as Whoosh counts it now
    (its merges add up the lengths as bytes say them, so only it can tell).
    """
    return _encode(*_parts(batch, scorable, quantize), totals, boosts, scorable, quantize,
                   batch.stems)


def _parts(batch: Batch, scorable: dict[str, bool], quantize: tuple[Any, Any]
           ) -> tuple[int, bytes, dict[str, bytes], dict[str, tuple[bytes, bytes]]]:
    """A batch's count, blob ids, length codes and postings, as a table holds them."""
    n, blobs, codes = _frame(batch, scorable, quantize)
    return n, blobs, codes, _as_bytes(batch.posts)


def _as_bytes(posts: dict[str, dict[str, tuple[array[int], array[int]]]]
              ) -> dict[str, tuple[bytes, bytes]]:
    """A batch's postings by key, as a table holds them."""
    return {_key(field, t): (d.tobytes(), f.tobytes())
            for field, terms in posts.items() for t, (d, f) in terms.items()}


def _frame(batch: Batch, scorable: dict[str, bool], quantize: tuple[Any, Any]
           ) -> tuple[int, bytes, dict[str, bytes]]:
    """A batch's count, blob ids and length codes, as a table holds them."""
    byte_of = quantize[0]
    n = len(batch.blobs)
    codes: dict[str, bytes] = {}
    for f, s in scorable.items():
        if s:
            lengths = batch.lengths.get(f, ())
            codes[f] = bytes(byte_of(v) if v else 0 for v in lengths).ljust(n, b"\0")
    blobs = b"".join(bytes.fromhex(b) for b in batch.blobs)
    return n, blobs, codes


@lru_cache(maxsize=4)
def _lengths_of(byte_to_length: Any) -> list[int]:
    """Return Whoosh's byte -> length table of the function that gives it, worked out
    once per function: a pure function's values, the same list each time (the numpy
    scorer keeps its array by that list)."""
    return [byte_to_length(b) for b in range(256)]


def in_memory(batch: Batch, boosts: dict[str, float], scorable: dict[str, bool],
              quantize: tuple[Any, Any], totals: dict[str, int]) -> Table:
    """build()'s table, made in memory and never encoded: a warm server makes one for
    the documents it keeps pending (pending.py), anew after each hand edit."""
    n, blobs, codes = _frame(batch, scorable, quantize)
    table = MemoryTable.__new__(MemoryTable)
    table.path = "<pending>"
    table.n = n
    table.blobs = blobs
    table.width = len(blobs) // n if n else 20
    table.codes = codes
    table.totals = totals
    table.boosts = boosts
    table.scorable = scorable
    table.lengths = _lengths_of(quantize[1])
    # Held, not copied: a search asks for a few of the terms (as bytes then), and a
    # warm server's analysis keeps the stem of every word it met, which grows with
    # each hand edit (a word's stem is the same whoever met it).
    table.posts = batch.posts
    table.stems = batch.stems
    return table


def _encode(n: int, blobs: bytes, codes: dict[str, bytes],
            posts: dict[str, tuple[bytes, bytes]], totals: dict[str, int],
            boosts: dict[str, float], scorable: dict[str, bool], quantize: tuple[Any, Any],
            stems: dict[str, str]) -> bytes:
    count = max(1, (len(posts) + len(stems)) // PER_BUCKET)
    buckets: list[dict[str, Any]] = [{} for _ in range(count)]
    for key, value in posts.items():
        buckets[crc32(key.encode()) % count][key] = value
    for word, stem in stems.items():
        key = _STEM + word
        buckets[crc32(key.encode()) % count][key] = stem
    data = [marshal.dumps(b) for b in buckets]
    offsets = array("I", [0])
    for chunk in data:
        offsets.append(offsets[-1] + len(chunk))
    # Each bucket's CRC-32 after the offsets: a bucket is checked as it is read.
    offsets.extend(crc32(chunk) for chunk in data)
    # Whoosh's byte -> length table, so that reading needs no Whoosh.
    lengths = _lengths_of(quantize[1])
    header = marshal.dumps((n, blobs, codes, totals, boosts, scorable, lengths,
                            offsets.tobytes()))
    return b"".join([codec.frame(KIND, FORMAT, header), *data])


#: How many bytes of postings a table keeps once asked (Table.raw) before it starts again.
ASKED_BYTES = 4 << 20


class Table:
    """One table file, mapped: its documents, and its postings found bucket by bucket."""

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

    def _find(self, key: str) -> Any:
        return self._bucket(crc32(key.encode()) % (len(self._offsets) - 1)).get(key)

    def stem(self, word: str) -> str | None:
        """The stem of a plain word its documents use, or None."""
        found = self._find(_STEM + word)
        return found if isinstance(found, str) else None

    def raw(self, field: str, term: str) -> tuple[bytes, bytes] | None:
        """(documents, frequencies) of a term in a field as stored (unsigned 32-bit
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
        """Every posting list, and every word's stem (to merge tables)."""
        out: dict[str, Any] = {}
        for b in range(len(self._offsets) - 1):
            out.update(self._bucket(b))
        return out

    def blob(self, i: int) -> str:
        """The blob id of document `i`."""
        w = self.width
        return self.blobs[w * i:w * i + w].hex()

    def close(self) -> None:
        """Unmap the file."""
        if isinstance(self._map, mmap.mmap):
            self._map.close()


class MemoryTable(Table):
    """A table made in memory (in_memory()): its batch's postings and stems."""

    __slots__ = ("posts", "stems")

    #: field -> term -> (documents, frequencies), as Batch.posts holds them.
    posts: dict[str, dict[str, tuple[array[int], array[int]]]]
    #: word -> its stem, for (at least) every plain word of the documents.
    stems: dict[str, str]

    def stem(self, word: str) -> str | None:
        """The stem of a plain word, or None."""
        return self.stems.get(word)

    def raw(self, field: str, term: str) -> tuple[bytes, bytes] | None:
        """(documents, frequencies) of a term in a field, as a table file holds them."""
        got = self.posts.get(field)
        found = None if got is None else got.get(term)
        return None if found is None else (found[0].tobytes(), found[1].tobytes())

    def everything(self) -> dict[str, Any]:
        """Every posting list, and every word's stem."""
        out: dict[str, Any] = dict(_as_bytes(self.posts))
        out.update((_STEM + w, stem) for w, stem in self.stems.items())
        return out

    def close(self) -> None:
        """Nothing to unmap."""


class Weight:
    """How one term of one field scores a document: BM25F's terms for it, as Whoosh's
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

    def of(self, f: Any, length: Any) -> Any:
        """The score of `f` occurrences in a field of `length` (numbers, or numpy's
        arrays of them: the same operations in the same order, so the same floats)."""
        weighted = f * self.boost
        return self.weighed(weighted, weighted * (K1 + 1), length)

    def weighed(self, weighted: Any, top: Any, length: Any) -> Any:
        """of() from `f * boost` and `f * boost * (K1 + 1)`, which do not change with
        the collection (arrays.py keeps them for a table's postings)."""
        return self.idf * (top / (weighted + (self.K1B + self.per * length)))

    def once(self, lengths: list[int]) -> list[float]:
        """The score of one occurrence by the document's length code: a term met once
        scores by that alone (256 scores, worked out as of() works them)."""
        return [self.of(1, lengths[c]) for c in range(256)]


class Tables:
    """All the tables of one state of the index, read as one collection of documents."""

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
        """These tables and one more after them (documents not written yet: see
        cache/pending.py), sharing the tables (closing this one closes them)."""
        more = Tables([])
        more.tables = [*self.tables, table]
        more.starts = [*self.starts, self.count]
        more.count = self.count + table.n
        return more

    def stem(self, word: str) -> str | None:
        """The stem of a plain word some document uses, or None."""
        for t in self.tables:
            found = t.stem(word)
            if found is not None:
                return found
        return None

    def blob(self, doc: int) -> str:
        """The blob id of a document of the collection."""
        i = bisect_left(self.starts, doc + 1) - 1
        return self.tables[i].blob(doc - self.starts[i])

    def blobs_of(self, docs: list[int]) -> list[str]:
        """blob() of each document: a search names its best few hundred, and with one
        table (a long-lived process's, most often) each is a slice of its ids."""
        if len(self.tables) != 1:
            return [self.blob(d) for d in docs]
        t = self.tables[0]
        raw, w = t.blobs, t.width
        return [raw[w * d:w * d + w].hex() for d in docs]

    def scores(self, terms: Iterable[tuple[str, str]]) -> dict[int, float]:
        """BM25F score of every document matching any (field, term), as Whoosh's searcher
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
        """(field, term, how it scores, where the table's documents start, the table, the
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


def order(path: str) -> tuple[int, str]:
    """Tables are named by when they were written (name()): older documents first."""
    name = os.path.basename(path)
    try:
        return int(name.split("-")[1].split(".")[0]), name
    except (IndexError, ValueError):
        return 0, name


def name(now_ns: int, existing: Iterable[str]) -> str:
    """A new table's file name, after every existing one's even if the clock went back
    (the last table carries the index's current total lengths)."""
    latest = max((order(n)[0] for n in existing), default=0)
    return f"postings-{max(now_ns, latest + 1)}{SUFFIX}"


def write(root: str, ix: Any, batch: Batch, fields: tuple[str, ...]) -> None:
    """Write a batch of documents just committed to Whoosh's index `ix` (in folder
    `root`) as a table, with the weights and lengths Whoosh's own `fields` give them
    (the batch's terms are Whoosh's: segment.Analysis); merge the smaller tables when
    there are too many. Called under the index's lock."""
    import time

    from whoosh.util.numeric import byte_to_length, length_to_byte

    quantize = (length_to_byte, byte_to_length)
    schema = ix.schema
    with ix.reader() as reader:
        totals = {f: int(reader.field_length(f)) for f in fields if schema[f].scorable}
    boosts = {f: float(schema[f].format.field_boost) for f in fields}
    scorable = {f: bool(schema[f].scorable) for f in fields}

    def names() -> list[str]:
        return [n for n in os.listdir(root) if n.endswith(SUFFIX)]

    _put(root, name(time.time_ns(), names()),
         build(batch, boosts, scorable, quantize, totals))
    tables = sorted(names(), key=lambda n: os.path.getsize(os.path.join(root, n)))
    if len(tables) > MAX_TABLES or (len(tables) > 2 and sum(
            os.path.getsize(os.path.join(root, n)) for n in tables[:-1]) <= EAGER_BYTES):
        # All but the largest are merged, unless together they outgrow it: each
        # document is then rewritten a few times over the index's life, not on every
        # commit.
        small = tables[:-1]
        if sum(os.path.getsize(os.path.join(root, n)) for n in small) \
                > os.path.getsize(os.path.join(root, tables[-1])):
            small = tables
        merged = merge([os.path.join(root, n) for n in small], quantize, totals)
        # Under a new name, last in order (it carries the current totals): a file the
        # id table names is never rewritten, only removed.
        _put(root, name(time.time_ns(), names()), merged)
        for n in small:
            os.unlink(os.path.join(root, n))


def _put(root: str, name: str, data: bytes) -> None:
    # Not synced: the id table vouches for the file by its checksum, so a file a crash
    # left empty rebuilds the index instead of misleading it.
    files.write_atomic(os.path.join(root, name), data, sync=False)


def merge(paths: list[str], quantize: tuple[Any, Any], totals: dict[str, int]) -> bytes:
    """One table holding the documents of these, in their order."""
    tables = Tables(paths)
    try:
        first = tables.tables[0]
        blobs = b"".join(t.blobs for t in tables.tables)
        fields = {f for t in tables.tables for f in t.codes}
        codes = {f: b"".join(t.codes.get(f, bytes(t.n)) for t in tables.tables)
                 for f in fields}
        posts: dict[str, tuple[array[int], array[int]]] = {}
        stems: dict[str, str] = {}
        for start, t in zip(tables.starts, tables.tables, strict=True):
            for key, value in t.everything().items():
                if key.startswith(_STEM):
                    stems[key[1:]] = value
                    continue
                docs, freqs = value
                entry = posts.get(key)
                if entry is None:
                    entry = posts[key] = (array("I"), array("I"))
                moved = array("I")
                moved.frombytes(docs)
                entry[0].extend(d + start for d in moved)
                entry[1].frombytes(freqs)
        return _encode(tables.count, blobs, codes,
                       {k: (d.tobytes(), f.tobytes()) for k, (d, f) in posts.items()},
                       totals, first.boosts, first.scorable, quantize, stems)
    finally:
        tables.close()


def best(tables: Tables, scores: dict[int, float], allowed: Container[str],
          want: int) -> dict[str, float]:
    """The allowed blobs among the best-scored documents, as FullText._run takes them
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
