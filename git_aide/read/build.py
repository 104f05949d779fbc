"""Building a source's entries from its listing: each (path, blob id) pair's metadata
from the cache's record packs (only the blobs it lacks are read and parsed), the checks
every read makes (a memory in the wrong place, a uuid used twice), and the grouping by
scope that a view saves. Not needed by a read whose view is saved and whose working
tree differs from the index in no memory file: imported when it is needed.
"""

from __future__ import annotations

from git_aide.cache import views
from git_aide.core import memory
from git_aide.core import scope as scopes
from git_aide.read import listing
from git_aide.read.record import (
    LAYER,
    MISSING,
    RELPATH,
    SCOPE,
    STATUS,
    UPDATED_AT,
    UUID,
    meta_of,
    read_again,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Group, Records, Row

#: Project-wide memories are kept newest first, in groups of this many: a path recall
#: weighs only the newest few hundred of them (recall.py's PROJECT_WIDE_SCAN) and need
#: not decode the thousands behind.
WIDE_CHUNK = 256


def groups(repo: Repo, cache: Cache, pairs: list[tuple[str, str]],
           contents: dict[str, bytes], warnings: list[str], key: tuple[str, str] | None,
           built: dict[tuple[str, str], dict[str, Any]] | None = None
           ) -> tuple[list[str], list[Group]]:
    """Build a source's entries by scope from its listing, and save them as a view
    under `key` (None: not saved); `built` keeps each record parsed on the way, by
    (path, blob id) (Records.built).

    Returns every warning (the listing's, then the records') and the groups.
    """
    skipped, rows = build(repo, cache, pairs, contents, built)
    if any(MISSING in w for w in skipped):
        key = None  # a blob that could not be read now may be readable next time
    skipped = warnings + skipped
    by_scope: dict[str | None, list[Row]] = {}
    for row in rows:
        scope = row[2][SCOPE]
        by_scope.setdefault(None if scopes.is_project_wide(scope) else scope, []).append(row)
    compiled = {scope: compiled_scope(cache, scope) for scope in by_scope}
    cache.flush()
    grouped: list[tuple[str | None, list[Row]]] = []
    for scope, group in by_scope.items():
        if scope is None and len(group) > WIDE_CHUNK:
            # Newest first (a stable sort: equal times stay in path order), in groups of
            # WIDE_CHUNK: a search that finds one of them decodes only its group.
            group = sorted(group, key=lambda row: row[2][UPDATED_AT], reverse=True)
            grouped += [(None, group[i:i + WIDE_CHUNK])
                        for i in range(0, len(group), WIDE_CHUNK)]
        else:
            grouped.append((scope, group))
    if key:
        views.save(cache, key, skipped, [
            (None if (c := compiled[s]) is None else c.as_tuple(), r) for s, r in grouped])
    return skipped, [(compiled[s], r) for s, r in grouped]


def build(repo: Repo, cache: Cache, pairs: list[tuple[str, str]],
          contents: dict[str, bytes],
          built: dict[tuple[str, str], dict[str, Any]] | None = None
          ) -> tuple[list[str], list[Row]]:
    """Build a listing's warnings and (path, blob, meta, content) rows from the record packs
    (`built`: groups()').

    The content travels with the row into the view, so that showing a memory never
    needs the packs again.
    """
    cache.load_records()
    metas = cache.metas
    missing = [b for _, b in pairs if b not in metas and b not in contents]
    if missing:
        if len(missing) >= FROM_FILES:
            _read_files(repo, pairs, metas, contents)
            missing = [b for b in missing if b not in contents]
        contents.update(repo.read_blobs(list(dict.fromkeys(missing))))
        # Untracked and personal files are in no object database: read them again.
        for path, blob in pairs:
            if blob not in metas and blob not in contents:
                data = read_again(repo, path, blob)
                if data:
                    contents[blob] = data
    warnings: list[str] = []
    rows: list[Row] = []
    seen: dict[str, str] = {}
    for path, blob in pairs:
        meta = metas.get(blob)
        if meta is None:
            meta = _ingest(cache, blob, contents.get(blob), path, built)
        if meta[STATUS] != "ok":
            _bad, field, message = meta
            warnings.append(f"{path}: {f'{field}: ' if field else ''}{message}; skipped")
            continue
        problem = _misfit(path, meta, seen)
        if problem:
            warnings.append(problem)
            continue
        # The contents read by blob id, and those this process added to the cache, are
        # that blob's: only a pack's slice (which a crash may have damaged) is hashed.
        raw = contents.get(blob) or cache.own_raw(blob)
        if raw is None:
            raw = cache.raw(blob)
            if raw is None or listing.blob_id(raw) != blob:
                raw = read_again(repo, path, blob)
        seen[meta[UUID]] = path
        rows.append((path, blob, meta, raw))
    return warnings, rows


#: A build that lacks this many blobs or more reads them from the working tree's files
#: first (those whose bytes still hash to the blob), and only the rest from git.
FROM_FILES = 256


def _read_files(repo: Repo, pairs: list[tuple[str, str]], metas: dict[str, Any],
                contents: dict[str, bytes]) -> None:
    """Read into `contents` the blobs of the listing that neither `metas` nor `contents`
    has, from the working tree's files that hold them still. A fresh clone's files
    are in the page cache, just written: reading and hashing them costs a third of what
    `git cat-file --batch` takes to inflate the same blobs from a pack, deltas and all,
    and hand them over a pipe (1 s against 3 s of CPU at 100,000 memories)."""
    import hashlib
    import os
    import stat

    top = repo.worktree
    if top is None:
        return
    sha1 = hashlib.sha1
    # Never a symbolic link's target, never a wait on a FIFO: a file that is not the
    # blob's is left to git.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    tried = found = 0
    for path, blob in pairs:
        if blob in metas or blob in contents:
            continue
        if tried >= FROM_FILES and 2 * found < tried:
            return  # the files hold other versions (an old revision's read): git's turn
        tried += 1
        try:
            fd = os.open(os.path.join(top, path), flags)
        except OSError:
            continue
        try:
            data = os.read(fd, READ_SIZE)
            if len(data) == READ_SIZE:  # a large file (a regular one: not /dev/zero)
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                chunks = [data]
                while chunk := os.read(fd, READ_SIZE):
                    chunks.append(chunk)
                data = b"".join(chunks)
        except OSError:
            continue
        finally:
            os.close(fd)
        if sha1(b"blob %d\0" % len(data) + data).hexdigest() == blob:
            contents[blob] = data
            found += 1


#: What one read of a memory's file asks for (a memory is a few KB).
READ_SIZE = 1 << 16


#: More files kept by parse_few() than this and they are forgotten.
MOST_FEW = 1024


def parse_few(repo: Repo, pairs: list[tuple[str, str]], contents: dict[str, bytes],
              warnings: list[str], few: dict[tuple[str, str], tuple[tuple[Any, ...], bytes]],
              records: Records) -> tuple[list[str], list[Group]]:
    """Return the checks of build() on a few files read from disk, grouped by scope:
    for a few files, parsing them beats loading every pack of the cache. `few` keeps
    what was read of each file, by (path, blob id): its metadata and bytes (a blob id
    names its bytes). A long-lived process lays the same files that differ from the
    index over its view at every call (personal memories never are in the index), and
    passes the same dict (read/load.Held.few), so each is read, hashed and parsed once.
    `records` keeps each record parsed, so that showing it parses nothing again."""
    by_scope: dict[str | None, list[Row]] = {}
    seen: dict[str, str] = {}
    for path, blob in pairs:
        got = few.get((path, blob))
        if got is None:
            data = contents.get(blob) or read_again(repo, path, blob)
            try:
                parsed = memory.parse(data, path)
                meta = meta_of(parsed)
            except memory.MemoryFormatError as e:
                warnings.append(f"{path}: {e.field + ': ' if e.field else ''}{e}; skipped")
                continue
            # Parsed already: a long-lived process shows a hand-edited file without
            # parsing (and hashing) it again.
            records.keep(path, blob, parsed)
            if len(few) >= MOST_FEW:
                few.clear()
            few[(path, blob)] = got = (meta, data)
        meta, data = got
        problem = _misfit(path, meta, seen)
        if problem:
            warnings.append(problem)
            continue
        seen[meta[UUID]] = path
        scope = None if scopes.is_project_wide(meta[SCOPE]) else meta[SCOPE]
        by_scope.setdefault(scope, []).append((path, blob, meta, data))
    return warnings, [(None if s is None else records.compiled(s), rows)
                      for s, rows in by_scope.items()]


def _misfit(path: str, meta: tuple[Any, ...], seen: dict[str, str]) -> str | None:
    """Say why a well-formed memory is skipped all the same (its file is not where its
    layer and uuid put it, or an earlier file has its uuid); None when it is not."""
    if path != meta[RELPATH]:
        where = memory.misplaced(path, meta[UUID], meta[LAYER], meta[RELPATH])
        return f"{path}: {where}; skipped"
    if meta[UUID] in seen:
        return f"{path}: uuid already used by {seen[meta[UUID]]}; skipped"
    return None


def compiled_scope(cache: Cache, scope: str | None) -> scopes.Compiled | None:
    """Compile a record's scope, or take it from the cache when it has it."""
    if scopes.is_project_wide(scope):
        return None
    assert scope is not None
    got = cache.scopes.get(scope)
    if got is None:
        compiled = scopes.compile_scope(scope)
        cache.add_scope(scope, compiled.as_tuple())
        return compiled
    return scopes.Compiled(*got)


def _ingest(cache: Cache, blob: str, data: bytes | None, path: str,
            built: dict[tuple[str, str], dict[str, Any]] | None) -> tuple[Any, ...]:
    """Parse a blob the cache lacks, and keep its metadata (or why it is no memory), and
    in `built` its record (groups())."""
    if data is None:
        return ("bad", None, MISSING)
    try:
        record = memory.parse(data, path)
        meta = meta_of(record)
        cache.add(blob, meta, data)
        if built is not None:
            built[(path, blob)] = record
    except memory.MemoryFormatError as e:
        meta = ("bad", e.field, str(e))
        cache.add(blob, meta, None)
    return meta
