"""The full-text index: one Whoosh index keyed by blob id.

A document is one blob, so one index serves the working tree, the index and every
revision: a search asks Whoosh for matching blob ids and keeps those the chosen source
lists. Adding is incremental (only blobs the index lacks), and the set of indexed ids
is kept beside the index (idtable.py) so that finding what is missing needs no Whoosh
search; that table also vouches for the index's files, and an index it does not vouch
for is rebuilt (index_folder.py opens, checks and creates it).

Queries are never parsed with Whoosh's query language: the text is cut into words by
the same analyzer that indexed the documents, so quotes, `*`, `OR` or `col:x` are
just words and nothing can raise a syntax error. Fragments of words are not indexed
(stems are): search.py looks for them in the memories themselves.

Filling, asking the index and deferring what a warm process would add share one
state; the id table is idtable.py's, a first index written in one pass and the merge
policy segment.py's, the analysis analysis.py's, the tables a search reads and the cut
of the best postings.py's (which postings_build.py writes), the documents a warm
process defers pending.py's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Container, Iterable

from git_aide.cache import analysis, pending, postings, postings_build
from git_aide.cache.analysis import prepare
from git_aide.cache.index_folder import IndexFolder
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from whoosh.fields import Schema
    from whoosh.index import Index
    from whoosh.query import Query

    from git_aide.cache.arrays import Scorer

#: Documents per segment of Whoosh's own writer; a batch of more is written in one pass.
BATCH = 10_000
#: Whether a first index and a large batch are written in one pass (segment.py);
#: tests turn it off to compare with Whoosh's own writer.
ONE_PASS = True
#: Segments in the index before an addition merges the small ones (Whoosh's MERGE_SMALL);
#: fewer, and a small addition is committed as a segment of its own, so that the total
#: field lengths Whoosh records are the last ones plus the new documents' (pending.py).
MAX_SEGMENTS = 10
#: How long a writer waits for another process's Whoosh lock, in seconds.
WRITER_TIMEOUT = 30.0
#: The fields a query looks in.
QUERIED = ("what", "why", "context_label", "scope", "tags")
#: The most query texts whose terms an index keeps.
KEPT_QUERIES = 256


def _values(blob: str, r: dict[str, Any]) -> dict[str, str]:
    """Return a memory's fields as the index gets them."""
    return {"blob": blob, "what": prepare(r["what"]), "why": prepare(r["why"] or ""),
            "context_label": prepare(r["context_label"] or ""),
            "tags": ",".join(r["tags"]), "scope": r["scope"] or ""}


class FullText(IndexFolder):
    """Add memories to the Whoosh index in `<cache>/whoosh` and search it (from the
    postings tables when they answer); IndexFolder opens it, and rebuilds it from
    scratch when it is unusable."""

    def __init__(self, cache_root: str) -> None:
        super().__init__(cache_root)
        #: The last query's (field, term) pairs and the scores the tables gave them.
        self._scored: tuple[list[tuple[str, str]], Any] | None = None
        #: The (field, term) pairs of the queries asked (_pairs), by text.
        self._pairs_of: dict[str, list[tuple[str, str]]] = {}
        #: missing()'s last answer for a dict: (the dict, the ids held, the answer).
        self._missing_of: tuple[dict[str, Any], set[str], list[str]] | None = None
        #: Whether a small addition is kept in memory until write_pending() (a
        #: long-lived process: cache/pending.py), rather than written at once.
        self.deferring = False
        #: What this process would have written and has not yet.
        self.pending = pending.Pending()
        #: The index's schema as this version makes it, once the pending documents
        #: needed it (their analysis is kept with it).
        self._schema: Schema | None = None
        #: What scores the postings tables: the plain engine, or the numpy one a
        #: long-lived process chooses once (numbers()).
        self._scorer: postings.PlainScorer | Scorer = postings.PlainScorer()

    def numbers(self) -> bool:
        """Score with numpy from now on (a long-lived process: arrays.py says why), when
        it is installed; whether it is."""
        try:
            from git_aide.cache import arrays
        except ImportError:
            return False
        self._scorer = arrays.Scorer()
        self._scored = None
        return True

    def refresh(self) -> None:
        """Forget which blobs the index was seen to hold: a long-lived process (the MCP
        server) then sees what other processes added or rebuilt since."""
        self._have = None
        self._forget_tables()

    def _forget_tables(self) -> None:
        super()._forget_tables()
        self._scored = None

    def _collection(self) -> postings.Tables | None:
        """Return the tables on disk, and after them the pending documents the call under way
        would have written (pending.py); None without tables."""
        tables = self._postings()
        if tables is None or not (self.pending.live and self.pending.docs):
            return tables
        if self._schema is None:
            # The stamp vouches that the schema on disk is this one, which Whoosh would
            # read from its TOC file again each time it is asked.
            self._schema = analysis.schema(self._w)
        return tables.plus(self.pending.table(self._w, self._schema, tables, _values))

    def begin(self) -> None:
        """Begin a new call of a long-lived process: the documents pending count only once
        it asks for them again (add())."""
        if self.pending.live:
            self._scored = None
        self.pending.begin()

    def write_pending(self) -> int:
        """Write what was kept pending (the process is idle); how many were written.
        files.LockBusy when another process is writing the index: nothing is waited
        for, and the documents stay pending."""
        docs = self.pending.take()
        self._scored = None
        if not docs:
            return 0
        deferring, self.deferring = self.deferring, False
        self.lock_wait = 0.0
        try:
            return self.add(docs)
        except files.LockBusy:
            self.pending.restore(docs)
            raise
        finally:
            self.deferring = deferring
            self.lock_wait = None

    def _may_defer(self, count: int) -> bool:
        """Tell whether `count` new documents may stay pending: few, added to an index on
        disk that has its tables, by a commit that would merge no segments."""
        if not self.deferring or self.in_memory or count > pending.MOST or not self._have:
            return False
        return self._segments() < MAX_SEGMENTS and self._postings() is not None

    def _segments(self) -> int:
        """Count the segments of the state the id table vouched for (each is one
        compound file); an index in memory, for one command, counts none."""
        return sum(1 for n in self._state if n.endswith(".seg"))

    # -- writing -------------------------------------------------------------------

    def missing(self, blobs: Iterable[str]) -> list[str]:
        """Return the blob ids the index does not hold yet. Of a dict (a view's blob ids, which
        never change), the answer is kept while the index holds the same."""
        if not self._checked():
            self._open()
        have = self._have or set()
        if isinstance(blobs, set | frozenset):
            return list(blobs - have)
        if isinstance(blobs, dict):
            kept = self._missing_of
            if kept is not None and kept[0] is blobs and kept[1] is have:
                return list(kept[2])
            found = list(blobs.keys() - have)  # in C: a view of 100,000 in a few ms
            self._missing_of = (blobs, have, found)
            return list(found)
        return [b for b in dict.fromkeys(blobs) if b not in have]

    @property
    def LockError(self) -> type[Exception]:  # noqa: N802 -- named like the exception it is
        """Return the exception a writer raises when another process holds the lock too long."""
        return self._w.index.LockError

    def rebuild(self, why: str, in_memory: bool = False) -> None:
        """Start again from an empty index (after damage), and say so once; `in_memory`:
        one in memory, for the rest of this command."""
        self.notices.append(why)
        self.in_memory = self.in_memory or in_memory
        self._ix = None
        self._have = None
        self._forget_tables()
        # The call's work is done again on the new index, which writes what it needs.
        self.pending.take()
        if self.in_memory:
            from whoosh.filedb.filestore import RamStorage

            self._ix = RamStorage().create_index(analysis.schema(self._w))
            self._have = set()
            return
        try:
            with self._lock():
                self._create()
        except OSError as e:
            self._in_memory(e)

    def add(self, docs: list[tuple[str, dict[str, Any]]],
            progress: Callable[[int], None] | None = None) -> int:
        """Index (blob id, record) pairs the index lacks; returns how many were added.

        A first index, or a batch of more than BATCH documents, is written in one pass
        as one segment (segment.py). Smaller batches go through Whoosh's writer in
        segments of at most BATCH documents, each committed as a segment of its own
        until MAX_SEGMENTS, then with Whoosh's merging. A process that defers (a warm
        server) keeps a few pending instead (pending.py): they count as added.
        """
        if not docs and not self.deferring:
            return 0
        if self.deferring and self._checked():
            have = self._have or set()
            todo = [(blob, r) for blob, r in docs if blob not in have]
            if self._may_defer(self.pending.adding(todo)):
                self.pending.set(todo)
                self._scored = None
                return len(todo)
            if self.pending.live and self.pending.docs:
                # Written now, after what this call deferred: as the command line
                # would have written its first addition, then this one.
                docs = [*self.pending.take(), *docs]
                self._scored = None
        if not docs:
            return 0
        ix = self._open()
        have = self._have or set()
        todo = [(blob, r) for blob, r in docs if blob not in have]
        if not todo:
            return 0
        if ONE_PASS and (not have or len(todo) > BATCH):
            return self._add_batch(ix, todo, 0, progress, merge=None)
        added = 0
        for start in range(0, len(todo), BATCH):
            added += self._add_batch(ix, todo[start:start + BATCH], start, progress,
                                     merge=len(todo) <= BATCH)
        return added

    def _add_batch(self, ix: Index, docs: list[tuple[str, dict[str, Any]]], offset: int,
                   progress: Callable[[int], None] | None, merge: bool | None) -> int:
        # Under our lock, so that the id table written after the commit describes
        # exactly the state the commit made.
        with self._lock():
            return self._add_locked(ix, docs, offset, progress, merge)

    def _add_locked(self, ix: Index, docs: list[tuple[str, dict[str, Any]]], offset: int,
                    progress: Callable[[int], None] | None, merge: bool | None) -> int:
        """Add the documents; `merge` None: in one pass (segment.py), when the schema
        allows it."""
        if not self.in_memory:
            # Another process may have added some since this one opened the index.
            ix = self._ix = self._w.index.open_dir(self.root)
            if not self._verified(locked=True):
                raise ValueError("the full-text index changed behind git-aide's back")
        have = self._have or set()
        todo = [(blob, _values(blob, r)) for blob, r in docs if blob not in have]
        if not todo:
            return 0
        from git_aide.cache import segment  # only a write needs it, never a query

        analysis = segment.Analysis(self._w, ix.schema)
        report = None if progress is None else (lambda i: progress(offset + i))
        writer = ix.writer(timeout=WRITER_TIMEOUT, limitmb=256)
        try:
            if merge is None and segment.one_pass_fields(ix.schema, self._w.formats):
                batch = segment.add_all(writer, todo, analysis, report)
                merge = False
            else:
                batch = postings_build.Batch()
                for i, (blob, values) in enumerate(todo):
                    writer.add_document(**values)
                    batch.add(blob, analysis.fields(values))
                    if report is not None and i % 100 == 0:
                        report(i)
                batch.stems = analysis.stems
            if merge and self._segments() >= MAX_SEGMENTS:
                writer.commit(mergetype=segment.merge_small_ones)
            else:
                # A segment of its own until there are many (pending.py relies on it).
                writer.commit(merge=False)
        except BaseException:
            with contextlib.suppress(Exception):
                writer.cancel()
            raise
        self._forget_tables()
        if not self.in_memory:
            self._ix = self._w.index.open_dir(self.root)  # the state just committed
            postings_build.write(self.root, self._ix, batch, QUERIED)
        self._have = have | set(batch.blobs)
        self._save_table(self._have)
        self.pending.discard(self._have)
        return len(batch.blobs)

    # -- searching -----------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """Return the analysed words of a query, as the index stores them."""
        return analysis.terms(text, self._postings,
                              lambda: self._whoosh or analysis.load_whoosh(only_analysis=True))

    def _pairs(self, text: str) -> list[tuple[str, str]]:
        # A text's terms are Whoosh's, whichever way terms() finds them: kept by text.
        got = self._pairs_of.get(text)
        if got is not None:
            return got
        pairs = [(fld, w) for w in self.terms(text) for fld in QUERIED if fld != "tags"]
        pairs += [("tags", w.lower()) for w in text.replace(",", " ").split()]
        if len(self._pairs_of) >= KEPT_QUERIES:
            self._pairs_of.clear()
        self._pairs_of[text] = pairs
        return pairs

    def _scores(self, pairs: list[tuple[str, str]]
                ) -> tuple[postings.Tables, Any] | None:
        """Return the postings tables (with the pending documents) and every document's score
        from them (a dict, or arrays.Scored); None without tables."""
        tables = self._collection()
        if tables is None:
            return None
        if self._scored is None or self._scored[0] != pairs:
            self._scored = (pairs, self._scorer.scores(tables, pairs))
        return tables, self._scored[1]

    def warm(self, text: str) -> None:
        """Check the index and score every document for a query, so that this overlaps
        other work (git comparing the working tree): search() then finds it done."""
        with contextlib.suppress(Exception):  # search() meets any trouble again
            pairs = self._pairs(text)
            if pairs:
                self._scores(pairs)

    def tables(self) -> postings.Tables | None:
        """Return the postings tables on disk, when they answer for the whole index."""
        return self._postings()

    def scored(self, text: str) -> tuple[postings.Tables, Any] | None:
        """Return the collection and every matching document's score as arrays (arrays.Scored),
        when a long-lived process scores with numpy and the tables answer; else None."""
        if not self._scorer.arrays:
            return None
        pairs = self._pairs(text)
        return self._scores(pairs) if pairs else None

    def search(self, text: str, allowed: Container[str], want: int) -> dict[str, float]:
        """Score by BM25F the best `want` allowed blobs that match a word of the text."""
        pairs = self._pairs(text)
        if not pairs:
            return {}
        scored = self._scores(pairs)
        if scored is not None:  # scores come from the tables
            return self._scorer.best(scored[0], scored[1], allowed, want)
        ix = self._open()
        q = self._w.query
        return self._run(ix, q.Or([q.Term(f, w) for f, w in pairs]), allowed, want)

    def _run(self, ix: Index, query: Query, allowed: Container[str], want: int
             ) -> dict[str, float]:
        # Whoosh skips whole blocks of postings that cannot reach a top-N list, so asking
        # for a few more than wanted is far cheaper than scoring every match. The index
        # also holds other revisions' blobs: widen until enough of this source's are in.
        limit = max(want * 3, 60)
        with ix.searcher(weighting=self._w.scoring.BM25F()) as s:
            while True:
                results = s.search(query, limit=limit)
                scores: dict[str, float] = {}
                for hit in results:
                    blob = hit["blob"]
                    if blob in allowed and hit.score > scores.get(blob, -1.0):
                        scores[blob] = float(hit.score)
                if len(scores) >= want or results.scored_length() < limit:
                    return scores
                limit *= 4
