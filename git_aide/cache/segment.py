"""A large batch of documents written in one pass: each analysed once, its postings
gathered by term, then written as one Whoosh segment and one postings table.

Whoosh's own writer (`add_document`) analyses every field of every document, pools
each posting as a tuple, sorts the pool at the commit, and asks its per-document reader
for a document's length once per posting; postings.py then analysed every field again
for its table. That made a first index of 10,000 memories cost ~10 s. Here:

- the word fields are analysed once per distinct token (analysis.Analyser: Whoosh's
  own analyzer, so the terms are Whoosh's), the scope and the tags once per distinct
  value, by the field itself;
- the postings are gathered already grouped by field and term (arrays of documents and
  frequencies), which is what the postings table stores too;
- the segment is written through Whoosh's own writer and codec: its per-document
  writer gets each document's stored fields and lengths as `add_document` gives them,
  its field writer each term's postings in the order the pool would have sorted them,
  with the weights, values and lengths `add_document` and the codec's `add_postings`
  would have passed; the writer's commit then closes the segment and writes the TOC as
  for any commit. tests/cache/test_one_pass.py holds the result to what Whoosh's
  `add_document` makes of the same documents.

Only fields whose format is Whoosh's Frequency take the gathered path (every field the
schema queries); any other field (the blob id) is indexed by the field itself.
"""

from __future__ import annotations

import re
from array import array

from git_aide.cache import blocks, postings_build
from git_aide.cache.analysis import Analyser

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    from whoosh.codec.base import Segment
    from whoosh.codec.whoosh3 import W3PerDocWriter
    from whoosh.fields import Schema
    from whoosh.writing import SegmentWriter

#: The fields analysed word by word (the analysis.analyzer chain).
WORDS = ("what", "why", "context_label")
#: The fields analysed by the field itself, once per distinct value (the tags: per tag).
VALUES = ("scope", "tags")
#: The most word fields' texts an Analysis that remembers keeps (their terms).
KEPT_TEXTS = 256
#: What Whoosh's comma-separated tokenizer matches (a KEYWORD field with commas).
_COMMAS = re.compile(r"[^,]+")


def one_pass_fields(schema: Schema, formats: ModuleType) -> bool:
    """Tell whether every queried field of the schema is one the gathered path writes as
    `add_document` would (Frequency postings; no vectors, spelling, column or stored
    value)."""
    for name in (*WORDS, *VALUES):
        f = schema[name]
        if type(f.format) is not formats.Frequency or f.vector or f.column_type \
                or f.separate_spelling() or f.stored:
            return False
    return True


class Analysis:
    """Gather the terms of the queried fields of documents, as Whoosh's fields give them."""

    def __init__(self, w: ModuleType, schema: Schema, remember: bool = False) -> None:
        self._words = Analyser(w)
        #: (field, text) -> its length and terms, for the word fields (`remember`: a warm
        #: server's pending documents, analysed anew at each hand edit, whose other
        #: fields are most often the same text as at the last); None: not kept.
        self._by_text: dict[tuple[str, str], tuple[int, list[tuple[str, int]]]] | None = \
            {} if remember else None
        self._schema = schema
        self._scorable = {n: bool(schema[n].scorable) for n in (*WORDS, *VALUES)}
        #: (field, value) -> its terms, for the fields analysed by value.
        self._by_value: dict[tuple[str, str], list[tuple[str, int]]] = {}
        #: Whether the tags' analysis starts by cutting at commas (analysis.schema()).
        first = getattr(schema["tags"].analyzer, "items", [None])[0]
        self._per_tag = getattr(getattr(first, "expression", None), "pattern", None) \
            == _COMMAS.pattern

    @property
    def stems(self) -> dict[str, str]:
        """Return the stem of every plain word of the documents analysed so far."""
        return self._words.stems

    def fields(self, values: dict[str, str]) -> postings_build.Fields:
        """Return each queried field's length (as Whoosh counts it: 0 when it keeps none) and
        terms, for a document's values as `add_document` gets them."""
        out: postings_build.Fields = {}
        kept = self._by_text
        for name in WORDS:
            if kept is None:
                length, terms = self._words.terms(values[name])
                out[name] = (length if self._scorable[name] else 0, terms.items())
                continue
            key = (name, values[name])
            got = kept.get(key)
            if got is None:
                length, counts = self._words.terms(key[1])
                if len(kept) >= KEPT_TEXTS:
                    kept.clear()
                got = kept[key] = (length if self._scorable[name] else 0,
                                   list(counts.items()))
            out[name] = got
        for name in VALUES:
            found = self._tags(values[name]) if name == "tags" \
                else self._value(name, values[name])
            out[name] = (sum(n for _t, n in found) if self._scorable[name] else 0, found)
        return out

    def _value(self, name: str, value: str) -> list[tuple[str, int]]:
        """Return a value's terms and their frequencies, as the field `name` gives them."""
        key = (name, value)
        found = self._by_value.get(key)
        if found is None:
            found = self._by_value[key] = [
                (t.decode("utf-8"), n) for t, n, _w, _v in self._schema[name].index(value)]
            if name != "tags":
                self._words.note_stems(value)
        return found

    def _tags(self, value: str) -> list[tuple[str, int]]:
        """Return the terms of the tags (joined by commas) and their frequencies, in the order
        the field gives them. Its tokenizer cuts at each comma and looks at one tag at a
        time: the terms of each tag, asked once per distinct tag (each memory has its own
        set of them), add up to the terms of them all."""
        if not self._per_tag:
            return self._value("tags", value)
        parts = _COMMAS.findall(value)
        if len(parts) == 1:
            return self._value("tags", parts[0])
        counts: dict[str, int] = {}
        for part in parts:
            for term, n in self._value("tags", part):
                counts[term] = counts.get(term, 0) + n
        return list(counts.items())


def add_all(writer: SegmentWriter, docs: list[tuple[str, dict[str, str]]], analysis: Analysis,
            progress: Callable[[int], None] | None = None) -> postings_build.Batch:
    """Write the documents (blob id, the fields' values as `add_document` would get
    them) into a new Whoosh `writer`: their stored fields and lengths, then their
    postings; the caller commits (without merging: nothing went into the writer's
    pool). Returns the batch for the postings table."""
    schema = writer.schema
    fobjs = [(n, schema[n]) for n in sorted(schema.names())]
    batch = postings_build.Batch()
    # Postings of the fields left to Whoosh: field -> term bytes -> [(doc, weight, value)].
    other: dict[str, dict[bytes, list[tuple[int, float, bytes]]]] = {}
    perdoc = writer.perdocwriter
    if writer.docnum != 0:
        raise ValueError("one pass needs a writer of its own segment")
    from whoosh.codec.whoosh3 import W3PerDocWriter

    bulk = type(perdoc) is W3PerDocWriter
    # The fields' lengths of the fields left to Whoosh, and each document's stored
    # fields, for the per-document writer after the loop (`bulk`).
    lengths: dict[str, array[int]] = {}
    stored: list[dict[str, str]] = []
    for i, (blob, values) in enumerate(docs):
        fields = analysis.fields(values)
        batch.add(blob, fields)
        if not bulk:
            perdoc.start_doc(i)
        sf: dict[str, str] = {}
        for name, f in fobjs:
            if name in fields:
                if not bulk and fields[name][0]:  # nothing is kept without a length
                    perdoc.add_field(name, f, None, fields[name][0])
                continue
            length = 0
            for tbytes, freq, weight, vbytes in f.index(values[name]):
                length += freq
                other.setdefault(name, {}).setdefault(tbytes, []).append((i, weight, vbytes))
            if bulk:
                if f.stored:
                    sf[name] = values[name]
                if f.scorable:
                    lengths.setdefault(name, array("I", bytes(4 * i))).append(length)
            else:
                perdoc.add_field(name, f, values[name] if f.stored else None,
                                 length if f.scorable else 0)
        if bulk:
            stored.append(sf)
        else:
            perdoc.finish_doc()
        if progress is not None and i % 100 == 0:
            progress(i // 2)  # analysing is about half of the work, writing the rest
    if bulk:
        _per_doc(perdoc, [n for n, _f in fobjs], {**batch.lengths, **lengths}, stored)
    batch.stems = analysis.stems
    half = len(docs) // 2
    _write_postings(writer, batch, other, None if progress is None else
                    lambda share: progress(half + int(share * (len(docs) - half))))
    writer.docnum = len(docs)
    writer._added = True
    return batch


def _per_doc(perdoc: W3PerDocWriter, names: list[str], lengths: dict[str, array[int]],
             stored: list[dict[str, str]]) -> None:
    """Write every document's field lengths and stored fields into Whoosh's per-document
    writer `perdoc` at once, leaving it as start_doc(), add_field() of each field (in
    `names`' order) and finish_doc() for each document would: a length column is made
    at the first document with a length in it, and written up to the last; the total
    lengths are kept in the same order. `lengths`: each field's lengths as
    `add_document` counts them (0: none); `stored`: each document's stored fields."""
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
    from whoosh.util.numeric import length_to_byte

    n = len(stored)
    firsts: list[tuple[int, int, str]] = []
    for at, name in enumerate(names):
        got = lengths.get(name)
        if got is None:
            continue
        first = next((d for d, v in enumerate(got) if v), None)
        if first is not None:
            firsts.append((first, at, name))
    for _first, _at, name in sorted(firsts):
        got = lengths[name]
        perdoc._create_column(_lenfield(name), LENGTHS_COLUMN)
        column = perdoc._get_column(_lenfield(name))
        code = {v: length_to_byte(v) for v in set(got)}
        code[0] = 0  # no length: nothing added, the column's default byte
        codes = bytes(map(code.__getitem__, got))
        last = len(codes.rstrip(b"\0"))  # a zero byte is the column's default: not added
        column._dbfile.write(codes[:last])
        column._count = last
        perdoc._fieldlengths[name] += sum(got)
    column = perdoc._get_column("_stored")
    for i, sf in enumerate(stored):
        if sf:
            column.add(i, sf)
    perdoc._doccount = n
    perdoc._docnum = n - 1 if n else None
    perdoc._storedfields = {} if n else None
    perdoc._indoc = False


def _write_postings(writer: SegmentWriter, batch: postings_build.Batch,
                    other: dict[str, dict[bytes, list[tuple[int, float, bytes]]]],
                    progress: Callable[[float], None] | None) -> None:
    """Write every term's postings, field by field and term by term in byte order, as
    Whoosh's pool would hand them to its codec's field writer (a large segment's last
    terms worked out by a child process meanwhile: blocks.py); `progress` is told the
    share of the postings written, now and then."""
    from whoosh.codec.whoosh3 import W3PostingsWriter
    from whoosh.system import pack_uint
    from whoosh.util.numeric import byte_to_length, length_to_byte

    schema = writer.schema
    fw = writer.fieldwriter
    # What the codec's add_postings passes as a posting's length: what the document's
    # length byte says (None for a zero byte; 0 for a field that keeps no lengths).
    said: dict[str, list[int | None]] = {}
    for name, exact in batch.lengths.items():
        if schema[name].scorable:
            said[name] = [byte_to_length(b) if (b := length_to_byte(v)) else None
                          for v in exact]
    packed: dict[int, bytes] = {}
    # Every term in the order written: (field, term bytes, its postings' rows, or its
    # text in the batch).
    terms: list[tuple[str, bytes, Any]] = []
    names = sorted({*batch.posts, *other})
    for name in names:
        if name in other:
            terms += [(name, t, rows) for t, rows in sorted(other[name].items())]
        else:
            got = batch.posts[name]
            terms += [(name, t, term) for t, term in sorted((t.encode("utf-8"), t) for t in got)]
            for _docs, freqs in got.values():
                for n in set(freqs).difference(packed):
                    packed[n] = pack_uint(n)
    boosts = {name: schema[name].format.field_boost for name in batch.posts}

    def postings(i: int) -> blocks.Postings:
        name, _t, key = terms[i]
        if name in other:
            return (array("I", [r[0] for r in key]), [r[1] for r in key], [r[2] for r in key],
                    None)
        docs, freqs = batch.posts[name][key]
        boost = boosts[name]
        return (docs, [n * boost for n in freqs], list(map(packed.__getitem__, freqs)),
                said.get(name))

    # Whoosh's postings writer takes one posting a call (a few µs each): its own
    # writer's blocks are worked out here as add_posting and _write_block make them.
    bulk = type(fw._codec.postings_writer(None)) is W3PostingsWriter
    if bulk:
        block = {name: blocks.params(fw._codec.postings_writer(None), schema[name].format)
                 for name in {n for n, _t, _k in terms}}
        params = [block[name] for name, _t, _k in terms]
        costs = [len(key) + blocks.TERM_COST if name in other
                 else len(batch.posts[name][key][0]) + blocks.TERM_COST
                 for name, _t, key in terms]
        shared = blocks.Shared(postings, params, blocks.split(costs))
    total = sum(len(d) for terms_ in batch.posts.values() for d, _f in terms_.values()) or 1
    done = 0
    step = total // 50 + 1
    at = 0
    try:
        for field in names:  # each one, even one without terms: the field map names it
            fw.start_field(field, schema[field])
            while at < len(terms) and terms[at][0] == field:
                fw.start_term(terms[at][1])
                if bulk:
                    blocks.put(fw._postwriter, shared.take(at))
                else:
                    docs, weights, values, lengths = postings(at)
                    of = [lengths[d] for d in docs] if lengths is not None \
                        else [0] * len(docs)
                    for row in zip(docs, weights, values, of, strict=True):
                        fw.add(*row)
                fw.finish_term()
                if field not in other:
                    n = len(batch.posts[field][terms[at][2]][0])
                    if progress is not None and (done + n) // step > done // step:
                        progress((done + n) / total)
                    done += n
                at += 1
            fw.finish_field()
    finally:
        if bulk:
            shared.close()


def merge_small_ones(writer: SegmentWriter, segments: list[Segment]) -> list[Segment]:
    """Merge every segment but the largest into the new one (a Whoosh merge policy), so
    the index has two segments after (Whoosh's MERGE_SMALL may leave MAX_SEGMENTS, and
    merge again at the next addition)."""
    from whoosh.reading import SegmentReader

    keep = max(segments, key=lambda seg: seg.doc_count_all(), default=None)
    for seg in segments:
        if seg is not keep:
            reader = SegmentReader(writer.storage, writer.schema, seg)
            writer.add_reader(reader)
            reader.close()
    return [keep] if keep is not None else []
