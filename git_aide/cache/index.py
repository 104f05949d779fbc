"""The full-text index: one Whoosh index keyed by blob id.

A document is one blob, so one index serves the working tree, the index and every
revision: a search asks Whoosh for matching blob ids and keeps those the chosen source
lists. Adding is incremental (only blobs the index lacks), and the set of indexed ids
is kept beside the index (idtable.py) so that finding what is missing needs no Whoosh
search; that table also vouches for the index's files, and an index it does not vouch
for is rebuilt. When the cache folder cannot be written at all, the index is built in
memory for the one command: slow, but the same answer.

Queries are never parsed with Whoosh's query language: the text is cut into words by
the same analyzer that indexed the documents, so quotes, `*`, `OR` or `col:x` are
just words and nothing can raise a syntax error. Fragments of words are not indexed
(stems are): search.py looks for them in the memories themselves.

Over 400 lines: opening, rebuilding, filling, asking the index and deferring what a
warm process would add share one state (its folder, its lock, its id table); the id
table is idtable.py's, a first index written in one pass and the merge policy
segment.py's, the analysis analysis.py's, the tables a warm search reads and the cut of
the best postings.py's, the documents a warm process defers pending.py's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Container, Iterable, Iterator

from git_aide.cache import analysis, idtable, pending, postings
from git_aide.cache.analysis import prepare
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from git_aide.cache.arrays import Scorer

#: Bumped when the schema, the analysis or the layout of our own files in the index
#: changes; a mismatch rebuilds the index.
FORMAT = 8
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
#: What a damaged index is reported as.
DAMAGED = "the full-text index was damaged; rebuilt it"
#: The errors of a cache that cannot be written (permission bits, a read-only file
#: system), which no rebuild mends: the index is kept in memory instead.
UNWRITABLE = (13, 1, 30)  # EACCES, EPERM, EROFS


def unwritable(e: BaseException) -> bool:
    """Whether `e` says the cache cannot be written (not that it is damaged)."""
    return isinstance(e, OSError) and e.errno in UNWRITABLE


#: The fields a query looks in.
QUERIED = ("what", "why", "context_label", "scope", "tags")


def _values(blob: str, r: dict[str, Any]) -> dict[str, str]:
    """A memory's fields as the index gets them."""
    return {"blob": blob, "what": prepare(r["what"]), "why": prepare(r["why"] or ""),
            "context_label": prepare(r["context_label"] or ""),
            "tags": ",".join(r["tags"]), "scope": r["scope"] or ""}


def _stamp() -> str:
    import whoosh

    return f"git-aide-index {FORMAT} whoosh {whoosh.versionstring()}"


class FullText:
    """The Whoosh index in `<cache>/whoosh`, rebuilt from scratch when it is unusable."""

    #: The folder of the index.
    root: str
    #: Notices for the user (a damaged index that was rebuilt).
    notices: list[str]

    def __init__(self, cache_root: str) -> None:
        self.root = os.path.join(cache_root, "whoosh")
        self.notices = []
        self._whoosh: Any = None
        self._ix: Any = None
        self._have: set[str] | None = None
        #: The files of the state the id table vouched for, by name.
        self._state: set[str] = set()
        #: The postings tables of that state, once read (False: they do not cover it).
        self._tables: postings.Tables | Literal[False] | None = None
        #: The last query's (field, term) pairs and the scores the tables gave them.
        self._scored: tuple[list[tuple[str, str]], Any] | None = None
        #: True when the index lives in memory (the cache folder cannot be written).
        self.in_memory = False
        #: missing()'s last answer for a dict: (the dict, the ids held, the answer).
        self._missing_of: tuple[dict[str, Any], set[str], list[str]] | None = None
        #: Whether a small addition is kept in memory until write_pending() (a
        #: long-lived process: cache/pending.py), rather than written at once.
        self.deferring = False
        #: What this process would have written and has not yet.
        self.pending = pending.Pending()
        #: The index's schema as this version makes it, once the pending documents
        #: needed it (their analysis is kept with it).
        self._schema: Any = None
        #: How long to wait for another process's hold of the index's lock (None: as
        #: long as it takes).
        self.lock_wait: float | None = None
        #: The numpy scorer (arrays.Scorer), when a long-lived process scores with
        #: numpy (numbers()).
        self._arrays: Scorer | None = None

    def numbers(self) -> bool:
        """Score with numpy from now on (a long-lived process: arrays.py says why), when
        it is installed; whether it is."""
        try:
            from git_aide.cache import arrays
        except ImportError:
            return False
        self._arrays = arrays.Scorer()
        self._scored = None
        return True

    @property
    def _w(self) -> Any:
        """Whoosh, imported when the index is written or a query cannot do without it."""
        if self._whoosh is None:
            self._whoosh = analysis.load_whoosh()
        return self._whoosh

    # -- opening -------------------------------------------------------------------

    def _open(self) -> Any:
        if self._ix is not None:
            return self._ix
        try:
            if self._try_open(report=False) and self._verified(locked=False):
                return self._ix
            # Creating (or re-creating) the index, or its id table, is done by one process
            # at a time; the others wait, then find it made.
            with self._lock():
                if self._try_open(report=True) and self._verified(locked=True):
                    return self._ix
                return self._create()
        except OSError as e:
            return self._in_memory(e)

    def _try_open(self, report: bool) -> bool:
        try:
            with open(os.path.join(self.root, "STAMP"), encoding="utf-8") as f:
                stamp = f.read().strip()
        except OSError:
            return False
        if stamp != _stamp():
            if report:
                self.notices.append("the full-text index was made by another version; "
                                    "rebuilt it")
            return False
        try:
            self._ix = self._w.index.open_dir(self.root)
            self._ix.schema  # noqa: B018 -- touch it: a damaged TOC fails here
            return True
        except Exception:
            self._ix = None
            if report:
                self.notices.append(DAMAGED)
            return False

    def _verified(self, locked: bool) -> bool:
        """Check the open index against its id table and load the ids; False when it is
        damaged, or (not `locked`) when the table must be made again under the lock."""
        try:
            table = idtable.read(self.root)
        except ValueError:
            self.notices.append(DAMAGED)
            table = None
        found = idtable.check(self.root, table, locked)
        if found == idtable.WHOLE and table is not None:
            self._have = table[1]
            self._state = set(table[0])
            return True
        if found == idtable.DAMAGED:
            self.notices.append(DAMAGED)
            self._ix = None
        return False

    def _save_table(self, ids: set[str]) -> None:
        """Write the id table for the index's state as it is now."""
        if not self.in_memory:
            self._state = idtable.save(self.root, ids)

    def cannot_write(self, e: OSError) -> str:
        """The notice for a cache that cannot be written (`e`: what failed): the folder
        and why, once per command; the memory files themselves answer."""
        folder = (os.path.dirname(e.filename) if isinstance(e.filename, str)
                  else os.path.dirname(self.root))
        why = (e.strerror or type(e).__name__).lower()
        return (f"the cache cannot be written ({folder}: {why}); searched the memory files "
                "with an index in memory")

    def _in_memory(self, e: OSError) -> Any:
        """An index in memory for this command: the cache folder cannot be written."""
        from whoosh.filedb.filestore import RamStorage

        self.notices.append(self.cannot_write(e))
        self.in_memory = True
        self._ix = RamStorage().create_index(analysis.schema(self._w))
        self._have = set()
        return self._ix

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        """Hold `<cache>/whoosh.lock` (OSError when it cannot be had: the callers then
        keep the index in memory)."""
        if self.in_memory:
            yield
            return
        os.makedirs(os.path.dirname(self.root), exist_ok=True)
        with files.lock(self.root + ".lock", self.lock_wait):
            yield

    def _create(self) -> Any:
        if os.path.lexists(self.root) and not os.path.isdir(self.root):
            self.notices.append(DAMAGED)  # a file where the index's folder should be
            os.unlink(self.root)
        import shutil  # only here: with its compression modules it costs a query ~2 ms

        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root, exist_ok=True)
        self._ix = self._w.index.create_in(self.root, analysis.schema(self._w))
        self._have = set()
        self._save_table(set())
        files.write_atomic(os.path.join(self.root, "STAMP"), (_stamp() + "\n").encode(),
                           sync=False)
        return self._ix

    def refresh(self) -> None:
        """Forget which blobs the index was seen to hold: a long-lived process (the MCP
        server) then sees what other processes added or rebuilt since."""
        self._have = None
        self._forget_tables()

    def _checked(self) -> bool:
        """Whether the index on disk is whole, checked without Whoosh (its stamp, and its
        files against the id table); False sends the caller through Whoosh's own
        opening, which rebuilds what is damaged."""
        if self._have is not None:
            return True
        if self.in_memory:
            return False
        try:
            with open(os.path.join(self.root, "STAMP"), encoding="utf-8") as f:
                if f.read().strip() != _stamp():
                    return False
            return self._verified(locked=False)
        except OSError:
            return False

    def _postings(self) -> postings.Tables | None:
        """The postings tables of the state on disk, when they hold every document of
        it; None otherwise (Whoosh answers then)."""
        if not self._checked():
            return None
        if self._tables is None:
            self._tables = False
            names = [n for n in self._state if n.endswith(postings.SUFFIX)]
            if names and not self.in_memory:
                try:
                    tables = postings.Tables([os.path.join(self.root, n) for n in names])
                except FileNotFoundError:
                    self._tables = None
                    return None  # removed since the id table was read; Whoosh answers
                except (OSError, ValueError, EOFError, TypeError, IndexError) as e:
                    # The id table vouched for it: damaged since (search.robust rebuilds).
                    self._tables = None
                    raise ValueError(f"a damaged postings table: {e}") from None
                if tables.count == len(self._have or ()):
                    self._tables = tables
                else:
                    tables.close()
        return self._tables or None

    def _forget_tables(self) -> None:
        if self._tables:
            self._tables.close()
        self._tables = None
        self._scored = None

    def _collection(self) -> postings.Tables | None:
        """The tables on disk, and after them the pending documents the call under way
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
        """A new call of a long-lived process: the documents pending count only once it
        asks for them again (add())."""
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
        """Whether `count` new documents may stay pending: few, added to an index on
        disk that has its tables, by a commit that would merge no segments."""
        if not self.deferring or self.in_memory or count > pending.MOST or not self._have:
            return False
        return self._segments() < MAX_SEGMENTS and self._postings() is not None

    def _segments(self) -> int:
        """How many segments the state the id table vouched for has (each is one
        compound file); an index in memory, for one command, counts none."""
        return sum(1 for n in self._state if n.endswith(".seg"))

    # -- writing -------------------------------------------------------------------

    def missing(self, blobs: Iterable[str]) -> list[str]:
        """The blob ids the index does not hold yet. Of a dict (a view's blob ids, which
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
            found = [b for b in blobs if b not in have]
            self._missing_of = (blobs, have, found)
            return list(found)
        return [b for b in dict.fromkeys(blobs) if b not in have]

    @property
    def LockError(self) -> type[Exception]:  # noqa: N802 -- named like the exception it is
        """The exception a writer raises when another process holds the lock too long."""
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

    def _add_batch(self, ix: Any, docs: list[tuple[str, dict[str, Any]]], offset: int,
                   progress: Callable[[int], None] | None, merge: bool | None) -> int:
        # Under our lock, so that the id table written after the commit describes
        # exactly the state the commit made.
        with self._lock():
            return self._add_locked(ix, docs, offset, progress, merge)

    def _add_locked(self, ix: Any, docs: list[tuple[str, dict[str, Any]]], offset: int,
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
                batch = postings.Batch()
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
            postings.write(self.root, self._ix, batch, QUERIED)
        self._have = have | set(batch.blobs)
        self._save_table(self._have)
        self.pending.discard(self._have)
        return len(batch.blobs)

    # -- searching -----------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """The analysed words of a query, as the index stores them."""
        return analysis.terms(text, self._postings,
                              lambda: self._whoosh or analysis.load_whoosh(only_analysis=True))

    def _pairs(self, text: str) -> list[tuple[str, str]]:
        pairs = [(fld, w) for w in self.terms(text) for fld in QUERIED if fld != "tags"]
        return pairs + [("tags", w.lower()) for w in text.replace(",", " ").split()]

    def _scores(self, pairs: list[tuple[str, str]]
                ) -> tuple[postings.Tables, Any] | None:
        """The postings tables (with the pending documents) and every document's score
        from them (a dict, or arrays.Scored); None without tables."""
        tables = self._collection()
        if tables is None:
            return None
        if self._scored is None or self._scored[0] != pairs:
            self._scored = (pairs, tables.scores(pairs) if self._arrays is None
                            else self._arrays.scores(tables, pairs))
        return tables, self._scored[1]

    def warm(self, text: str) -> None:
        """Check the index and score every document for a query, so that this overlaps
        other work (git comparing the working tree): search() then finds it done."""
        with contextlib.suppress(Exception):  # search() meets any trouble again
            pairs = self._pairs(text)
            if pairs:
                self._scores(pairs)

    def tables(self) -> postings.Tables | None:
        """The postings tables on disk, when they answer for the whole index."""
        return self._postings()

    def scored(self, text: str) -> tuple[postings.Tables, Any] | None:
        """The collection and every matching document's score as arrays (arrays.Scored),
        when a long-lived process scores with numpy and the tables answer; else None."""
        if self._arrays is None:
            return None
        pairs = self._pairs(text)
        return self._scores(pairs) if pairs else None

    def search(self, text: str, allowed: Container[str], want: int) -> dict[str, float]:
        """BM25F scores of the best `want` allowed blobs that match a word of the text."""
        pairs = self._pairs(text)
        if not pairs:
            return {}
        scored = self._scores(pairs)
        if scored is not None:  # scores come from the tables
            if self._arrays is not None:
                return self._arrays.best(scored[0], scored[1], allowed, want)
            return postings.best(scored[0], scored[1], allowed, want)
        ix = self._open()
        q = self._w.query
        return self._run(ix, q.Or([q.Term(f, w) for f, w in pairs]), allowed, want)

    def _run(self, ix: Any, query: Any, allowed: Container[str], want: int
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
