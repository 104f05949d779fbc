"""Where a read comes from: the working tree, the index, or any revision (DESIGN section 2).

Each source is listed as (path, blob id) pairs, as cheaply as it can be: a stat check
of the files on disk, the index listing, or a tree id. Records then come from the
cache by blob id; only the blobs it lacks are read and parsed.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from typing import Any

from git_aide import memory
from git_aide import scope as scopes
from git_aide.cache import RACY_SECONDS, Cache, stat_sig
from git_aide.memory import MEMORIES_DIR
from git_aide.repo import Repo

#: Files in the memories folders that are not memories and say nothing when skipped.
_QUIET = frozenset({".gitignore", ".gitkeep", ".gitattributes", "README.md"})


@dataclass(frozen=True)
class Source:
    """Which source a read came from, as the JSON output names it."""

    #: "worktree", "index" or "rev".
    kind: str
    #: The revision as the user gave it (kind "rev" only).
    rev: str | None = None
    #: The commit it named (kind "rev" only).
    commit: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The `source` object of the JSON output."""
        return {"kind": self.kind, "rev": self.rev, "commit": self.commit}


@dataclass
class Entry:
    """One live memory of a source."""

    #: Repo-relative path of its file.
    path: str
    #: The blob id of its content.
    blob: str
    #: The parsed record.
    record: dict[str, Any]
    #: The compiled scope, or None for a project-wide memory.
    compiled: scopes.Compiled | None


@dataclass
class Snapshot:
    """Every live memory of one source, and what was skipped on the way."""

    #: The source that was read.
    source: Source
    #: The memories, in path order.
    entries: list[Entry]
    #: One line per file that was skipped.
    warnings: list[str]


def blob_id(data: bytes) -> str:
    """The id git gives a blob with this content."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def load(repo: Repo, cache: Cache, kind: str = "worktree", rev: str | None = None) -> Snapshot:
    """Read one source's memories."""
    warnings: list[str] = []
    contents: dict[str, bytes] = {}
    if kind == "rev":
        assert rev is not None
        commit, tree = repo.resolve(rev)
        source = Source("rev", rev, commit)
        listing = _rev_listing(repo, cache, tree)
    elif kind == "index":
        source = Source("index")
        listing = _index_listing(repo, cache, warnings)
    else:
        source = Source("worktree")
        listing = _worktree_listing(repo, cache, contents, warnings)
    cache.load_records()
    missing = [b for _, b in listing if b not in cache.records and b not in contents]
    if missing:
        contents.update(repo.read_blobs(list(dict.fromkeys(missing))))
    entries: list[Entry] = []
    seen: dict[str, str] = {}
    for path, blob in listing:
        entry = cache.records.get(blob)
        if entry is None:
            entry = _ingest(cache, blob, contents.get(blob))
        if entry[0] != "ok":
            field = f"{entry[1]}: " if entry[1] else ""
            warnings.append(f"{path}: {field}{entry[2]}; skipped")
            continue
        record = entry[1]
        where = memory.check_path(record, path)
        if where:
            warnings.append(f"{path}: {where}; skipped")
            continue
        if record["uuid"] in seen:
            warnings.append(f"{path}: uuid already used by {seen[record['uuid']]}; skipped")
            continue
        seen[record["uuid"]] = path
        entries.append(Entry(path, blob, record, compiled_scope(cache, record["scope"])))
    cache.flush()
    return Snapshot(source, entries, warnings)


def compiled_scope(cache: Cache, scope: str | None) -> scopes.Compiled | None:
    """The compiled form of a record's scope, from the cache when it has it."""
    if scopes.is_project_wide(scope):
        return None
    assert scope is not None
    got = cache.scopes.get(scope)
    if got is None:
        compiled = scopes.compile_scope(scope)
        cache.add_scope(scope, tuple(compiled))
        return compiled
    return scopes.Compiled(*got)


def _ingest(cache: Cache, blob: str, data: bytes | None) -> tuple[Any, ...]:
    if data is None:
        return ("bad", None, "blob missing from the object database")
    try:
        record = memory.parse(data)
        entry: tuple[Any, ...] = ("ok", record)
    except memory.MemoryFormatError as e:
        entry = ("bad", e.field, str(e))
    cache.add_record(blob, entry)
    return entry


def _rev_listing(repo: Repo, cache: Cache, tree: str | None) -> list[tuple[str, str]]:
    if tree is None:
        return []
    listing = cache.tree_listing(tree)
    if listing is None:
        listing = sorted((f"{MEMORIES_DIR}/{p}", b) for p, b in repo.walk_tree(tree))
        cache.put_tree_listing(tree, listing)
    return [(p, b) for p, b in listing if _is_candidate(p, None)]


def _index_listing(repo: Repo, cache: Cache, warnings: list[str]) -> list[tuple[str, str]]:
    rows = cache.index_listing(repo.index_file)
    if rows is None:
        sig = stat_sig(repo.index_file)
        rows = repo.ls_index()
        cache.put_index_listing(repo.index_file, sig, rows)
    out: list[tuple[str, str]] = []
    unmerged: set[str] = set()
    for path, blob, stage in rows:
        if stage:
            if path not in unmerged:
                warnings.append(f"{path}: unmerged (a conflict is not resolved); skipped")
                unmerged.add(path)
            continue
        if _is_candidate(path, warnings):
            out.append((path, blob))
    return out


def _is_candidate(path: str, warnings: list[str] | None) -> bool:
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".json") and not name.startswith("."):
        return True
    if warnings is not None and name not in _QUIET:
        warnings.append(f"{path}: not a memory file; skipped")
    return False


def _worktree_listing(repo: Repo, cache: Cache, contents: dict[str, bytes],
                      warnings: list[str]) -> list[tuple[str, str]]:
    top = repo.require_worktree("reading the working tree")
    root = os.path.join(top, MEMORIES_DIR)
    old = cache.stat_table(top)
    new: dict[str, tuple[int, int, int, int, str]] = {}
    listing: list[tuple[str, str]] = []
    horizon = (time.time() - RACY_SECONDS) * 1e9
    changed = False
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            it = os.scandir(folder)
        except OSError:
            continue
        with it:
            for d in it:
                rel = d.path[len(top) + 1:].replace(os.sep, "/")
                if d.is_dir(follow_symlinks=False):
                    stack.append(d.path)
                    continue
                if d.is_symlink() or not d.is_file():
                    if d.name not in _QUIET:
                        warnings.append(f"{rel}: not a regular file; skipped")
                    continue
                if not _is_candidate(rel, warnings):
                    continue
                try:
                    st = d.stat(follow_symlinks=False)
                except OSError:
                    continue
                sig = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
                known = old.get(rel)
                if known is not None and known[:4] == sig:
                    blob = known[4]
                else:
                    try:
                        with open(d.path, "rb") as f:
                            data = f.read()
                    except OSError:
                        continue
                    blob = blob_id(data)
                    contents[blob] = data
                    changed = True
                if st.st_mtime_ns < horizon and st.st_ctime_ns < horizon:
                    new[rel] = (*sig, blob)
                listing.append((rel, blob))
    if changed or len(new) != len(old):
        cache.put_stat_table(top, new)
    listing.sort()
    return listing
