"""The working tree over the saved view of the index's listing, and the speculation
that lets a recall be worked out while `git status` runs.

A worktree read lists the index as if nothing differed from it, so that its view
survives an edit; the files that differ (`git status`) are laid over that view. Git
takes a while to answer, so a hot read (recall, the file hook) may work its answer out
first from the view with a guess laid over it (the files that differed last time, if
unchanged since: most often the same few, as personal memories are never in the index)
and then take git's answer: `speculate()` is that whole protocol, in one place.
"""

from __future__ import annotations

from git_aide.gitio import folders
from git_aide.gitio.status import changed_paths
from git_aide.read import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Spawned
    from git_aide.read.snapshot import Snapshot

    T = TypeVar("T")

#: Up to this many files that differ from the index are read and parsed as they are;
#: beyond it, through the cache's record packs.
OVERLAY_READ = 64


def speculate(snap: Snapshot, work: Callable[[], T]) -> T:
    """Work out `work()`'s answer on the snapshot as the working tree holds it.

    When the snapshot's overlay is not settled yet (`snap.pending`), the answer is
    worked out while git still compares the tree, on the view with the guessed files
    laid over it; then git's answer is taken and, only when other files differ than
    guessed, the answer is worked out again. Either way the snapshot is settled after.
    """
    pending = snap.pending
    if pending is None:
        return work()
    pending.guess()
    try:
        answer = work()
    finally:
        held = pending.settle()  # even when work() failed: the snapshot ends up whole
    return answer if held else work()


class WorktreeChanges:
    """Lay the files of the working tree that differ from the index over the view of
    a worktree snapshot: guessed first (guess()), then as git says (settle())."""

    def __init__(self, repo: Repo, cache: Cache, snap: Snapshot, top: str,
                 status: Spawned | None, changed: list[str] | None,
                 contents: dict[str, bytes],
                 few: dict[tuple[str, str], tuple[tuple[Any, ...], bytes]] | None = None
                 ) -> None:
        #: The repository.
        self.repo = repo
        #: Its cache (record packs, the working tree's stat table).
        self.cache = cache
        #: The snapshot of the view the files are laid over.
        self.snap = snap
        #: The working tree's top folder.
        self.top = top
        #: `git status`, started early; None when `changed` is known without git.
        self.status = status
        #: The files that may differ, known without asking git (a folder watch).
        self.changed = changed
        #: Blob id -> bytes of files read on the way (shared with the load).
        self.contents = contents
        #: What was read of the few files laid over the view, by (path, blob id)
        #: (build.parse_few): a long-lived process's, kept between its calls.
        self.few = {} if few is None else few
        #: About files read from disk this time (never saved with a view).
        self.live: list[str] = []
        #: The working tree's stat table, once guess() has read it.
        self.table: dict[str, tuple[int, int, int, int, str]] | None = None
        #: The files guess() laid over the view, sorted.
        self.guessed: list[tuple[str, str]] = []
        #: The snapshot's warnings before the guess was laid.
        self.before: list[str] = []

    def guess(self) -> None:
        """Lay the files that differed from the index last time, unchanged since, over
        the view, before git has said which differ now."""
        self.table = self.cache.stat_table(self.top)
        self.guessed = listing.guess_dirty(self.table, self.top)
        if self.guessed:
            self.before = list(self.snap.warnings)
            lay(self.repo, self.cache, self.snap, self.guessed, self.contents, [], self.few)

    def settle(self) -> bool:
        """Take git's answer (waiting for it) and lay the files that differ over the view
        instead of the guess; whether the guess was right (nothing changed then)."""
        snap, top, live = self.snap, self.top, self.live
        snap.pending = None
        paths = self.changed if self.changed is not None else changed_paths(
            top, self.status)
        # A folder watch (warm/watch.py) names the files only while no memory folder
        # is a link, and is made again when one becomes one: no need to look.
        links = folders.linked(top) if self.changed is None else []
        # git lists nothing beyond a link (it says deleted): nor is anything read there.
        through = tuple(w.split(":", 1)[0] + "/" for w in links)
        beyond = [(p, "") for p in paths if p.startswith(through)] if through else []
        if beyond:
            paths = [p for p in paths if not p.startswith(through)]
        dirty = (listing.read_dirty(self.cache, top, paths, self.contents, live, self.table)
                 if paths else []) + beyond
        for warning in links:
            # An untracked link is named once already, by the listing of git's answer.
            if not any(w.startswith(warning.split(":", 1)[0] + ":") for w in live):
                live.append(warning)
        held = sorted(dirty) == self.guessed
        if self.guessed and not held:
            snap.lay(set(), [], self.before)  # the guess was wrong: off again
        snap.warnings = live + snap.warnings
        if dirty and not held:
            lay(self.repo, self.cache, snap, dirty, self.contents, live, self.few)
        return held


def lay(repo: Repo, cache: Cache, snap: Snapshot, dirty: list[tuple[str, str]],
        contents: dict[str, bytes], live: list[str],
        few: dict[tuple[str, str], tuple[tuple[Any, ...], bytes]]) -> None:
    """Lay files that differ from the index over the snapshot of the index's listing:
    their paths leave the view (and so do the view's warnings about them, but `live`
    ones), their memories come in."""
    from git_aide.read import build

    noted: list[str] = []
    pairs = [(p, b) for p, b in dirty if b and listing.is_candidate(p, noted)]
    if len(pairs) > OVERLAY_READ:
        skipped, groups = build.groups(repo, cache, pairs, contents, noted, None)
    else:  # a few files: parsing them beats loading every pack of the cache
        skipped, groups = build.parse_few(repo, pairs, contents, noted, few, snap.records)
    drop = {p for p, _b in dirty}
    snap.lay(drop, groups, [w for w in snap.warnings
                            if w in live or w.split(": ", 1)[0] not in drop] + skipped)
