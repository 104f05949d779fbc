"""The user's own store: the memories that follow a person into every repository
(`$XDG_DATA_HOME/git-aide/user`, a git repository of its own; docs/user-store.md).

A read of a working tree lays them over the repository's memories, as it lays the
files that differ from the index (Snapshot.lay_users), with their absolute paths: so
every recall, search, listing and hook answers with them, ranked as personal
preferences are (core/memory.in_user_store tells them apart). A read of the index or
of a revision does not: those answer what the repository held.

The store holds a few files. Each is read, hashed and parsed only when its stat changed
since the last read, which the store's own cache keeps (`<store>/.git/aide/<python>/`,
Cache.user_files): a read of an unchanged store is a scan of its folders and one small
file, and no store at all costs one stat.
"""

from __future__ import annotations

import os
import time

from git_aide.cache.folder import RACY_SECONDS, Cache
from git_aide.core import memory
from git_aide.core import scope as scopes
from git_aide.core.memory import LAYERS, MEMORIES_DIR
from git_aide.read.record import (
    LAYER,
    RELPATH,
    SCOPE,
    STATUS,
    UUID,
    Entry,
    meta_of,
    new_entry,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.read.record import Group, Reader, Records
    from git_aide.read.snapshot import Snapshot

#: The folders of the store that hold memories, relative to its top.
FOLDERS = tuple(f"{MEMORIES_DIR}/{layer}" for layer in LAYERS if layer != "preferences") + (
    f"{MEMORIES_DIR}/preferences/shared", f"{MEMORIES_DIR}/preferences/personal")


def folder() -> str:
    """Return the user store's folder (core/memory.user_store)."""
    return memory.user_store()


def cache_of(top: str) -> Cache:
    """Return the store's own cache (`<store>/.git/aide/<python>`, as a repository's)."""
    from sys import implementation

    return Cache(os.path.join(top, ".git", "aide", implementation.cache_tag or "python"))


def lay(snap: Snapshot, top: str) -> None:
    """Lay the memories of the user store at `top` over a working tree's snapshot."""
    warnings: list[str] = []
    found = groups(top, warnings, snap.records)
    if found or warnings:
        snap.lay_users(found, warnings)


def groups(top: str, warnings: list[str], records: Records) -> list[Group]:
    """Group the store's memories at `top` by scope, as a snapshot keeps the files laid
    over its view: (compiled scope, [(absolute path, blob id, meta, content)]); a file
    that is no memory, or not where its layer and uuid put it, is skipped with a
    warning."""
    found = scan(top)
    if not found:
        return []
    cache = cache_of(top)
    old = cache.user_files(top)
    kept: dict[str, tuple[Any, ...]] = {}
    horizon = (time.time() - RACY_SECONDS) * 1e9
    by_scope: dict[str | None, list[tuple[str, str, tuple[Any, ...], bytes]]] = {}
    seen: dict[str, str] = {}
    for rel, sig in found:
        known = old.get(rel)
        if known is None or known[:4] != sig:
            known = _read(top, rel, sig, warnings)
            if known is None:
                continue
        if sig[1] < horizon and sig[3] < horizon:  # else it may change unseen: read again
            kept[rel] = known
        blob, meta, content, record = known[4:]
        path = os.path.join(top, rel)
        if meta[STATUS] != "ok":
            warnings.append(f"{path}: {f'{meta[1]}: ' if meta[1] else ''}{meta[2]}; skipped")
            continue
        problem = memory.misplaced(rel, meta[UUID], meta[LAYER], meta[RELPATH])
        if problem is None and meta[UUID] in seen:
            problem = f"uuid already used by {seen[meta[UUID]]}"
        if problem is not None:
            warnings.append(f"{path}: {problem}; skipped")
            continue
        seen[meta[UUID]] = path
        if record is not None:
            # Showing it parses nothing (and hashes nothing: Entry.record would check it).
            records.keep(path, blob, record)
        scope = None if scopes.is_project_wide(meta[SCOPE]) else meta[SCOPE]
        by_scope.setdefault(scope, []).append((path, blob, meta, content))
    if kept != old and os.path.isdir(os.path.join(top, ".git")):
        cache.put_user_files(top, kept)
    return [(None if s is None else scopes.compile_scope(s), rows)
            for s, rows in by_scope.items()]


def entries(top: str, reader: Reader, warnings: list[str]) -> list[Entry]:
    """Return the store's memories as entries read by `reader`, in path order."""
    out = [new_entry(Entry, (path, blob, meta, compiled, reader, content))
           for compiled, rows in groups(top, warnings, reader.records)
           for path, blob, meta, content in rows]
    out.sort(key=lambda e: e.path)
    return out


def scan(top: str) -> list[tuple[str, tuple[int, int, int, int]]]:
    """List the store's memory files: (path relative to `top`, (size, mtime_ns, inode,
    ctime_ns)), sorted. A folder may be a link (the store is its user's own: a dotfiles
    checkout, say); a file must be a regular one."""
    out = []
    for rel in FOLDERS:
        try:
            listed = os.scandir(os.path.join(top, rel))
        except OSError:
            continue
        with listed:
            for d in listed:
                if not d.name.endswith(".json") or d.name.startswith("."):
                    continue
                try:
                    if not d.is_file(follow_symlinks=False):
                        continue
                    st = d.stat(follow_symlinks=False)
                except OSError:
                    continue
                out.append((f"{rel}/{d.name}",
                            (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)))
    out.sort()
    return out


def signature(top: str) -> tuple[Any, ...] | None:
    """Return what the store's memories are now, to tell whether they changed: its files and
    their stat (() without a store); None when a file changed too lately for its stat to
    vouch for it."""
    if not os.path.isdir(os.path.join(top, MEMORIES_DIR)):
        return ()
    found = scan(top)
    horizon = (time.time() - RACY_SECONDS) * 1e9
    if any(sig[1] >= horizon or sig[3] >= horizon for _rel, sig in found):
        return None
    return (top, tuple(found))


def _read(top: str, rel: str, sig: tuple[int, int, int, int], warnings: list[str]
          ) -> tuple[Any, ...] | None:
    """Read, hash and parse a file of the store: (its stat, blob id, meta, content,
    record or None); None when it cannot be read (said in `warnings`)."""
    from git_aide.read.listing import blob_id

    path = os.path.join(top, rel)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        warnings.append(f"{path}: cannot be read ({e.strerror}); skipped")
        return None
    record: dict[str, Any] | None = None
    try:
        record = memory.parse(data, rel)
        meta = meta_of(record)
    except memory.MemoryFormatError as e:
        meta = ("bad", e.field, str(e))
    return (*sig, blob_id(data), meta, data, record)
