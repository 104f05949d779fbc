"""`git aide diff`: memory changes between two sources (docs/review.md).

Identity is the uuid, which is also the file's name: a memory whose path changes (a layer
move) is the same memory. Two listings (path -> blob id) of the sources git diff's
arguments name are compared, from the same listings every read uses (read/listing.py: a
revision's cached tree listing, the index, the working tree), and only the blobs that
differ are read and parsed. Personal memories are never part of it: they are never
committed.
"""

from __future__ import annotations

from git_aide.app.changes import (
    LAYER_RANK,
    compare,
    filter_paths,
    path_filter,
    tree_diff,
)
from git_aide.core.errors import AideError, UsageError
from git_aide.gitio.repo import EMPTY_TREE, check_revision
from git_aide.read import listing
from git_aide.read.record import Source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo


class _Side:
    """Hold one side of a diff: the source as JSON names it, its listing, bytes read from disk."""

    def __init__(self, source: Source, pairs: dict[str, str] | Callable[[], dict[str, str]],
                 contents: dict[str, bytes] | None = None, top: str | None = None,
                 tree: str | None = None) -> None:
        #: Which source.
        self.source = source
        self._pairs = pairs
        #: Blob contents already read from the working tree.
        self.contents = contents or {}
        #: The working tree, to read files that are in no object database.
        self.top = top
        #: The memories tree id of a revision (EMPTY_TREE when it has none), else None.
        self.tree = tree

    @property
    def pairs(self) -> dict[str, str]:
        """Map path -> blob id of the files of the memories folder (compare keeps the shared)."""
        if callable(self._pairs):
            self._pairs = self._pairs()
        return self._pairs




def _rev_side(repo: Repo, cache: Cache, rev: str, label: str | None = None,
              implicit_head: bool = False) -> _Side:
    try:
        commit, tree = repo.resolve(rev)
    except AideError:
        if implicit_head and repo.unborn():  # no commit yet: HEAD is empty
            return _Side(Source("rev", rev, None), {}, tree=EMPTY_TREE)
        raise

    def pairs() -> dict[str, str]:
        # The listing every read of this tree keeps. Only the paths that differ are
        # checked (compare): the rest cost nothing.
        return dict(listing.rev_listing(repo, cache, tree, None))

    return _Side(Source("rev", label or rev, commit), pairs, tree=tree or EMPTY_TREE)


def _index_side(repo: Repo, cache: Cache, warnings: list[str]) -> _Side:
    repo.require_worktree("--cached", reads=True)
    pairs = listing.index_listing(repo, cache, warnings)
    return _Side(Source("index"), dict(pairs))


def _worktree_side(repo: Repo, cache: Cache, warnings: list[str]) -> _Side:
    from git_aide.gitio.spawn import STATUS, spawn

    top = repo.require_worktree("reading the working tree", reads=True)
    contents: dict[str, bytes] = {}
    dirty = listing.dirty(cache, top, spawn(*STATUS), contents, warnings)
    pairs = listing.worktree_listing(repo, cache, dirty, warnings)
    return _Side(Source("worktree"), dict(pairs), contents, top)


def _merge_base(repo: Repo, a: str, b: str) -> str:
    proc = repo.git("merge-base", a, b, check=False)
    base = proc.stdout.decode().split()
    if proc.returncode != 0 or not base:
        raise AideError(f"{a!r} and {b!r} have no merge base")
    return base[0]




def sides(repo: Repo, cache: Cache, args: list[str], cached: bool,
          warnings: list[str]) -> tuple[_Side, _Side]:
    """Return the two sources that `diff`'s arguments name, as git diff reads them."""
    if len(args) > 2:
        raise UsageError("give at most two revisions (or one A..B or A...B range)")
    if len(args) == 1 and ".." in args[0]:
        a, dots, b = args[0].partition("...") if "..." in args[0] else args[0].partition("..")
        a, b = a or "HEAD", b or "HEAD"
        if cached:
            raise UsageError("--cached compares a commit with the index; it takes no range")
        check_revision(a)
        check_revision(b)
        if dots == "...":
            base = _merge_base(repo, repo.resolve(a)[0], repo.resolve(b)[0])
            return (_rev_side(repo, cache, base, label=f"{a}...{b}"),
                    _rev_side(repo, cache, b))
        return _rev_side(repo, cache, a), _rev_side(repo, cache, b)
    if len(args) == 2:
        if cached:
            raise UsageError("--cached compares one commit with the index, not two commits")
        return (_rev_side(repo, cache, check_revision(args[0])),
                _rev_side(repo, cache, check_revision(args[1])))
    if args:
        # docs/review.md: before the first commit HEAD counts as empty, named or not.
        before = _rev_side(repo, cache, check_revision(args[0]), implicit_head=args[0] == "HEAD")
    else:
        before = _rev_side(repo, cache, "HEAD", implicit_head=True)
    after = _index_side(repo, cache, warnings) if cached else _worktree_side(repo, cache, warnings)
    return before, after


def _reader(repo: Repo, side: _Side) -> Callable[[set[str]], dict[str, bytes]]:
    def read(blobs: set[str]) -> dict[str, bytes]:
        got = {b: side.contents[b] for b in blobs if b in side.contents}
        rest = blobs - got.keys()
        got.update(repo.read_blobs(rest))
        missing = rest - got.keys()
        if missing and side.top is not None:  # untracked files are in no object database
            import os

            for path, blob in side.pairs.items():
                if blob in missing:
                    try:
                        with open(os.path.join(side.top, path), "rb") as f:
                            data = f.read()
                    except OSError:
                        continue
                    if listing.blob_id(data) == blob:
                        got[blob] = data
        return got

    return read


def diff_doc(repo: Repo, cache: Cache, args: list[str], *, cached: bool = False,
             paths: Iterable[str] = (), warnings: list[str] | None = None) -> dict[str, Any]:
    """Return the `diff --json` document: what changed between the sources `args` name.

    `args` are the positional revision arguments as `git aide diff` takes them.
    """
    warnings = [] if warnings is None else warnings
    before, after = sides(repo, cache, list(args), cached, warnings)

    def read(blobs: set[str]) -> dict[str, bytes]:
        # Either side's bytes will do: a blob id names one content.
        got = _reader(repo, after)(blobs)
        rest = blobs - got.keys()
        if rest:
            got.update(repo.read_blobs(rest))
        return got

    doc: dict[str, Any] = {"from": before.source.as_json(), "to": after.source.as_json()}
    if before.tree is not None and after.tree is not None:
        doc.update(tree_diff(cache, before.tree, after.tree,
                             lambda w: compare(before.pairs, after.pairs, read, w), warnings))
    else:
        doc.update(compare(before.pairs, after.pairs, read, warnings))
    relevant = path_filter(repo, paths)
    return filter_paths(doc, relevant) if relevant is not None else doc


def differs(doc: dict[str, Any]) -> bool:
    """Tell whether a diff document holds any change."""
    return bool(doc["added"] or doc["forgotten"] or doc["changed"])


def stat(doc: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Count the changes per layer: layer -> {added, changed, forgotten}."""
    counts: dict[str, dict[str, int]] = {}

    def bump(layer: str, kind: str) -> None:
        row = counts.setdefault(layer, {"added": 0, "changed": 0, "forgotten": 0})
        row[kind] += 1

    for m in doc["added"]:
        bump(m["layer"], "added")
    for m in doc["forgotten"]:
        bump(m["layer"], "forgotten")
    for c in doc["changed"]:
        bump(c["after"]["layer"], "changed")
    return {layer: counts[layer] for layer in sorted(counts, key=lambda x: LAYER_RANK.get(x, 9))}
