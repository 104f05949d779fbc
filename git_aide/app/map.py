"""`git aide map`: where the memories are in the code, and where they went stale.

Every folder of the source's code with its files and their size, and the memories that
reach it (a memory reaches a folder when its scope matches a file there or below:
coverage.py; a project-wide memory reaches only the top folder, and one whose scope
matches nothing, the nearest folder of what its scope names): how many, how many
always-on, and how many `audit` finds stale, orphaned or moved. A folder holding much
of the code and no memory is marked `uncovered`. Values only: render/maptree.py draws
them in the terminal, render/mappage.py as a page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from git_aide.app import audit as au
from git_aide.app.coverage import Reach, Tree, measure, sizes_at
from git_aide.app.places import place
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.core.scope import Compiled
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

#: A folder with no memory is `uncovered` when it holds at least this share of the
#: code (in bytes) under the map's first folder.
UNCOVERED_SHARE = 0.02
#: The findings a folder counts (a duplicate is about two memories, not a place).
COUNTED = ("stale", "orphaned", "moved")
#: How much of a memory's text the page shows.
WHAT_CHARS = 280
#: What marks an always-on memory in its stored bytes, canonical or written by hand
#: (each one found is checked in its parsed record).
_ALWAYS = re.compile(rb'"priority"\s*:\s*"always"')


@dataclass(slots=True)
class Folder:
    """Hold one folder of the map, with what is under it."""

    #: Repo-relative, "" for the top folder.
    path: str
    #: Code files at or under it, and their size in bytes.
    files: int = 0
    bytes: int = 0
    #: Memories that reach it (their scope matches a file here or below).
    memories: int = 0
    #: Of them, those whose scope names this very folder.
    here: int = 0
    #: Of them, the always-on ones and those `audit` finds stale, orphaned or moved.
    always: int = 0
    stale: int = 0
    orphaned: int = 0
    moved: int = 0
    #: No memory, and at least UNCOVERED_SHARE of the code under the map's first folder.
    uncovered: bool = False
    #: Its subfolders, in name order.
    children: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Return the folder's counts as `map --json` gives them (its children apart)."""
        return {"path": self.path, "files": self.files, "bytes": self.bytes,
                "memories": self.memories, "here": self.here, "always": self.always,
                "stale": self.stale, "orphaned": self.orphaned, "moved": self.moved,
                "uncovered": self.uncovered}


@dataclass(slots=True)
class Placed:
    """Hold one memory on the map: where it is and what `audit` found about it."""

    entry: Entry
    #: Whether it is always on (priority `always`).
    always: bool
    #: The kinds of the findings about it (stale, orphaned, moved, duplicate).
    kinds: list[str]
    #: The folder its scope names (or the nearest one that holds code).
    place: str
    #: Where it reaches (None: project-wide, the top folder only).
    reach: Reach | None


@dataclass
class Map:
    """Hold the map of one source from one folder down."""

    #: The repository's name (its folder's).
    name: str
    #: The source read (`Source.as_json()`).
    source: dict[str, Any]
    #: The folder the map starts from ("" is the top folder).
    start: str
    #: Every folder at or under `start`, by path.
    folders: dict[str, Folder]
    #: The memories that reach a folder of the map.
    memories: list[Placed]
    #: `audit`'s findings about them.
    findings: list[au.Finding]

    @property
    def root(self) -> Folder:
        """Return the folder the map starts from."""
        return self.folders[self.start]

    def tree_json(self, depth: int | None) -> dict[str, Any]:
        """Return the folders from `start` down, `depth` levels (all when None), nested."""
        def node(f: Folder, left: int | None) -> dict[str, Any]:
            doc = f.as_json()
            if left is None or left > 0:
                nxt = None if left is None else left - 1
                doc["children"] = [node(self.folders[c], nxt) for c in f.children]
            else:
                doc["subfolders"] = len(f.children)
            return doc
        return node(self.root, depth)


def build(repo: Repo, snap: Snapshot, start: str | None = None, *,
          duplicates: bool = False) -> Map:
    """Build the map of `snap` from the folder `start` (a command-line path; the top folder
    when None). `duplicates`: whether the findings include near duplicates."""
    from concurrent.futures import ThreadPoolExecutor

    from git_aide.gitio import pathlog

    folder = _folder(repo, start)
    entries = _reaching(snap.entries, folder)
    kind, commit = snap.source.kind, snap.source.commit
    written = [e.path for e in entries]
    # git's three answers are worked out side by side: the tree's sizes, the source's
    # paths (for a revision, the same listing) and the history audit reads.
    with ThreadPoolExecutor(max_workers=2) as pool:
        sized = pool.submit(sizes_at, repo, commit if kind == "rev" else "HEAD")
        if kind == "rev":
            walked = pool.submit(pathlog.walk, repo, kind, commit, written)
            sizes = sized.result()
            paths = au.Paths(list(sizes), None)
        else:
            paths = au.source_paths(repo, snap)
            walked = pool.submit(pathlog.walk, repo, kind, commit, written, paths.untracked)
            sizes = sized.result()
            measure(paths, sizes, paths.worktree or repo.worktree)
        tree = Tree(paths, sizes)
        top = _checked(tree, folder, start or "")
        reaches = _reaches(tree, entries, tree.below(top))  # while git walks the history
        findings = au.audit(repo, snap, entries, repo.settings, paths=paths,
                            walk=walked.result(), duplicates=duplicates)
    kinds: dict[str, list[str]] = {}
    for finding in findings:
        kinds.setdefault(finding.uuid, []).append(finding.kind)
    folders = {tree.folders[i]: Folder(tree.folders[i]) for i in tree.below(top)}
    _sizes(tree, folders)
    placed = _count(tree, folders, reaches, entries, kinds)
    least = folders[top].bytes * UNCOVERED_SHARE
    for f in folders.values():
        f.uncovered = f.memories == 0 and f.bytes > 0 and f.bytes >= least
    on_map = {p.entry.uuid for p in placed}
    return Map(repo_name(repo), snap.source.as_json(), top, folders, placed,
               [f for f in findings if f.uuid in on_map])


#: Where the memories of one scope reach: (reach, place, the folders of the map they
#: count in); reach None for a project-wide memory.
Reached = tuple["Reach | None", str, set[int]]


def _reaches(tree: Tree, entries: list[Entry], shown: range) -> dict[str, Reached]:
    """Return where each scope of `entries` reaches, by scope ("\\0": project-wide); the
    folders counted are those of the map (`shown`)."""
    out: dict[str, Reached] = {}
    for e in entries:
        c = e.compiled
        key = "\0" if c is None else e.scope or ""
        if key in out:
            continue
        reach, where, ids = (None, "", {tree.index[""]}) if c is None else _reach(tree, c, key)
        out[key] = reach, where, {i for i in ids if i in shown}
    return out


def _count(tree: Tree, folders: dict[str, Folder], reaches: dict[str, Reached],
           entries: list[Entry], kinds: dict[str, list[str]]) -> list[Placed]:
    """Count each memory in the folders of the map it reaches; the memories that reach
    one of them, placed."""
    # Memories that share a scope reach the same folders: counted per scope, then added
    # to each folder once.
    rows: dict[str, list[int]] = {}
    placed: list[Placed] = []
    for e in entries:
        key = "\0" if e.compiled is None else e.scope or ""
        reach, where, ids = reaches[key]
        if not ids:
            continue
        found = kinds.get(e.uuid, [])
        always = _always(e)
        placed.append(Placed(e, always, found, where, reach))
        row = rows.setdefault(key, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += always
        row[2] += "stale" in found
        row[3] += "orphaned" in found
        row[4] += "moved" in found
        if where in folders:
            folders[where].here += 1
    for key, (n, always_n, stale, orphaned, moved) in rows.items():
        for i in reaches[key][2]:
            f = folders[tree.folders[i]]
            f.memories += n
            f.always += always_n
            f.stale += stale
            f.orphaned += orphaned
            f.moved += moved
    return placed


def repo_name(repo: Repo) -> str:
    """Return the repository's name: its working tree's folder, or a bare one's without `.git`."""
    import os

    where = repo.worktree or repo.common_dir
    name = os.path.basename(os.path.normpath(where))
    return name[:-4] if not repo.worktree and name.endswith(".git") else name


def _folder(repo: Repo, start: str | None) -> str:
    """Return the repo-relative folder a command-line path names ("" for none)."""
    if start is None:
        return ""
    from git_aide.rank.selection import query_paths

    [q] = query_paths(repo.worktree, repo.prefix, [start])
    return q.path.rstrip("/")


def _reaching(entries: list[Entry], folder: str) -> list[Entry]:
    """Return the memories whose scope may reach `folder` (all of them for the top folder; a
    project-wide memory reaches only the top folder)."""
    if not folder:
        return entries
    from git_aide.rank.selection import Query, scope_filter

    keep = scope_filter([Query(folder, True)], 0)
    return [e for e in entries if e.compiled is not None and keep(e.compiled)]


def _checked(tree: Tree, folder: str, start: str) -> str:
    """Return `folder` when it holds code; raise an error naming `start` (as given) otherwise."""
    if folder in tree.index:
        return folder
    if folder in tree.paths.set:
        raise AideError(f"{start}: a file; map shows folders (give its folder)")
    raise AideError(f"{start}: no folder of the code has this path")


def _reach(tree: Tree, c: Compiled, scope: str) -> tuple[Reach, str, set[int]]:
    """Return (reach, place, the folders it counts in) of a scope: a scope that matches
    nothing counts in the nearest existing folder of what it names."""
    where = tree.existing(place(c, tree.paths.set))
    reach = tree.reach(c, scope)
    if not reach:
        reach = Reach([], [where])
    return reach, where, tree.reached(reach)


def _sizes(tree: Tree, folders: dict[str, Folder]) -> None:
    """Fill in each folder's files and bytes, at or under it."""
    for folder, here in tree.files.items():
        f = folders.get(folder)
        if f is not None:
            f.files = len(here)
            f.bytes = sum(tree.sizes.get(p, 0) for p in here)
    for path in reversed(list(folders)):  # a folder's tree comes after it
        if not path:
            continue
        parent = path.rpartition("/")[0]
        up = folders.get(parent)
        if up is not None:
            f = folders[path]
            up.files += f.files
            up.bytes += f.bytes
            up.children.append(path)
    for f in folders.values():
        f.children.reverse()


def _always(e: Entry) -> bool:
    """Tell whether a memory is always on: its bytes searched first, its record read only
    when they say so."""
    data = e.data()
    if data is not None and (b'"always"' not in data or _ALWAYS.search(data) is None):
        return False
    return e.read_record().get("priority") == "always"


def what_of(p: Placed) -> str:
    """Return a memory's text as the page shows it: on one line, cut to WHAT_CHARS."""
    flat = " ".join(p.entry.read_what().split())
    return flat if len(flat) <= WHAT_CHARS else flat[: WHAT_CHARS - 1] + "…"
