"""What the commands do, without click: one function per hot command, and the shared
plumbing of every command (output, warnings, notices, the error boundary).

`cli.py` parses with click and calls in here; `fastpath.py` parses the plain forms of
`recall` and `search` itself and calls the same functions, so an agent's recall on
every file does not pay for importing click.
"""

from __future__ import annotations

import os
import sys

from git_aide.core.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.gitio.spawn import Early


def tty() -> bool:
    """Whether stdout is a terminal (tables and colour) rather than a pipe (plain text)."""
    return sys.stdout.isatty()


def out(text: str, *, raw: bool = False) -> None:
    """One piece of output on stdout, its control characters escaped (a memory file may
    hold some); `raw` for a rich rendering, which escaped the memories' text itself."""
    sys.stdout.write((text if raw else escape(text)) + "\n")


def escape(text: str) -> str:
    """`text` with control characters written as `\\uXXXX` (valid inside JSON too)."""
    from git_aide.core.controls import escape as escape_controls

    return escape_controls(text)


def warn(lines: list[str]) -> None:
    """Warnings (a skipped file, an unstaged write) on stderr, one line each."""
    for line in lines:
        sys.stderr.write(f"git-aide: warning: {escape(line)}\n")


def check_arguments(argv: list[str]) -> None:
    """Refuse an argument that is not UTF-8 (Python keeps its bytes as lone surrogates,
    which neither git nor a memory file can take)."""
    for i, arg in enumerate(argv, 1):
        if arg.isascii():
            continue
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
            raise UsageError(f"argument {i} ({shown}) is not valid UTF-8; git-aide takes its "
                             "arguments as UTF-8 text") from None


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
        sys.stderr.write(f"git-aide: notice: {escape(notices[0])}{more}\n")


def context(asked: Early | None = None) -> tuple[Any, Any]:
    """The repository around the current directory and its cache.

    `asked`: git questions already started (spawn.early).
    """
    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import open_repo

    repo = open_repo(asked)
    return repo, noticed(Cache(repo.cache_dir))


def source(cached: bool, rev: str | None) -> tuple[str, str | None]:
    """The source that --cached / --rev name."""
    if cached and rev is not None:
        raise UsageError("--cached and --rev cannot be used together")
    if rev is not None:
        return "rev", rev
    return ("index", None) if cached else ("worktree", None)


def load(cached: bool, rev: str | None, asked: Early | None = None,
         warn_now: bool = True) -> tuple[Any, Any, Any]:
    """(repo, cache, snapshot) of the chosen source, its warnings printed.

    `asked`: git questions already started for this source (spawn.early).
    `warn_now=False`: the caller prints the warnings once it has its answer, so that
    git's comparison of the working tree runs while the answer is worked out.
    """
    from git_aide.read.sources import load as load_source

    kind, rev = source(cached, rev)
    repo, cache = context(asked)
    snap = load_source(repo, cache, kind, rev, asked=asked)
    if warn_now:
        warn(snap.warnings)
    return repo, cache, snap


def render_hits(snap: Any, hits: list[Any], as_json: bool) -> None:
    """Memories as JSON (ranked order) or grouped by layer."""
    from git_aide.render import output as render

    if as_json:
        from git_aide.app.answers import memories_doc

        out(render.dumps(memories_doc(snap, hits)))
    else:
        on_tty = tty()
        out(render.memories_text(hits, tty=on_tty), raw=on_tty)


def recall(paths: tuple[str, ...] | list[str], *, query: str | None = None,
           layers: tuple[str, ...] | list[str] = (), tags: tuple[str, ...] | list[str] = (),
           contributor: str | None = None, limit: int | None = None, cached: bool = False,
           rev: str | None = None, as_json: bool = False,
           asked: Early | None = None) -> None:
    """`git aide recall`."""
    from git_aide.app.answers import recall_hits

    repo, cache, snap = load(cached, rev, asked, warn_now=False)
    ft = None
    if query is not None and query.strip():
        from git_aide.app import search as sr

        ft = noticed(sr.open_index(cache))
    hits = recall_hits(repo, cache, snap, paths, query=query, layers=layers, tags=tags,
                       contributor=contributor, limit=limit, index=ft)
    warn(snap.warnings)
    render_hits(snap, hits, as_json)


def search(query: str, *, layers: tuple[str, ...] | list[str] = (), limit: int | None = None,
           cached: bool = False, rev: str | None = None, as_json: bool = False,
           asked: Early | None = None) -> None:
    """`git aide search`."""
    from git_aide.app import search as sr
    from git_aide.app.answers import search_hits

    repo, cache, snap = load(cached, rev, asked)
    ft = noticed(sr.open_index(cache))
    with progress("indexing memories") as bar:
        hits = search_hits(repo, snap, ft, query, layers=layers, limit=limit, progress=bar)
    render_hits(snap, hits, as_json)


def log(revs: list[str], *, all_refs: bool = False, ident: str | None = None,
        reverse: bool = False, limit: int | None = None, as_json: bool = False,
        paths: list[str] | None = None) -> None:
    """`git aide log`."""
    from git_aide.app import history

    repo, cache = context()
    warnings: list[str] = []
    doc = history.log_doc(repo, cache, revs, uuid=ident, paths=paths or [], reverse=reverse,
                          limit=limit, all_refs=all_refs, warnings=warnings)
    warn(list(dict.fromkeys(warnings)))
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
    else:
        from git_aide.render import review

        out(review.log_text(doc, tty=tty()), raw=True)


def diff(revs: list[str], *, cached: bool = False, as_stat: bool = False,
         fmt: str = "text", exit_code: bool = False, as_json: bool = False,
         paths: list[str] | None = None) -> int:
    """`git aide diff`; returns the exit status (1: differences, with --exit-code)."""
    from git_aide.app import history

    if sum((as_stat, as_json, fmt != "text")) > 1:
        raise UsageError("give at most one of --stat, --json and --format markdown")
    repo, cache = context()
    warnings: list[str] = []
    doc = history.diff_doc(repo, cache, revs, cached=cached, paths=paths or [],
                           warnings=warnings)
    warn(warnings)
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
    else:
        from git_aide.render import review

        if as_stat:
            out(review.stat_text(history.stat(doc)))
        elif fmt == "markdown":
            sys.stdout.write(review.markdown(doc))
        else:
            out(review.diff_text(doc, tty=tty()), raw=True)
    return 1 if exit_code and history.differs(doc) else 0


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
        sys.stderr.write(f"git-aide: error: {escape(str(e))}\n")
        return e.code
    if isinstance(e, BrokenPipeError):
        return 0
    if isinstance(e, KeyboardInterrupt):
        return 130
    if os.environ.get("GIT_AIDE_DEBUG"):
        raise e
    sys.stderr.write(f"git-aide: error: internal error: {type(e).__name__}: {escape(str(e))} "
                     "(set GIT_AIDE_DEBUG=1 for the traceback)\n")
    return 1


def guarded(work: Callable[[], object]) -> int:
    """Run a command; every error becomes one line and an exit status; notices last."""
    try:
        try:
            status = work()
        finally:
            print_notices()
            sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 -- the one error boundary
        return report(e)
    return status if isinstance(status, int) else 0
