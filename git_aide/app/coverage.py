"""The code as folders, and which folders each scope reaches (for `map`).

A scope reaches a folder when it matches a file in that folder or below it: a memory
scoped `src/auth/**` reaches `src/auth`, every folder under it, `src` and the top
folder. What a scope reaches is kept compactly as a `Reach`: the folders whose whole
tree it matches, and the other folders holding a file it matches (each reaching its
folders above too). The page of `map --html` reads the same two lists to list a
folder's memories, so the page and the counts never disagree.

A scope's globs are matched against each folder's files until one matches; a folder
none of whose paths holds a literal run the glob needs (`.go` of `**/*.go`) is passed
over without matching any of its files.
"""

from __future__ import annotations

import bisect
import os
import re

from git_aide.core import scope as scopes
from git_aide.core.glob import class_end

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.audit import Paths
    from git_aide.gitio.repo import Repo


class Reach:
    """Hold the folders a scope reaches: `whole` (every folder at or under each, and those
    above) and `leaves` (each, and the folders above it)."""

    __slots__ = ("whole", "leaves")

    def __init__(self, whole: list[str], leaves: list[str]) -> None:
        #: Folders whose whole tree the scope matches ("" is the top folder).
        self.whole = whole
        #: Other folders holding a file the scope matches, none under a `whole` one.
        self.leaves = leaves

    def __bool__(self) -> bool:
        return bool(self.whole or self.leaves)


class Tree:
    """Hold the source's code paths as folders: every folder that holds a file, at any
    depth, with its files and their size, in an order where a folder's tree is one run
    (`src`, `src/a`, `src/a/b`, `src/b`, then `src-x`)."""

    def __init__(self, paths: Paths, sizes: dict[str, int]) -> None:
        files: dict[str, list[str]] = {}
        for p in paths.paths:
            files.setdefault(p.rpartition("/")[0], []).append(p)
        every = set(files)
        for folder in files:
            while folder:
                folder = folder.rpartition("/")[0]
                if folder in every:
                    break
                every.add(folder)
        every.add("")
        #: The code paths.
        self.paths = paths
        #: Every folder, a folder's tree one run.
        self.folders: list[str] = sorted(every, key=_order)
        self._keys = [_order(f) for f in self.folders]
        #: Folder -> its place in `folders`.
        self.index = {f: i for i, f in enumerate(self.folders)}
        #: Folder -> the paths of the files right in it.
        self.files = files
        #: Path -> its size in bytes.
        self.sizes = sizes
        # Each folder's paths as one text, to pass over a folder in one look.
        self._text: dict[str, str] = {}

    def below(self, folder: str) -> range:
        """Return the places (in `folders`) of `folder` and every folder under it."""
        at = self.index[folder]
        if not folder:
            return range(at, len(self.folders))
        return range(at, bisect.bisect_left(self._keys, _order(folder) + "\0\uffff", at))

    def above(self, folder: str) -> list[int]:
        """Return the places of `folder` and of each folder above it, up to the top."""
        out = [self.index[folder]]
        while folder:
            folder = folder.rpartition("/")[0]
            out.append(self.index[folder])
        return out

    def existing(self, folder: str) -> str:
        """Return `folder`, or the nearest folder above it that holds code ("" at worst)."""
        while folder and folder not in self.index:
            folder = folder.rpartition("/")[0]
        return folder

    def reach(self, c: scopes.Compiled, scope: str) -> Reach:
        """Return the folders a (compiled) scope reaches; `scope`, its text."""
        whole: list[str] = []
        leaves: set[str] = set()
        alts = scopes.expand_braces(scopes.normalize(scope))
        if len(alts) != len(c.bases):  # not of this scope: match without looking ahead
            alts = [""] * len(c.bases)
        for alt, base, rx in zip(alts, c.bases, c.regexes, strict=True):
            if not rx or rx == ".":  # a plain path, or everything
                if rx == "." or not base or base in self.index:
                    whole.append(base if rx != "." else "")
                elif base in self.paths.set:
                    leaves.add(base.rpartition("/")[0])
                continue
            if base and base not in self.index:
                continue
            match = re.compile(rx).match
            needs = _needed(alt.lstrip("/"))
            for i in self.below(base):
                folder = self.folders[i]
                here = self.files.get(folder)
                if not here or folder in leaves:
                    continue
                if needs and needs not in self._joined(folder, here):
                    continue
                if any(map(match, here)):
                    leaves.add(folder)
        if whole:
            whole = sorted(set(whole), key=_order)
            if "" in whole:
                return Reach([""], [])
            leaves = {f for f in leaves if not any(f == w or f.startswith(w + "/")
                                                   for w in whole)}
        return Reach(whole, sorted(leaves, key=_order))

    def reached(self, r: Reach) -> set[int]:
        """Return the places of every folder a reach counts in."""
        out: set[int] = set()
        for w in r.whole:
            out.update(self.below(w))
            out.update(self.above(w))
        for leaf in r.leaves:
            out.update(self.above(leaf))
        return out

    def _joined(self, folder: str, here: list[str]) -> str:
        got = self._text.get(folder)
        if got is None:
            got = self._text[folder] = "\n".join(here)
        return got


def _order(folder: str) -> str:
    """Return the sort key that keeps a folder's tree in one run (`/` before any character)."""
    return folder.replace("/", "\0")


def _needed(glob: str) -> str:
    """Return the longest run of plain characters every path a glob matches holds (its glob
    characters and bracket expressions cut runs), or "" when there is none."""
    best = ""
    for seg in glob.split("/"):
        run: list[str] = []
        i = 0
        while i <= len(seg):
            ch = seg[i] if i < len(seg) else "*"
            end = class_end(seg, i) if ch == "[" else -1
            if ch in "*?" or end > 0:
                if len(run) > len(best):
                    best = "".join(run)
                run = []
                i = end + 1 if end > 0 else i + 1
                continue
            run.append(ch)
            i += 1
    return best


def sizes_at(repo: Repo, commit: str | None) -> dict[str, int]:
    """Map path -> size in bytes of every file of a commit's tree (`ls-tree -r -l`); empty
    for no commit (a branch not yet born)."""
    if commit is None:
        return {}
    proc = repo.git("ls-tree", "-r", "-l", "-z", "--full-tree", commit, check=False)
    return parse_sizes(proc.stdout) if proc.returncode == 0 else {}


def measure(paths: Paths, sizes: dict[str, int], top: str | None) -> None:
    """Add to `sizes` the size on disk of each path it lacks (a file new since HEAD; 0
    when it is not on disk)."""
    for p in paths.paths:
        if p not in sizes:
            try:
                sizes[p] = os.lstat(os.path.join(top, p)).st_size if top else 0
            except OSError:
                sizes[p] = 0


def parse_sizes(out: bytes) -> dict[str, int]:
    """Parse path -> size of `git ls-tree -r -l -z` (a submodule, which has none, is 0)."""
    sizes: dict[str, int] = {}
    for item in out.split(b"\0"):
        if not item:
            continue
        meta, _, path = item.partition(b"\t")
        size = meta.split()[-1]
        sizes[path.decode(errors="surrogateescape")] = int(size) if size.isdigit() else 0
    return sizes
