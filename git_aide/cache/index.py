"""The full-text index: one Whoosh index keyed by blob id.

A document is one blob, so one index serves the working tree, the index and every
revision: a search asks Whoosh for matching blob ids and keeps those the chosen source
lists. Adding is incremental (only blobs the index lacks), and the set of indexed ids
is kept beside the index so that finding what is missing needs no Whoosh search.

That id table is tied to the state of the index it describes: it holds the name, size,
time and CRC-32 of every file of the index, and itself carries a checksum. When the
index's files are not the ones it names (another process added to the index, or an
older copy of the index sits beside a newer table, or the table is gone), or when a
file it names fails its checksum (small files always checked, large ones when their size
or time changed), the index is rebuilt: Whoosh reads many damaged files without an
error, so an index no table vouches for is never trusted. When the cache folder cannot
be written at all, the index is built in memory for the one command: slow, but the same
answer.

Queries are never parsed with Whoosh's query language: the text is cut into words by
the same analyzer that indexed the documents, so quotes, `*`, `OR` or `col:x` are
just words and nothing can raise a syntax error. Fragments of words are not indexed
(stems are): search.py looks for them in the memories themselves.
"""

from __future__ import annotations

import contextlib
import heapq
import marshal
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from zlib import crc32

from git_aide.cache import analysis, codec, postings
from git_aide.cache.analysis import prepare
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

#: Bumped when the schema, the analysis or the layout of our own files in the index
#: changes; a mismatch rebuilds the index.
FORMAT = 8
#: Weights of the fields in BM25F: the memory itself counts most.
BOOSTS = {"what": 3.0, "context_label": 2.0, "tags": 2.0, "why": 1.0, "scope": 0.5}
#: Documents per segment of a large first index.
BATCH = 10_000
#: How long a writer waits for another process's Whoosh lock, in seconds.
WRITER_TIMEOUT = 30.0
#: The id table's file in the index folder, the kind of file codec.py frames for it,
#: and its format.
TABLE = "ids"
TABLE_KIND = "ids"
TABLE_FORMAT = 2
#: Files in the index folder that are not part of its state.
_NOT_STATE = ("STAMP", TABLE, "MAIN_WRITELOCK")
DAMAGED = "the full-text index was damaged; rebuilt it"
#: Index files up to this size are checksummed on every open (cheap: a few µs).
SMALL = 64 * 1024


def _whoosh(only_analysis: bool = False) -> Any:
    """Whoosh, with what the index needs of it (`only_analysis`: its analyzers only)."""
    import importlib
    import sys
    import types

    # Whoosh 2.7 has invalid escapes in its sources: Python 3.12+ would print
    # SyntaxWarnings on the user's terminal the first time it compiles them.
    # And whoosh.compat imports urllib.request (http.client, email, ...: ~40 ms, a
    # quarter of a search) only to re-export urlretrieve, which nothing here calls: a
    # stand-in that imports the real function if it ever is called takes its place for
    # the duration of the import.
    stand_in = None
    if "urllib.request" not in sys.modules:
        stand_in = types.ModuleType("urllib.request")

        def urlretrieve(*args: Any, **kwargs: Any) -> Any:
            from urllib.request import urlretrieve as real

            return real(*args, **kwargs)

        stand_in.urlretrieve = urlretrieve  # type: ignore[attr-defined]
        sys.modules["urllib.request"] = stand_in
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            import whoosh

            for name in ("analysis",) if only_analysis else (
                    "analysis", "fields", "index", "query", "scoring"):
                importlib.import_module(f"whoosh.{name}")
    finally:
        if stand_in is not None and sys.modules.get("urllib.request") is stand_in:
            del sys.modules["urllib.request"]
    return whoosh


#: The fields a query looks in.
QUERIED = ("what", "why", "context_label", "scope", "tags")


def _best(tables: postings.Tables, scores: dict[int, float], allowed: set[str],
          want: int) -> dict[str, float]:
    """The allowed blobs among the best-scored documents, as FullText._run takes them
    from Whoosh: the best max(3 * want, 60), then four times as many until `want` of
    them are allowed or none are left."""
    limit = max(want * 3, 60)
    while True:
        out: dict[str, float] = {}
        # Best first, the first added first among equals; only the cut is sorted.
        ranked = heapq.nlargest(limit, scores.items(), key=lambda kv: (kv[1], -kv[0]))
        for doc, score in ranked:
            blob = tables.blob(doc)
            if blob in allowed:
                out[blob] = score
        if len(out) >= want or len(scores) <= limit:
            return out
        limit *= 4


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
        self._scored: tuple[list[tuple[str, str]], dict[int, float]] | None = None
        #: True when the index lives in memory (the cache folder cannot be written).
        self.in_memory = False

    @property
    def _w(self) -> Any:
        """Whoosh, imported when the index is written or a query cannot do without it."""
        if self._whoosh is None:
            self._whoosh = _whoosh()
        return self._whoosh

    # -- opening -------------------------------------------------------------------

    def _schema(self) -> Any:
        f = self._w.fields
        analyzer = analysis.analyzer(self._w)
        # No positions (phrase=False): nothing asks for phrases, and they cost index time.
        return f.Schema(
            blob=f.ID(stored=True, unique=True),
            what=f.TEXT(analyzer=analyzer, phrase=False, field_boost=BOOSTS["what"]),
            why=f.TEXT(analyzer=analyzer, phrase=False, field_boost=BOOSTS["why"]),
            context_label=f.TEXT(analyzer=analyzer, phrase=False,
                                 field_boost=BOOSTS["context_label"]),
            tags=f.KEYWORD(lowercase=True, commas=True, field_boost=BOOSTS["tags"]),
            scope=f.TEXT(analyzer=self._w.analysis.RegexTokenizer(r"[^/*{},.\s]+")
                         | self._w.analysis.LowercaseFilter(), phrase=False,
                         field_boost=BOOSTS["scope"]),
        )

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
        except OSError:
            return self._in_memory()

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
        table = self._read_table()
        files = self._files()
        # Files no TOC names yet (a segment another process is writing) are not part of
        # the state; a TOC the table does not name is another state.
        if table is not None and set(table[0]) <= set(files) \
                and not any(n.endswith(".toc") for n in set(files) - set(table[0])):
            for name, (size, mtime, crc) in table[0].items():
                # Small files (the TOC, small segments) are always checked: a file
                # swapped in with the same size and time would pass a stat check.
                if (files[name] != (size, mtime) or size <= SMALL) \
                        and (found := self._crc(name)) != crc:
                    if found == -1 and not locked:
                        return False  # gone since it was listed: another state, not damage
                    self.notices.append(DAMAGED)
                    self._ix = None
                    return False
            self._have = table[1]
            self._state = set(table[0])
            return True
        if not locked:
            return False
        # No table vouches for these files (it is gone, damaged, or describes another
        # state): nothing says they are whole, so the index is rebuilt, never trusted.
        self.notices.append(DAMAGED)
        self._ix = None
        return False

    def _files(self) -> dict[str, tuple[int, int]]:
        """name -> (size, mtime) of every file of the index's state."""
        out: dict[str, tuple[int, int]] = {}
        for name in os.listdir(self.root):
            if name in _NOT_STATE or name.endswith(".tmp"):
                continue
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(self.root, name))
                out[name] = (st.st_size, st.st_mtime_ns)
        return out

    def _crc(self, name: str) -> int:
        try:
            with open(os.path.join(self.root, name), "rb") as f:
                return crc32(f.read())
        except OSError:
            return -1

    def _read_table(self) -> tuple[dict[str, tuple[int, int, int]], set[str]] | None:
        """(the files of the state it describes, the ids), None when missing or damaged."""
        path = os.path.join(self.root, TABLE)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        try:
            body, end = codec.unframe(TABLE_KIND, TABLE_FORMAT, data)
            if end != len(data):
                raise ValueError
            state, ids = marshal.loads(body)
            if not (isinstance(state, dict) and isinstance(ids, set)
                    and all(isinstance(v, tuple) and len(v) == 3 for v in state.values())):
                raise ValueError
        except Exception:
            self.notices.append(DAMAGED)
            with contextlib.suppress(OSError):
                os.unlink(path)
            return None
        return state, ids

    def _save_table(self, ids: set[str]) -> None:
        """Write the id table for the index's state as it is now."""
        if self.in_memory:
            return
        state = {name: (*sig, self._crc(name)) for name, sig in self._files().items()}
        self._state = set(state)
        data = codec.frame(TABLE_KIND, TABLE_FORMAT, marshal.dumps((state, ids)))
        # A table that cannot be written leaves none, or one of an older state, that the
        # next command finds wrong: it rebuilds. Not synced: a table a crash left empty
        # fails its checksum the same way.
        with contextlib.suppress(OSError):
            files.write_atomic(os.path.join(self.root, TABLE), data, sync=False)

    def _in_memory(self) -> Any:
        """An index in memory for this command: the cache folder cannot be written."""
        from whoosh.filedb.filestore import RamStorage

        self.notices.append("the cache folder cannot be written; searched without the "
                            "full-text index on disk")
        self.in_memory = True
        self._ix = RamStorage().create_index(self._schema())
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
        with files.lock(self.root + ".lock"):
            yield

    def _create(self) -> Any:
        if os.path.lexists(self.root) and not os.path.isdir(self.root):
            self.notices.append(DAMAGED)  # a file where the index's folder should be
            os.unlink(self.root)
        import shutil  # only here: with its compression modules it costs a query ~2 ms

        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root, exist_ok=True)
        self._ix = self._w.index.create_in(self.root, self._schema())
        self._have = set()
        self._save_table(set())
        with open(os.path.join(self.root, "STAMP"), "w", encoding="utf-8") as f:
            f.write(_stamp() + "\n")
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

    # -- writing -------------------------------------------------------------------

    def missing(self, blobs: Iterable[str]) -> list[str]:
        """The blob ids the index does not hold yet."""
        if not self._checked():
            self._open()
        have = self._have or set()
        if isinstance(blobs, set | frozenset):
            return list(blobs - have)
        return [b for b in dict.fromkeys(blobs) if b not in have]

    @property
    def LockError(self) -> type[Exception]:  # noqa: N802 -- named like the exception it is
        """The exception a writer raises when another process holds the lock too long."""
        return self._w.index.LockError

    def rebuild(self, why: str) -> None:
        """Start again from an empty index (after damage), and say so once."""
        self.notices.append(why)
        self._ix = None
        self._have = None
        self._forget_tables()
        if self.in_memory:
            from whoosh.filedb.filestore import RamStorage

            self._ix = RamStorage().create_index(self._schema())
            self._have = set()
            return
        try:
            with self._lock():
                self._create()
        except OSError:
            self._in_memory()

    def add(self, docs: list[tuple[str, dict[str, Any]]],
            progress: Callable[[int], None] | None = None) -> int:
        """Index (blob id, record) pairs the index lacks; returns how many were added.

        A large first index is written in segments of BATCH documents, each committed
        without merging: one writer for 100,000 documents spends most of its time
        merging sorted runs, and the cost grows faster than the count.
        """
        if not docs:
            return 0
        ix = self._open()
        have = self._have or set()
        todo = [(blob, r) for blob, r in docs if blob not in have]
        added = 0
        for start in range(0, len(todo), BATCH):
            added += self._add_batch(ix, todo[start:start + BATCH], start, progress,
                                     merge=len(todo) <= BATCH)
        return added

    def _add_batch(self, ix: Any, docs: list[tuple[str, dict[str, Any]]], offset: int,
                   progress: Callable[[int], None] | None, merge: bool) -> int:
        # Under our lock, so that the id table written after the commit describes
        # exactly the state the commit made.
        with self._lock():
            return self._add_locked(ix, docs, offset, progress, merge)

    def _add_locked(self, ix: Any, docs: list[tuple[str, dict[str, Any]]], offset: int,
                    progress: Callable[[int], None] | None, merge: bool) -> int:
        if not self.in_memory:
            # Another process may have added some since this one opened the index.
            ix = self._ix = self._w.index.open_dir(self.root)
            if not self._verified(locked=True):
                raise ValueError("the full-text index changed behind git-aide's back")
        have = self._have or set()
        writer = ix.writer(timeout=WRITER_TIMEOUT, limitmb=256)
        try:
            added: list[str] = []
            fields: list[dict[str, str]] = []
            for i, (blob, r) in enumerate(docs):
                if blob in have:
                    continue
                doc = {"what": prepare(r["what"]), "why": prepare(r["why"] or ""),
                       "context_label": prepare(r["context_label"] or ""),
                       "tags": ",".join(r["tags"]), "scope": r["scope"] or ""}
                writer.add_document(blob=blob, **doc)
                added.append(blob)
                fields.append(doc)
                if progress is not None and i % 100 == 0:
                    progress(offset + i)
            if not added:
                writer.cancel()
                return 0
            writer.commit(merge=merge)
        except BaseException:
            with contextlib.suppress(Exception):
                writer.cancel()
            raise
        self._forget_tables()
        if not self.in_memory:
            self._ix = self._w.index.open_dir(self.root)  # the state just committed
            postings.write(self.root, self._ix, list(zip(added, fields, strict=True)),
                           QUERIED)
        self._have = have | set(added)
        self._save_table(self._have)
        return len(added)

    # -- searching -----------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """The analysed words of a query, as the index stores them."""
        return analysis.terms(text, self._postings,
                              lambda: self._whoosh or _whoosh(only_analysis=True))

    def _pairs(self, text: str) -> list[tuple[str, str]]:
        pairs = [(fld, w) for w in self.terms(text) for fld in QUERIED if fld != "tags"]
        return pairs + [("tags", w.lower()) for w in text.replace(",", " ").split()]

    def _scores(self, pairs: list[tuple[str, str]]) -> dict[int, float] | None:
        """Every document's score from the postings tables; None without them."""
        tables = self._postings()
        if tables is None:
            return None
        if self._scored is None or self._scored[0] != pairs:
            self._scored = (pairs, tables.scores(pairs))
        return self._scored[1]

    def warm(self, text: str) -> None:
        """Check the index and score every document for a query, so that this overlaps
        other work (git comparing the working tree): search() then finds it done."""
        with contextlib.suppress(Exception):  # search() meets any trouble again
            pairs = self._pairs(text)
            if pairs:
                self._scores(pairs)

    def search(self, text: str, allowed: set[str], want: int) -> dict[str, float]:
        """BM25F scores of the best `want` allowed blobs that match a word of the text."""
        pairs = self._pairs(text)
        if not pairs:
            return {}
        scores = self._scores(pairs)
        if scores is not None and self._tables:  # scores come from the tables
            return _best(self._tables, scores, allowed, want)
        ix = self._open()
        q = self._w.query
        return self._run(ix, q.Or([q.Term(f, w) for f, w in pairs]), allowed, want)

    def _run(self, ix: Any, query: Any, allowed: set[str], want: int) -> dict[str, float]:
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
