"""Write the postings tables (postings.py reads them): each batch of documents Whoosh
indexes is also written as one table of its terms, lengths and blob ids, and the smaller
tables are merged when there are too many. A warm server's pending documents make a
table in memory (in_memory()) that is never written.
"""

from __future__ import annotations

import marshal
import os
from array import array
from functools import lru_cache
from zlib import crc32

from git_aide.cache import codec
from git_aide.cache.postings import (
    _STEM,
    FORMAT,
    KIND,
    SUFFIX,
    MemoryTable,
    Table,
    Tables,
    _as_bytes,
    order,
)
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from whoosh.index import Index

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


class Batch:
    """Hold the documents of one table, analysed: blob ids, lengths, postings by term."""

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
        """Add the next document: its blob id and its fields' lengths and terms."""
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
    """Build a table of the batch's documents, in its order.

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
    """Return a batch's count, blob ids, length codes and postings, as a table holds them."""
    n, blobs, codes = _frame(batch, scorable, quantize)
    return n, blobs, codes, _as_bytes(batch.posts)


def _frame(batch: Batch, scorable: dict[str, bool], quantize: tuple[Any, Any]
           ) -> tuple[int, bytes, dict[str, bytes]]:
    """Return a batch's count, blob ids and length codes, as a table holds them."""
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
def _lengths_of(byte_to_length: Callable[[int], int]) -> list[int]:
    """Return Whoosh's byte -> length table of the function that gives it, worked out
    once per function: a pure function's values, the same list each time (the numpy
    scorer keeps its array by that list)."""
    return [byte_to_length(b) for b in range(256)]


def in_memory(batch: Batch, boosts: dict[str, float], scorable: dict[str, bool],
              quantize: tuple[Any, Any], totals: dict[str, int]) -> Table:
    """Make build()'s table in memory, never encoded: a warm server makes one for
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


def name(now_ns: int, existing: Iterable[str]) -> str:
    """Name a new table's file, after every existing one's even if the clock went back
    (the last table carries the index's current total lengths)."""
    latest = max((order(n)[0] for n in existing), default=0)
    return f"postings-{max(now_ns, latest + 1)}{SUFFIX}"


def write(root: str, ix: Index, batch: Batch, fields: tuple[str, ...]) -> None:
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
    """Merge these into one table holding their documents, in their order."""
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


