"""One walk of the history: which commits changed which paths, renames included.

`audit` asks, for many memories at once, what happened to the code under each scope
since the memory was last written. This module answers all of it from a single
`git log --first-parent -M --name-status` read newest first, stopped as soon as the
last-writing commit of every memory has been seen.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from git_aide.core import scope as scopes
from git_aide.core.memory import MEMORIES_DIR
from git_aide.gitio.repo import Repo

#: A change: (status letter, path, new path for a rename or copy else None).
Change = tuple[str, str, "str | None"]


class Walk:
    """Hold the changes of the commits newer than the oldest memory, newest first.

    Commits are numbered from 0 (newest); for the working tree and the index, 0 is the
    uncommitted change against HEAD. "After" a commit means a smaller number.
    """

    def __init__(self) -> None:
        #: Per commit number: its code changes (memory files left out).
        self.changes: list[list[Change]] = []
        #: Whether commit 0 stands for uncommitted changes rather than a commit.
        self.uncommitted = False
        #: Memory file path -> number of the newest commit that wrote it.
        self.written: dict[str, int] = {}
        #: When the source was made (a commit's date); None for the working tree/index.
        self.source_time: datetime | None = None
        #: (commit number, old path, new path) of every rename, newest first.
        self.renames: list[tuple[int, str, str]] = []
        self._by_old: dict[str, list[tuple[int, str]]] = {}
        #: Older memory path -> its path at the source, for memories moved between layers.
        self._moved_to: dict[str, str] = {}
        self._touched: dict[str, list[tuple[int, str]]] | None = None
        self._added: dict[int, frozenset[str]] = {}

    def add_commit(self, changes: list[Change]) -> int:
        """Record the next (older) commit's changes; returns its number."""
        n = len(self.changes)
        code: list[Change] = []
        for status, path, new in changes:
            target = new or path
            if target.startswith(MEMORIES_DIR + "/"):
                current = self._moved_to.get(target, target)
                if status == "R" and path.startswith(MEMORIES_DIR + "/"):
                    # Moved to another layer: the same memory and the same scope, so
                    # its last write is further back, under its old path.
                    self._moved_to[path] = current
                elif status != "D":
                    self.written.setdefault(current, n)
                continue
            if path.startswith(".aide/") and (new is None or new.startswith(".aide/")):
                continue
            code.append((status, path, new))
            if new is not None and status == "R":
                self.renames.append((n, path, new))
                self._by_old.setdefault(path, []).append((n, new))
        self.changes.append(code)
        return n

    def final_path(self, path: str, after: int) -> str:
        """Follow later renames to where `path`, as it was right after commit `after`, went."""
        seen = 0
        while seen < 1000:
            later = [(n, new) for n, new in self._by_old.get(path, ()) if n < after]
            if not later:
                return path
            after, path = max(later)  # the first rename after `after`
            seen += 1
        return path

    def renames_after(self, since: int, c: scopes.Compiled) -> list[tuple[str, str]]:
        """List (old path, where it is now) of files the scope matched that were renamed after
        commit `since`."""
        out = []
        for n, old, new in self.renames:
            if n < since and _under_any(old, c) and scopes.relevant(c, old, False):
                out.append((old, self.final_path(new, n)))
        return out

    def deleted_after(self, since: int, c: scopes.Compiled) -> list[str]:
        """Return the files the scope matched that were deleted after commit `since`."""
        return [path for n in range(min(since, len(self.changes)))
                for status, path, _ in self.changes[n]
                if status == "D" and _under_any(path, c) and scopes.relevant(c, path, False)]

    def added_after(self, since: int) -> frozenset[str]:
        """Return the paths added (or renamed or copied into place) after commit `since`."""
        got = self._added.get(since)
        if got is None:
            got = frozenset((new or path) for n in range(min(since, len(self.changes)))
                            for status, path, new in self.changes[n] if status in "ARC")
            self._added[since] = got
        return got

    def commits_touching(self, since: int, c: scopes.Compiled) -> int:
        """Count the commits after `since` that changed a path the scope matches."""
        touched = self._touched_index()
        hit: set[int] = set()
        for base in set(c.bases):
            for n, path in touched.get(base, ()):  # in commit order, newest first
                if n >= since:
                    break
                if n not in hit and scopes.relevant(c, path, False):
                    hit.add(n)
        if self.uncommitted:
            hit.discard(0)  # not a commit
        return len(hit)

    def _touched_index(self) -> dict[str, list[tuple[int, str]]]:
        """Map each folder (and file) to (commit number, path) of every change at or under it."""
        if self._touched is None:
            index: dict[str, list[tuple[int, str]]] = {}
            for n, changes in enumerate(self.changes):
                for _, path, new in changes:
                    for p in (path, new) if new else (path,):
                        segs = p.split("/")
                        index.setdefault("", []).append((n, p))
                        for i in range(1, len(segs) + 1):
                            index.setdefault("/".join(segs[:i]), []).append((n, p))
            self._touched = index
        return self._touched


def _under_any(path: str, c: scopes.Compiled) -> bool:
    return any(not b or path == b or path.startswith(b + "/") for b in c.bases)


def walk(repo: Repo, kind: str, commit: str | None, memory_paths: list[str],
         untracked: bool = False) -> Walk:
    """Walk the first-parent history of a source ("worktree", "index", or "rev" at
    `commit`) until every memory's last write is seen (`untracked`: the working tree
    has new files, which may be renamed ones)."""
    w = Walk()
    if kind == "rev":
        start = commit
        if start:
            stamp = repo.git("show", "-s", "--format=%ct", start).stdout.strip()
            w.source_time = datetime.fromtimestamp(int(stamp or 0), timezone.utc)
    else:
        head = repo.git("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        start = head.stdout.decode().strip() if head.returncode == 0 else None
        w.uncommitted = True
        diff = ["diff", "--cached"] if kind == "index" else ["diff"]
        if start:
            out = (_worktree_diff(repo, start) if kind == "worktree" and untracked else
                   repo.git(*diff, "-M", "--name-status", "-z", start, "--").stdout)
            w.add_commit(_changes(out.split(b"\0")))
        else:
            w.add_commit([])
    if not start:
        return w
    committed = repo.git("ls-tree", "-r", "-z", "--name-only", start, "--",
                         MEMORIES_DIR).stdout.decode(errors="surrogateescape").split("\0")
    wanted = set(memory_paths) & {p for p in committed if p}
    _read_log(repo, start, w, wanted)
    return w


def _worktree_diff(repo: Repo, start: str) -> bytes:
    """Run `git diff -M HEAD` on the working tree with its new files in it, so that a plain
    `mv` not yet added is seen as the rename it is: the new files are marked
    intent-to-add in a copy of the index (the real one is left alone)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="git-aide-audit-") as tmp:
        index = os.path.join(tmp, "index")
        if os.path.exists(repo.index_file):
            shutil.copyfile(repo.index_file, index)
        for args in (["add", "--intent-to-add", "--all", "--", "."],
                     ["diff", "-M", "--name-status", "-z", start, "--"]):
            proc = repo.git(*args, check=False, cwd=repo.worktree,
                            env={"GIT_INDEX_FILE": index})
            if proc.returncode != 0:  # then renames of new files go unseen, no worse
                return repo.git("diff", "-M", "--name-status", "-z", start, "--").stdout
    return proc.stdout


def _read_log(repo: Repo, start: str, w: Walk, wanted: set[str]) -> None:
    """Read `git log` newest first until every wanted memory path has a writing commit."""
    missing = wanted - w.written.keys()
    if not missing:
        return
    current: list[bytes] | None = None  # the tokens of the commit being read
    rest = b""
    with repo.stream("log", "--first-parent", "--diff-merges=first-parent", "-M",
                     "--name-status", "-z", "--format=%x01%H", start, "--") as out:
        while missing:
            chunk = out.read(1 << 16)
            tokens = (rest + chunk).split(b"\0")
            rest = tokens.pop() if chunk else b""
            for tok in tokens:
                tok = tok.lstrip(b"\n")
                if not tok.startswith(b"\x01"):
                    if current is not None and tok:
                        current.append(tok)
                    continue
                if current is not None:
                    _record(w, current, missing)
                current = []
            if not chunk:
                if current is not None:
                    _record(w, current, missing)
                break


def _record(w: Walk, tokens: list[bytes], missing: set[str]) -> None:
    """Add one commit's changes and tick off the memories it wrote."""
    n = w.add_commit(_changes(tokens))
    missing.difference_update([p for p, at in w.written.items() if at == n])


def _changes(tokens: list[bytes]) -> list[Change]:
    """Parse `--name-status -z` tokens: STATUS path [new path]."""
    out: list[Change] = []
    toks = [t.lstrip(b"\n") for t in tokens if t.strip(b"\n")]
    i = 0
    while i + 1 < len(toks):
        letter = toks[i][:1].decode()
        if letter in ("R", "C") and i + 2 < len(toks):
            out.append((letter, _path(toks[i + 1]), _path(toks[i + 2])))
            i += 3
        else:
            out.append((letter, _path(toks[i + 1]), None))
            i += 2
    return out


def _path(raw: bytes) -> str:
    return raw.decode(errors="surrogateescape")
