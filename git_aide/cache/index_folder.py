"""Open, check and create the Whoosh index in `<cache>/whoosh`: the folder FullText
(index.py) adds to and searches.

The index is opened only when its stamp says this version made it and the id table
(idtable.py) vouches for its files; otherwise it is created again, by one process at a
time under `<cache>/whoosh.lock`. When the cache folder cannot be written at all, the
index is made in memory for the one command: slow, but the same answer.
"""

from __future__ import annotations

import contextlib
import os

from git_aide.cache import analysis, idtable, postings
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType
    from typing import Literal

    from whoosh.index import Index

#: Bumped when the schema, the analysis or the layout of our own files in the index
#: changes; a mismatch rebuilds the index.
FORMAT = 8
#: What a damaged index is reported as.
DAMAGED = "the full-text index was damaged; rebuilt it"
#: The errors of a cache that cannot be written (permission bits, a read-only file
#: system), which no rebuild mends: the index is kept in memory instead.
UNWRITABLE = (13, 1, 30)  # EACCES, EPERM, EROFS


def unwritable(e: BaseException) -> bool:
    """Tell whether `e` says the cache cannot be written (not that it is damaged)."""
    return isinstance(e, OSError) and e.errno in UNWRITABLE


def _stamp() -> str:
    import whoosh

    return f"git-aide-index {FORMAT} whoosh {whoosh.versionstring()}"


class IndexFolder:
    """Hold the Whoosh index of one cache folder: open it when it is whole, create it
    again when it is not, and keep which blobs it holds."""

    #: The folder of the index.
    root: str
    #: Notices for the user (a damaged index that was rebuilt).
    notices: list[str]

    def __init__(self, cache_root: str) -> None:
        self.root = os.path.join(cache_root, "whoosh")
        self.notices = []
        self._whoosh: ModuleType | None = None
        self._ix: Index | None = None
        #: The blob ids the index holds, once read from the id table.
        self._have: set[str] | None = None
        #: The files of the state the id table vouched for, by name.
        self._state: set[str] = set()
        #: The postings tables of that state, once read (False: they do not cover it).
        self._tables: postings.Tables | Literal[False] | None = None
        #: True when the index lives in memory (the cache folder cannot be written).
        self.in_memory = False
        #: How long to wait for another process's hold of the index's lock (None: as
        #: long as it takes).
        self.lock_wait: float | None = None
        #: How many times this handle wrote a state of the index on disk (its id table).
        self.saves = 0

    @property
    def _w(self) -> ModuleType:
        """Return Whoosh, imported when the index is written or a query cannot do without it."""
        if self._whoosh is None:
            self._whoosh = analysis.load_whoosh()
        return self._whoosh

    def _open(self) -> Index:
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
            self.saves += 1

    def cannot_write(self, e: OSError) -> str:
        """Return the notice for a cache that cannot be written (`e`: what failed): the folder
        and why, once per command; the memory files themselves answer."""
        folder = (os.path.dirname(e.filename) if isinstance(e.filename, str)
                  else os.path.dirname(self.root))
        why = (e.strerror or type(e).__name__).lower()
        return (f"the cache cannot be written ({folder}: {why}); searched the memory files "
                "with an index in memory")

    def _in_memory(self, e: OSError) -> Index:
        """Make an index in memory for this command: the cache folder cannot be written."""
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

    def _create(self) -> Index:
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

    def _checked(self) -> bool:
        """Tell whether the index on disk is whole, checked without Whoosh (its stamp, and its
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
        """Return the postings tables of the state on disk, when they hold every document of
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
        """Close the postings tables read (a new state has others)."""
        if self._tables:
            self._tables.close()
        self._tables = None
