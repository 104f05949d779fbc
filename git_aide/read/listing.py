"""How each source is listed as (path, blob id) pairs, as cheaply as it can be.

- a revision: the blobs below its memories tree, walked once per tree id (pygit2) and
  then read from the cache;
- the index: `git ls-files --stage`, kept in the cache under the index file's stat;
- the working tree: the index's listing, corrected by the files `git status` says
  differ from it (read here, through a stat table so that they too are read only when
  they change).

Reads skip what is no memory with a warning (is_candidate). `validate` lists every file
of a source instead, nothing skipped, and says what is wrong with each (every_file()).
"""

from __future__ import annotations

import os
import stat
import time

from git_aide.cache.folder import RACY_SECONDS, Cache
from git_aide.core.files import stat_sig
from git_aide.core.memory import MEMORIES_DIR
from git_aide.gitio import folders
from git_aide.gitio.repo import Repo
from git_aide.gitio.spawn import Spawned
from git_aide.gitio.status import QUIET, changed_paths


def blob_id(data: bytes) -> str:
    """Return the id git gives a blob with this content."""
    import hashlib  # only files that differ from the index are hashed: off the hot path

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def rev_listing(repo: Repo, cache: Cache, tree: str | None, warnings: list[str] | None
                 ) -> list[tuple[str, str]]:
    if tree is None:
        return []
    listing = cache.tree_listing(tree)
    if listing is None:
        listing = sorted((f"{MEMORIES_DIR}/{p}", b) for p, b in repo.walk_tree(tree))
        cache.put_tree_listing(tree, listing)
    return [(p, b) for p, b in listing if is_candidate(p, warnings)]


def index_rows(repo: Repo, cache: Cache) -> list[tuple[str, str, int]]:
    rows = cache.index_listing(repo.index_file)
    if rows is None:
        sig = stat_sig(repo.index_file)
        rows = repo.ls_index()
        cache.put_index_listing(repo.index_file, sig, rows)
    return rows


def index_listing(repo: Repo, cache: Cache, warnings: list[str]) -> list[tuple[str, str]]:
    rows = index_rows(repo, cache)
    out: list[tuple[str, str]] = []
    unmerged: set[str] = set()
    for path, blob, stage in rows:
        if stage:
            if path not in unmerged:
                warnings.append(f"{path}: unmerged (a conflict is not resolved); skipped")
                unmerged.add(path)
            continue
        if is_candidate(path, warnings):
            out.append((path, blob))
    return out


def is_candidate(path: str, warnings: list[str] | None) -> bool:
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".json") and not name.startswith("."):
        return True
    if warnings is not None and name not in QUIET:
        warnings.append(f"{path}: not a memory file; skipped")
    return False


def dirty(cache: Cache, top: str, status: Spawned | None, contents: dict[str, bytes],
          warnings: list[str]) -> list[tuple[str, str]]:
    """List (path, blob id) of the files that differ from the index (untracked, ignored,
    modified); deleted ones with an empty blob id.

    git compares the files with the index's stat data in C, so an unchanged tree costs
    no blob reads; the few files that differ (personal memories, say) are read here,
    through a stat table of our own so that they too are read only when they change.
    """
    paths = changed_paths(top, status)
    return read_dirty(cache, top, paths, contents, warnings) if paths else []




def worktree_listing(repo: Repo, cache: Cache, dirty: list[tuple[str, str]],
                      warnings: list[str]) -> list[tuple[str, str]]:
    """Return the index's blob ids, corrected by the files that differ from it."""
    changed = {p for p, _b in dirty}
    listing = [(path, blob) for path, blob, stage in index_rows(repo, cache)
               if not stage and path not in changed]
    listing.extend((p, b) for p, b in dirty if b)
    listing.sort()
    return [(p, b) for p, b in listing if is_candidate(p, warnings)]




def guess_dirty(table: dict[str, tuple[int, int, int, int, str]], top: str
                ) -> list[tuple[str, str]]:
    """Guess (path, blob id) of the files that differed from the index when read_dirty() last
    ran (its stat `table`) and have not changed since, sorted: what a read may assume
    differs before git has said."""
    out: list[tuple[str, str]] = []
    for rel, (*sig, blob) in table.items():
        try:
            st = os.lstat(os.path.join(top, rel))
        except OSError:
            if not blob:  # deleted then, and still
                out.append((rel, blob))
            continue
        if blob and (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) == tuple(sig):
            out.append((rel, blob))
    return sorted(out)


def read_dirty(cache: Cache, top: str, paths: list[str], contents: dict[str, bytes],
               warnings: list[str],
               table: dict[str, tuple[int, int, int, int, str]] | None = None
               ) -> list[tuple[str, str]]:
    """Read (path, blob id) of these files as they are now; a missing one with an empty id.
    `table`: the working tree's stat table, when the caller has read it already."""
    old = cache.stat_table(top) if table is None else table
    new: dict[str, tuple[int, int, int, int, str]] = {}
    horizon = (time.time() - RACY_SECONDS) * 1e9
    out: list[tuple[str, str]] = []
    for rel in paths:
        full = os.path.join(top, rel)
        try:
            st = os.lstat(full)
        except OSError:
            out.append((rel, ""))  # deleted in the working tree
            new[rel] = (0, 0, 0, 0, "")  # noted, for guess_dirty()
            continue
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISLNK(st.st_mode):
                warnings.append(f"{rel}: a symbolic link; skipped (git-aide reads files)")
            out.append((rel, ""))
            continue
        sig = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        known = old.get(rel)
        if known is not None and known[:4] == sig:
            blob = known[4]
        else:
            try:
                with open(full, "rb") as f:
                    data = f.read()
            except OSError as e:
                warnings.append(f"{rel}: cannot be read ({e.strerror}); skipped")
                out.append((rel, ""))
                continue
            blob = blob_id(data)
            contents[blob] = data
        if st.st_mtime_ns < horizon and st.st_ctime_ns < horizon:
            new[rel] = (*sig, blob)
        out.append((rel, blob))
    if new != old:
        cache.put_stat_table(top, new)
    return out


# -- every file of a source (validate) --------------------------------------------------

#: A file under the memories folder of a source: (path, blob id, its bytes when they
#: were read already: the working tree's).
File = tuple[str, str, "bytes | None"]


def every_file(repo: Repo, kind: str, rev: str | None, problems: list[tuple[str, str]]
               ) -> list[File]:
    """List every file under the memories folder of a source ("worktree", "index", or "rev"
    at `rev`), nothing skipped: a file that cannot be listed as a blob (not a regular
    file, unmerged, unreadable) goes to `problems` as (path, what is wrong)."""
    if kind == "rev":
        assert rev is not None
        return _rev_files(repo, rev, problems)
    if kind == "index":
        return _index_files(repo, problems)
    return _worktree_files(repo, problems)


def _worktree_files(repo: Repo, problems: list[tuple[str, str]]) -> list[File]:
    """List every file under the memories folder on disk, with its bytes."""
    top = repo.require_worktree("validating the working tree", reads=True)
    items: list[File] = []
    # A folder that leads out of the working tree is named once, and not read.
    unsafe = folders.problems(top)
    problems.extend((rel, message.split(" ", 1)[1]) for rel, message in unsafe)
    skip = {os.path.join(top, rel) for rel, _ in unsafe}
    if any(rel in (".aide", MEMORIES_DIR) for rel, _ in unsafe):
        return items
    stack = [os.path.join(top, MEMORIES_DIR)]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for d in it:
                rel = d.path[len(top) + 1:].replace(os.sep, "/")
                if d.path in skip:
                    continue
                if d.is_dir(follow_symlinks=False):
                    stack.append(d.path)
                elif d.is_symlink() or not d.is_file():
                    problems.append((rel, "not a regular file"))
                else:
                    try:
                        with open(d.path, "rb") as f:
                            data = f.read()
                    except OSError as e:
                        problems.append((rel, f"cannot be read ({e.strerror})"))
                        continue
                    items.append((rel, blob_id(data), data))
    items.sort()
    return items


def _index_files(repo: Repo, problems: list[tuple[str, str]]) -> list[File]:
    """List every stage-0 entry under the memories folder of the index (GIT_INDEX_FILE)."""
    # Not index_rows(): it drops symlinks silently, and validation must name them.
    repo.require_worktree("--staged", reads=True)
    items: list[File] = []
    unmerged: set[str] = set()
    for mode, oid, stage, path in repo.ls_files():
        if stage:
            if path not in unmerged:
                unmerged.add(path)
                problems.append((path, "unmerged: a conflict is not resolved "
                                       "(run git aide resolve)"))
            continue
        if mode in ("100644", "100755"):
            items.append((path, oid, None))
        else:
            problems.append((path, "not a regular file"))
    return items


def _rev_files(repo: Repo, rev: str, problems: list[tuple[str, str]]) -> list[File]:
    """List every blob under the memories folder of a commit-ish."""
    _commit, tree = repo.resolve(rev)
    if tree is None:
        return []
    # Not rev_listing(): its cached listing keeps no modes, and validation must name
    # what is not a regular file.
    out = repo.git("ls-tree", "-r", "-z", tree).stdout.decode(errors="surrogateescape")
    items: list[File] = []
    for row in out.split("\0"):
        if not row:
            continue
        meta, _, path = row.partition("\t")
        mode, _type, oid = meta.split()
        path = f"{MEMORIES_DIR}/{path}"
        if mode in ("100644", "100755"):
            items.append((path, oid, None))
        else:
            problems.append((path, "not a regular file"))
    return items
