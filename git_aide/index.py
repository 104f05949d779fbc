"""The full-text index (DESIGN sections 4 and 5): one Whoosh index keyed by blob id.

A document is one blob, so one index serves the working tree, the index and every
revision: a search asks Whoosh for matching blob ids and keeps those the chosen source
lists. Adding is incremental (only blobs the index lacks), and the set of indexed ids
is kept beside the index so that finding what is missing needs no Whoosh search.

Queries are never parsed with Whoosh's query language: the text is cut into words by
the same analyzer that indexed the documents, so quotes, `*`, `OR` or `col:x` are
just words and nothing can raise a syntax error. Fragments of words are not indexed
(stems are): search.py looks for them in the memories themselves.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import shutil
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Bumped when the schema or the analysis changes; a mismatch rebuilds the index.
FORMAT = 4
#: Weights of the fields in BM25F: the memory itself counts most.
BOOSTS = {"what": 3.0, "context_label": 2.0, "tags": 2.0, "why": 1.0, "scope": 0.5}
#: Documents per segment of a large first index.
BATCH = 10_000
#: How long a writer waits for another process's Whoosh lock, in seconds.
WRITER_TIMEOUT = 30.0


def _whoosh() -> Any:
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
            import whoosh.analysis
            import whoosh.fields
            import whoosh.index
            import whoosh.query
            import whoosh.scoring
    finally:
        if stand_in is not None and sys.modules.get("urllib.request") is stand_in:
            del sys.modules["urllib.request"]
    return whoosh


#: Where a word is cut out of the text: anything but these is part of an identifier
#: (`requests.adapters.HTTPAdapter`, `MAX_UPLOAD_BYTES`, `retry_on_5xx`, `a/b.py`).
_TOKEN = r"[^\s\"'`(),;:!?\[\]{}<>=|*]+"
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")


def prepare(text: str) -> str:
    """Text as the analyzer wants it: an acronym run before a capitalised word gets a
    boundary (`HTTPAdapter` -> `HTTP_Adapter`), which Whoosh's intra-word filter lacks."""
    return _ACRONYM.sub(r"\1_\2", text)


def _analyzer(w: Any) -> Any:
    """Words of a memory or a query: identifiers kept whole (merged) and split into
    their parts (Whoosh's IntraWordFilter), lower-cased and stemmed."""
    a = w.analysis
    return (a.RegexTokenizer(_TOKEN)
            | a.IntraWordFilter(mergewords=True, mergenums=True)
            | a.LowercaseFilter() | a.StemFilter())


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
        self._w = _whoosh()
        self._ix: Any = None
        self._have: set[str] | None = None

    # -- opening -------------------------------------------------------------------

    def _schema(self) -> Any:
        f = self._w.fields
        analyzer = _analyzer(self._w)
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
        if self._try_open(report=False):
            return self._ix
        # Creating (or re-creating) the index is done by one process at a time; the
        # others wait, then find it made.
        with self._lock():
            if self._try_open(report=True):
                return self._ix
            return self._create()

    def _try_open(self, report: bool) -> bool:
        try:
            with open(os.path.join(self.root, "STAMP"), encoding="utf-8") as f:
                if f.read().strip() != _stamp():
                    return False
        except OSError:
            return False
        try:
            self._ix = self._w.index.open_dir(self.root)
            self._ix.schema  # noqa: B018 -- touch it: a damaged TOC fails here
            return True
        except Exception:
            self._ix = None
            if report:
                self.notices.append("the full-text index was damaged; rebuilt it")
            return False

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        import fcntl

        os.makedirs(os.path.dirname(self.root), exist_ok=True)
        fd = os.open(self.root + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _create(self) -> Any:
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root, exist_ok=True)
        self._ix = self._w.index.create_in(self.root, self._schema())
        self._have = set()
        self._save_ids(set())
        with open(os.path.join(self.root, "STAMP"), "w", encoding="utf-8") as f:
            f.write(_stamp() + "\n")
        return self._ix

    def _ids(self) -> set[str]:
        try:
            with open(os.path.join(self.root, "ids"), "rb") as f:
                ids = marshal.load(f)
            return ids if isinstance(ids, set) else set()
        except (OSError, EOFError, ValueError, TypeError):
            return set()

    def _save_ids(self, ids: set[str]) -> None:
        path = os.path.join(self.root, "ids")
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "wb") as f:
                marshal.dump(ids, f)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    # -- writing -------------------------------------------------------------------

    def missing(self, blobs: Iterable[str]) -> list[str]:
        """The blob ids the index does not hold yet."""
        self._open()
        if self._have is None:
            self._have = self._ids()
        have = self._have
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
        with self._lock():
            self._create()

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
        have = self._ids()
        todo = [(blob, r) for blob, r in docs if blob not in have]
        added = 0
        for start in range(0, len(todo), BATCH):
            added += self._add_batch(ix, todo[start:start + BATCH], start, progress,
                                     merge=len(todo) <= BATCH)
        return added

    def _add_batch(self, ix: Any, docs: list[tuple[str, dict[str, Any]]], offset: int,
                   progress: Callable[[int], None] | None, merge: bool) -> int:
        writer = ix.writer(timeout=WRITER_TIMEOUT, limitmb=256)
        try:
            have = self._ids()  # again, under the lock: another process may have added some
            added: list[str] = []
            for i, (blob, r) in enumerate(docs):
                if blob in have:
                    continue
                writer.add_document(
                    blob=blob, what=prepare(r["what"]), why=prepare(r["why"] or ""),
                    context_label=prepare(r["context_label"] or ""),
                    tags=",".join(r["tags"]),
                    scope=r["scope"] or "")
                added.append(blob)
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
        # Whoosh's lock is released by commit; the ids file is read-merge-written, and a
        # lost race only means an id is missing and gets indexed (once more) next time.
        self._have = self._ids() | set(added)
        self._save_ids(self._have)
        return len(added)

    # -- searching -----------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """The analysed words of a query, as the index stores them."""
        return list(dict.fromkeys(t.text for t in _analyzer(self._w)(prepare(text))))

    def search(self, text: str, allowed: set[str], want: int) -> dict[str, float]:
        """BM25F scores of the best `want` allowed blobs that match a word of the text."""
        ix = self._open()
        q = self._w.query
        words = self.terms(text)
        fields = ("what", "why", "context_label", "scope")
        subqueries = [q.Term(fld, w) for w in words for fld in fields]
        subqueries += [q.Term("tags", w.lower()) for w in text.replace(",", " ").split()]
        return self._run(ix, q.Or(subqueries), allowed, want) if subqueries else {}

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
