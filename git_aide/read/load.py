"""Read a source into a snapshot: the working tree, the index, or any revision
(docs/command-line.md).

Each source is listed as (path, blob id) pairs (listing.py); records then come from the
cache by blob id, and only the blobs it lacks are read and parsed (build.py). The
finished entries of a source are kept as a view, keyed by what the listing depends on
(the index file's stat, or the tree id) and grouped by scope; a snapshot (snapshot.py)
answers from it. The working tree's files that differ from the index are laid over the
view of the index's listing (worktree.py).
"""

from __future__ import annotations

import os
import time

from git_aide.cache import views
from git_aide.cache.folder import RACY_SECONDS
from git_aide.core import scope as scopes
from git_aide.core.files import stat_sig
from git_aide.core.memory import MEMORIES_DIR, user_store
from git_aide.gitio.spawn import STATUS, spawn
from git_aide.read import listing
from git_aide.read.record import MISSING, Reader, Records, Source
from git_aide.read.snapshot import Snapshot
from git_aide.read.worktree import WorktreeChanges

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Prefetch
    from git_aide.read.record import Group

#: Bumped when what a view holds changes.
VIEW_FORMAT = 8
#: Views a long-lived process keeps decoded (the working tree's, a few revisions').
WARM_VIEWS = 4


class Held:
    """Hold what a long-lived process keeps of its reads between calls: the views it
    read, decoded, and the queue of the work it does between calls. The process makes
    one (warm/state.py) and passes it to every load(); a command passes none."""

    __slots__ = ("views", "later", "few", "records")

    def __init__(self) -> None:
        from git_aide.read.later import Queue

        #: The views read lately, by their full state (a state's entries never change):
        #: (groups, reader, warnings), WARM_VIEWS at most.
        self.views: dict[Any, Any] = {}
        #: The work asked for between calls (read/later.py).
        self.later = Queue()
        #: What was read of the files laid over the view, by (path, blob id)
        #: (build.parse_few).
        self.few: dict[tuple[str, str], tuple[tuple[Any, ...], bytes]] = {}
        #: What was parsed of memories' blobs (read/record.Records), for every read.
        self.records = Records()


def load(repo: Repo, cache: Cache, kind: str = "worktree", rev: str | None = None,
         asked: Prefetch | None = None, save_view: bool = True,
         held: Held | None = None, changed: list[str] | None = None,
         early: bool = False, users: bool = False,
         records: Records | None = None) -> Snapshot:
    """Read one source's memories.

    `asked` holds git questions the caller started early (spawn.early), so that git
    compares the working tree with the index while this process is still starting.
    `save_view=False` reads a saved view but does not write one (a bulk `index`).
    `held`: what a long-lived process keeps between calls (Held): the views it read,
    kept decoded, and its queue of work between calls.
    `changed`: the working tree's files that may differ from the index, when the caller
    knows them without asking git (a server watching the folder, warm/watch.py).
    `early`: leave the working tree's overlay pending (`snap.pending`), for an answer
    worked out by worktree.speculate() while git still compares the tree; otherwise
    the snapshot returned holds what the source holds.
    `users`: a read of the working tree brings the memories of the user's own store
    along (read/user.py; the other sources never do: they answer what the repository
    held).
    `records`: what a read without `held` keeps of the records it parses (Records: a
    bulk index has them keep every record a view's build parsed).
    """
    warnings: list[str] = []  # found while listing: saved with the view
    contents: dict[str, bytes] = {}
    list_fn: Callable[[], list[tuple[str, str]]]
    if kind == "rev":
        assert rev is not None
        commit, tree = repo.resolve(rev, asked.resolve if asked else None)
        source = Source("rev", rev, commit)
        key: tuple[str, str] | None = (f"rev-{tree}", repr(VIEW_FORMAT))
        list_fn = lambda: listing.rev_listing(repo, cache, tree, warnings)  # noqa: E731
        return _load_view(repo, cache, source, key, list_fn, contents, warnings, save_view,
                          held, records)
    if kind == "index":
        repo.require_worktree("--cached", reads=True)
        key = _state_key("index", repo.index_file, [])
        list_fn = lambda: listing.index_listing(repo, cache, warnings)  # noqa: E731
        return _load_view(repo, cache, Source("index"), key, list_fn, contents, warnings,
                          save_view, held, records)
    top = repo.require_worktree("reading the working tree", reads=True)
    status = ((asked and asked.status) or spawn(*STATUS)) if changed is None else None
    # The view is the index's listing as if nothing differed from it, so that it
    # survives an edit: the files that differ are laid over it, once git has said which
    # they are; meanwhile the view is read.
    key = _state_key("worktree", repo.index_file, [])
    list_fn = lambda: listing.worktree_listing(repo, cache, [], warnings)  # noqa: E731
    snap = _load_view(repo, cache, Source("worktree"), key, list_fn, contents, warnings,
                      save_view, held, records)
    if users:
        # No store costs one stat: its module is imported only when there is one.
        store = user_store()
        if os.path.isdir(os.path.join(store, MEMORIES_DIR)):
            from git_aide.read import user

            user.lay(snap, store)
    pending = WorktreeChanges(repo, cache, snap, top, status, changed, contents,
                      held.few if held is not None else None)
    if early and changed is None:
        snap.pending = pending
    else:
        pending.settle()
    return snap


def _load_view(repo: Repo, cache: Cache, source: Source, key: tuple[str, str] | None,
               list_fn: Callable[[], list[tuple[str, str]]], contents: dict[str, bytes],
               warnings: list[str], save_view: bool,
               held: Held | None = None, records: Records | None = None) -> Snapshot:
    """Load a source's snapshot from its saved view, or build it from its listing (and save it)."""

    def rebuild() -> list[Group]:
        from git_aide.read import build

        return build.groups(repo, cache, list_fn(), contents, [], None)[1]

    if held is not None and key and key in held.views:
        groups, reader, skipped = held.views[key]
        kept = Snapshot(source, list(skipped), groups, reader, rebuild)
        kept.later = held.later
        return kept
    if held is not None:
        records = held.records
    elif records is None:
        records = Records()

    def saved() -> Snapshot | None:
        view = views.load(cache, key) if key else None
        if view is None:
            return None
        skipped, spans, opened = view
        try:
            groups = [(None if c is None else scopes.Compiled(*c), span) for c, span in spans]
        except (TypeError, ValueError):  # not what a view holds: build it again
            views.discard(cache, opened)
            return None
        return Snapshot(source, list(skipped), groups, Reader(cache, repo, opened, records),
                        rebuild)

    snap = saved()
    if snap is None:
        from git_aide.read import build

        pairs = list_fn()
        skipped, groups = build.groups(repo, cache, pairs, contents, warnings,
                                       key if save_view else None, records.built)
        # A long-lived process keeps the view just saved rather than the groups built:
        # only a view holds every content in one run, which path mentions search at once.
        snap = (saved() if held is not None and save_view else None) or Snapshot(
            source, list(skipped), groups, Reader(cache, repo, None, records), lambda: groups)
    if held is not None and key and not any(MISSING in w for w in snap.warnings):
        decoded = held.views
        while len(decoded) >= WARM_VIEWS:
            decoded.pop(next(iter(decoded)))
        decoded[key] = (*snap.parts(), list(snap.warnings))
        snap.later = held.later
    return snap


def _state_key(kind: str, index_file: str, dirty: list[tuple[str, str]]
               ) -> tuple[str, str] | None:
    """Return what a source's listing depends on: the index file's stat and the files that differ.

    Returned as (file name, full state): the name is short and may be shared by two
    states, the state is stored in the view and compared when it is read. None while
    the index is too fresh for its stat to be trusted (a second write within the file
    system's timestamp granularity could keep size, time and inode).
    """
    sig = stat_sig(index_file)
    if sig is not None and time.time() - max(sig[1], sig[3]) / 1e9 < RACY_SECONDS:
        return None
    state = repr((VIEW_FORMAT, kind, index_file, sig, dirty))
    return f"{kind}-{sig[2] if sig else 0}-{sig[1] if sig else 0}-{len(dirty)}", state
