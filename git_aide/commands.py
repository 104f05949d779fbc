"""What the commands do, without click: one function per hot command, and the shared
plumbing of every command (output, warnings, notices, the error boundary).

`cli.py` parses with click and calls in here; `fastpath.py` parses the plain forms of
`recall` and `search` itself and calls the same functions, so an agent's recall on
every file does not pay for importing click.
"""

from __future__ import annotations

import os
import sys

from git_aide.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def tty() -> bool:
    """Whether stdout is a terminal (tables and colour) rather than a pipe (plain text)."""
    return sys.stdout.isatty()


def out(text: str) -> None:
    """One piece of output on stdout."""
    sys.stdout.write(text + "\n")


def warn(lines: list[str]) -> None:
    """Warnings (a skipped file, an unstaged write) on stderr, one line each."""
    for line in lines:
        sys.stderr.write(f"git-aide: warning: {line}\n")


#: Objects whose `notices` (a damaged cache that was rebuilt) are printed at the end.
_NOTICED: list[Any] = []


def noticed(obj: Any) -> Any:
    """Print this object's notices once the command is done."""
    _NOTICED.append(obj)
    return obj


def print_notices() -> None:
    """However many cache files were damaged, the user hears about it once."""
    notices = list(dict.fromkeys(n for obj in _NOTICED for n in obj.notices))
    _NOTICED.clear()
    if notices:
        more = f" (and {len(notices) - 1} more)" if len(notices) > 1 else ""
        sys.stderr.write(f"git-aide: notice: {notices[0]}{more}\n")


def context(asked: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """The repository around the current directory and its cache.

    `asked`: git questions already started (spawn.early).
    """
    from git_aide.cache import Cache
    from git_aide.repo import open_repo

    repo = open_repo(asked)
    return repo, noticed(Cache(repo.cache_dir))


def source(cached: bool, rev: str | None) -> tuple[str, str | None]:
    """The source that --cached / --rev name."""
    if cached and rev is not None:
        raise UsageError("--cached and --rev cannot be used together")
    if rev is not None:
        return "rev", rev
    return ("index", None) if cached else ("worktree", None)


def load(cached: bool, rev: str | None, asked: dict[str, Any] | None = None
         ) -> tuple[Any, Any, Any]:
    """(repo, cache, snapshot) of the chosen source, its warnings printed.

    `asked`: git questions already started for this source (spawn.early).
    """
    from git_aide.sources import load as load_source

    kind, rev = source(cached, rev)
    repo, cache = context(asked)
    snap = load_source(repo, cache, kind, rev, asked=asked)
    warn(snap.warnings)
    return repo, cache, snap


def filters(layers: tuple[str, ...] | list[str], tags: tuple[str, ...] | list[str],
            contributor: str | None) -> Any:
    """The --layer / --tag / --contributor filters."""
    from git_aide.recall import Filters

    return Filters(layers=tuple(layers), tags=tuple(tags), contributor=contributor)


def render_hits(snap: Any, hits: list[Any], as_json: bool) -> None:
    """Memories as JSON (ranked order) or grouped by layer."""
    from git_aide import render

    if as_json:
        out(render.memories_doc(snap.source, hits))
    else:
        out(render.memories_text(hits, tty=tty()))


def recall(paths: tuple[str, ...] | list[str], *, query: str | None = None,
           layers: tuple[str, ...] | list[str] = (), tags: tuple[str, ...] | list[str] = (),
           contributor: str | None = None, limit: int | None = None, cached: bool = False,
           rev: str | None = None, as_json: bool = False,
           asked: dict[str, Any] | None = None) -> None:
    """`git aide recall`."""
    from git_aide import memory
    from git_aide import recall as rc

    repo, cache, snap = load(cached, rev, asked)
    queries = rc.query_paths(repo.worktree, repo.prefix, paths)
    relevance = None
    if query is not None and query.strip():
        from git_aide import search as sr

        ft = noticed(sr.open_index(cache))

        def relevance(entries: list[Any]) -> dict[str, float]:
            # Scores lift memories across layers and scopes; the best few hundred
            # are plenty to rank a cut of `limit` memories.
            return sr.relevance(ft, entries, query, max(5 * (limit or 20), 200))

    min_depth = repo.config_int("aide.recall.minScopeDepth", 1)
    # Decode only the memories whose scope is relevant: most of a large store is not.
    relevant = rc.scope_filter(queries, min_depth)
    entries = snap.entries_where(relevant)
    # Memories elsewhere that name a query path in their text: weak candidates, found
    # by one pass over the stored contents, not by decoding every memory.
    finder = rc.mention_finder(queries)
    mentions = snap.mentioning(finder, relevant) if finder is not None else []
    hits = rc.recall(
        entries, queries, filters(layers, tags, contributor), relevance=relevance,
        limit=limit if limit is not None else repo.config_int("aide.recall.limit", 20),
        min_depth=min_depth,
        diversity_min=repo.config_int("aide.recall.layerDiversityMinLimit", 0),
        project_wide_limit=repo.config_int("aide.recall.projectWideLimit", 3),
        mentions=mentions, query=query, body=snap.body(),
    )
    cache.count_recall([h.entry.uuid for h in hits], memory.now())
    render_hits(snap, hits, as_json)


def search(query: str, *, layers: tuple[str, ...] | list[str] = (), limit: int | None = None,
           cached: bool = False, rev: str | None = None, as_json: bool = False,
           asked: dict[str, Any] | None = None) -> None:
    """`git aide search`."""
    from git_aide import search as sr

    repo, cache, snap = load(cached, rev, asked)
    ft = noticed(sr.open_index(cache))
    lim = limit if limit is not None else repo.config_int("aide.search.limit", 20)
    with progress("indexing memories") as bar:
        hits = sr.search(ft, snap.entries, query, filters(layers, (), None), lim, bar)
    render_hits(snap, hits, as_json)


#: Below this many memories to index, no progress bar is worth drawing.
PROGRESS_FROM = 500


class Bar:
    """A rich progress bar that appears only when there is real work and a terminal."""

    def __init__(self, label: str, enabled: bool) -> None:
        #: What is being done.
        self.label = label
        #: False when output is not a terminal (or --quiet): then it draws nothing.
        self.enabled = enabled
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        """Report progress: `done` of `total`."""
        if not self.enabled or total < PROGRESS_FROM:
            return
        if self._progress is None:
            from rich.progress import Progress

            self._progress = Progress(transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=total)
        self._progress.update(self._task, completed=done)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def progress(label: str, quiet: bool = False) -> Bar:
    """A progress bar for `label`, drawn only on a terminal."""
    return Bar(label, enabled=not quiet and sys.stderr.isatty() and sys.stdout.isatty())


def report(e: BaseException) -> int:
    """Turn an exception into one line on stderr and an exit status."""
    if isinstance(e, AideError):
        sys.stderr.write(f"git-aide: error: {e}\n")
        return e.code
    if isinstance(e, BrokenPipeError):
        return 0
    if isinstance(e, KeyboardInterrupt):
        return 130
    if os.environ.get("GIT_AIDE_DEBUG"):
        raise e
    sys.stderr.write(f"git-aide: error: internal error: {type(e).__name__}: {e} "
                     "(set GIT_AIDE_DEBUG=1 for the traceback)\n")
    return 1


def guarded(work: Callable[[], object]) -> int:
    """Run a command; every error becomes one line and an exit status; notices last."""
    try:
        try:
            work()
        finally:
            print_notices()
            sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 -- the one error boundary
        return report(e)
    return 0
