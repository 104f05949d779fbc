"""Derived state in `<git common dir>/aide/<python>/`, keyed by content so that it is never
stale. One folder per Python version (`cpython-311`): the files are marshal'd, a format
promised only within one version, so two virtual environments on one repository keep a
cache each instead of throwing each other's away. The write lock is not here (see
`Repo.lock_path`): the cache may be removed at any moment.

- record packs: blob id -> the few fields that filtering and ranking need (or why the
  blob is not a memory) in `.meta`, the blobs' bytes end to end in `.raw` (read and
  parsed only for the memories a command shows), and scope text -> compiled scope.
  A blob never changes,
  so an entry is only ever missing, never wrong. New entries go to a new small pack;
  many packs are compacted into one.
- tree listings: memories-folder tree id -> [(path, blob id)], one file per tree.
- the index listing, keyed by the index file's stat signature.
- each working tree's stat table: path -> (size, mtime, inode, ctime, blob id).
- in the user's own store (read/user.py), its memory files as last read, by their stat.
- views (views.py): a source's finished entries for one state of that source.
- vocabularies (words.py): the words of a view's contents, by memory, as a
  long-lived process made them.

(How the memories are used, per machine, is counted beside this folder: usage.py.)

How a file is kept (framed, checked, written atomically, dropped when damaged) is
disk.py's; this module says what the files hold, and checks the shape of each payload:
a file whose payload has the wrong shape is dropped like a damaged one.
"""

from __future__ import annotations

import os
import time

from git_aide.cache.disk import Folder
from git_aide.core.files import stat_sig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.cache.disk import Stored

#: Packs beyond this count are compacted into one.
MAX_PACKS = 12
#: Stat entries younger than this (seconds) are not trusted: the file may change again
#: within the file system's timestamp granularity without changing its stat.
RACY_SECONDS = 2.0
#: The file of the user store's own cache that keeps its memory files (user_files).
USER_FILES = "user-files"
#: The stat tables read, by file: (its stat then, the table) (Cache.stat_tables).
StatTables = dict[str, tuple[tuple[int, ...], dict[str, tuple[int, int, int, int, str]]]]


class Cache(Folder):
    """Hold one repository's cache folder; load lazily, write atomically, never raise."""

    #: blob id -> metadata of a memory (see read.record.meta_of) or ("bad", field, message).
    metas: dict[str, tuple[Any, ...]]
    #: scope text -> compiled scope tuple.
    scopes: dict[str, tuple[Any, ...]]
    _new_metas: dict[str, tuple[Any, ...]]
    _new_raws: dict[str, bytes]
    _new_scopes: dict[str, tuple[Any, ...]]
    _packs: list[tuple[str, dict[str, tuple[int, int]]]]
    _whole: dict[str, bytes]
    _reads: int
    _loaded: bool

    def __init__(self, root: str, stat_tables: StatTables | None = None) -> None:
        super().__init__(root)
        #: The working trees' stat tables read through this handle, by file, with the
        #: file's stat: a long-lived process passes the same dict to each call's
        #: handle, so that a table is read again only when its file changed.
        self.stat_tables: StatTables = {} if stat_tables is None else stat_tables
        #: The working tree's paths as this handle (one command, or one MCP call) saw
        #: them, and the scopes warned about (app/scopecheck.py), once asked.
        self.scope_listing: object | None = None
        self.metas = {}
        self.scopes = {}
        self._new_metas = {}
        self._new_raws = {}
        self._new_scopes = {}
        self._packs = []
        self._whole = {}
        self._reads = 0
        self._loaded = False

    # -- records -------------------------------------------------------------------

    def _pack_names(self) -> list[str]:
        try:
            return sorted(n[:-5] for n in os.listdir(self._path("packs")) if n.endswith(".meta"))
        except OSError:
            return []

    def load_records(self) -> None:
        """Read every pack's metadata (once); contents are read one by one when needed."""
        if self._loaded:
            return
        self._loaded = True
        for name in self._pack_names():
            payload = self.read("packs", name + ".meta")
            if payload is None:
                continue
            if not _pack_ok(payload):
                self.damaged(self._path("packs", name + ".meta"))
                continue
            metas, spans, scopes = payload
            self.metas.update(metas)
            self.scopes.update(scopes)
            self._packs.append((name, spans))

    def own_raw(self, blob: str) -> bytes | None:
        """Return the content of a blob this handle added (add()), None otherwise."""
        return self._new_raws.get(blob)

    def raw(self, blob: str) -> bytes | None:
        """Return the content of a blob whose metadata is cached (None if it cannot be had)."""
        got = self._new_raws.get(blob)
        if got is not None:
            return got
        self._reads += 1
        if self._reads == 32:  # many records wanted: one read of each pack beats seeks
            self.preload_raws()
        for name, spans in self._packs:
            span = spans.get(blob)
            if span is None:
                continue
            whole = self._whole.get(name)
            if whole is not None:
                data = whole[span[0]:span[0] + span[1]]
                return data if len(data) == span[1] else None
            try:
                with open(self._path("packs", name + ".raw"), "rb") as f:
                    f.seek(span[0])
                    data = f.read(span[1])
            except OSError:
                return None
            return data if len(data) == span[1] else None
        return None

    def preload_raws(self) -> None:
        """Read every pack's contents into memory: many records are about to be asked for."""
        for name, _spans in self._packs:
            if name not in self._whole:
                try:
                    with open(self._path("packs", name + ".raw"), "rb") as f:
                        self._whole[name] = f.read()
                except OSError:
                    continue

    def add(self, blob: str, meta: tuple[Any, ...], raw: bytes | None) -> None:
        """Remember a parsed blob's metadata (and content when it is a memory)."""
        self.metas[blob] = meta
        self._new_metas[blob] = meta
        if raw is not None:
            self._new_raws[blob] = raw

    def add_scope(self, scope: str, compiled: tuple[Any, ...]) -> None:
        """Remember a compiled scope; saved by `flush`."""
        self.scopes[scope] = compiled
        self._new_scopes[scope] = compiled

    def flush(self) -> None:
        """Save new entries as one new pack; compact when there are too many packs."""
        if not (self._new_metas or self._new_scopes):
            return
        raws = {b: self._new_raws[b] for b in self._new_metas if b in self._new_raws}
        self._write_pack(self._new_metas, raws, self._new_scopes)
        # The contents stay in _new_raws: this process may still ask for them.
        self._new_metas, self._new_scopes = {}, {}
        if len(self._pack_names()) > MAX_PACKS:
            self._compact()

    def _write_pack(self, metas: dict[str, tuple[Any, ...]], raws: dict[str, bytes],
                    scopes: dict[str, tuple[Any, ...]]) -> None:
        # Contents are concatenated in .raw and found by (offset, length) from .meta, so
        # showing 20 memories reads 20 slices, not every memory ever seen. The .raw file
        # goes first: a pack whose .meta exists always has its .raw.
        name = f"{time.time_ns():020d}-{os.getpid()}"
        spans: dict[str, tuple[int, int]] = {}
        chunks: list[bytes] = []
        offset = 0
        for blob, data in raws.items():
            spans[blob] = (offset, len(data))
            chunks.append(data)
            offset += len(data)
        self.write_bytes(chunks, "packs", name + ".raw")
        if os.path.exists(self._path("packs", name + ".raw")):
            self.write((metas, spans, scopes), "packs", name + ".meta")

    def _compact(self) -> None:
        with self.lock():
            names = self._pack_names()
            if len(names) <= MAX_PACKS:
                return  # another process compacted while we waited
            fresh = Cache(self.root)
            fresh.load_records()
            raws: dict[str, bytes] = {}
            for blob in fresh.metas:
                data = fresh.raw(blob)
                if data is not None and _blob_id(data) == blob:  # a damaged slice is left out
                    raws[blob] = data
            metas = {b: m for b, m in fresh.metas.items() if m[0] != "ok" or b in raws}
            self._write_pack(metas, raws, fresh.scopes)
            for old in names:
                self.discard(self._path("packs", old + ".meta"))
                self.discard(self._path("packs", old + ".raw"))

    # -- listings ------------------------------------------------------------------

    def tree_listing(self, tree_id: str) -> list[tuple[str, str]] | None:
        """Return the cached blob listing of one memories tree."""
        payload = self.read("trees", tree_id)
        if payload is None:
            return None
        if isinstance(payload, list) and all(
                isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], str)
                and isinstance(r[1], str) for r in payload):
            return payload
        self.damaged(self._path("trees", tree_id))
        return None

    def put_tree_listing(self, tree_id: str, listing: list[tuple[str, str]]) -> None:
        """Cache the blob listing of one memories tree."""
        self.write(listing, "trees", tree_id)

    def index_listing(self, index_file: str) -> list[tuple[str, str, int]] | None:
        """Return the cached listing of an index file whose stat has not changed since."""
        payload = self.read("index")
        if payload is None:
            return None
        rows = payload.get("rows") if isinstance(payload, dict) else None
        if not (isinstance(rows, list) and all(
                isinstance(r, tuple) and len(r) == 3 and isinstance(r[0], str)
                and isinstance(r[1], str) and isinstance(r[2], int) for r in rows)):
            self.damaged(self._path("index"))
            return None
        sig = stat_sig(index_file)
        if sig is None or payload.get("file") != index_file or payload.get("sig") != sig:
            return None
        return rows

    def put_index_listing(self, index_file: str, sig: tuple[int, ...] | None,
                          rows: list[tuple[str, str, int]]) -> None:
        """Cache an index listing under the stat the index had before it was read."""
        if sig is not None and time.time() - sig[1] / 1e9 > RACY_SECONDS:
            self.write({"file": index_file, "sig": sig, "rows": rows}, "index")

    def stat_table(self, worktree: str) -> dict[str, tuple[int, int, int, int, str]]:
        """Return path -> (size, mtime_ns, inode, ctime_ns, blob id) for one working tree (the
        caller must not change it: a long-lived process is given the one it read last
        while the file's stat is the same; each write renames a new file in)."""
        name = _worktree_file(worktree)
        path = self._path(name)
        sig = stat_sig(path)
        got = self.stat_tables.get(path)
        if got is not None and sig is not None and got[0] == sig:
            return got[1]
        payload = self.read(name)
        if payload is None:
            return {}
        table = payload.get("table") if isinstance(payload, dict) else None
        if not (isinstance(table, dict) and all(
                isinstance(v, tuple) and len(v) == 5 and isinstance(v[4], str)
                for v in table.values())):
            self.damaged(path)
            return {}
        if payload.get("worktree") != worktree:
            return {}
        if sig is not None:
            # Taken before the read: a file renamed in meanwhile has another stat.
            self.stat_tables[path] = (sig, table)
        return table

    def put_stat_table(self, worktree: str, table: dict[str, tuple[int, int, int, int, str]]
                       ) -> None:
        """Save a working tree's stat table."""
        self.write({"worktree": worktree, "table": table}, _worktree_file(worktree))

    # -- the user's own store -------------------------------------------------------

    def user_files(self, top: str) -> dict[str, tuple[Any, ...]]:
        """Return the user store's memory files as read last (read/user.py), by path relative
        to `top`: (size, mtime_ns, inode, ctime_ns, blob id, meta, content, record or
        None); {} when none are kept, or they are another folder's."""
        payload = self.read(USER_FILES)
        if payload is None:
            return {}
        kept = payload.get("files") if isinstance(payload, dict) else None
        if not (isinstance(kept, dict) and all(
                isinstance(k, str) and isinstance(v, tuple) and len(v) == 8
                and isinstance(v[4], str) and isinstance(v[5], tuple) and v[5]
                and isinstance(v[6], bytes) and isinstance(v[7], (dict, type(None)))
                for k, v in kept.items())):
            self.damaged(self._path(USER_FILES))
            return {}
        return kept if payload.get("top") == top else {}

    def put_user_files(self, top: str, kept: dict[str, tuple[Any, ...]]) -> None:
        """Keep the user store's memory files as just read (user_files)."""
        self.write({"top": top, "files": kept}, USER_FILES)


def _pack_ok(payload: Stored) -> bool:
    """Tell whether a pack's metadata has the shape `load_records` and its readers rely on."""
    if not (isinstance(payload, tuple) and len(payload) == 3
            and all(isinstance(p, dict) for p in payload)):
        return False
    metas, spans, scopes = payload
    for meta in metas.values():
        if not isinstance(meta, tuple) or not meta:
            return False
        if meta[0] == "ok":
            if len(meta) != 9 or not all(isinstance(meta[i], str) for i in (1, 2, 5, 6, 7, 8)) \
                    or not isinstance(meta[4], tuple) or not isinstance(meta[3], (str, type(None))):
                return False
        elif meta[0] != "bad" or len(meta) != 3:
            return False
    if not all(isinstance(s, tuple) and len(s) == 2 and all(isinstance(x, int) for x in s)
               for s in spans.values()):
        return False
    return all(scope_ok(c) for c in scopes.values())


def scope_ok(c: Stored) -> bool:
    """Tell whether a stored compiled scope has the shape of `scope.Compiled.as_tuple()`."""
    return (isinstance(c, tuple) and len(c) == 3 and isinstance(c[0], int)
            and isinstance(c[1], tuple) and isinstance(c[2], tuple)
            and len(c[1]) == len(c[2])
            and all(isinstance(x, str) for x in c[1] + c[2]))


def _blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()




def _worktree_file(worktree: str) -> str:
    # A CRC-32 names it (no hashlib on a recall's path): the table says whose it is, so
    # two working trees that share a name only take turns.
    from zlib import crc32

    return f"worktree-{crc32(worktree.encode(errors='surrogateescape')):08x}"

