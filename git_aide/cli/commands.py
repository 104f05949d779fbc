"""What the hot commands do, without click, and the command line's plumbing (output,
warnings, notices, progress, the call into the one error boundary, app/boundary.py).

The hot commands (recall, search, diff, log; declared in option_table.py) are one function each
here: argv.py parses their plain forms and main.py's click commands the rest, and
both call `run`, so an agent's recall on every file does not pay for importing click.
"""

from __future__ import annotations

import sys

from git_aide.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.progress import Progress, TaskID

    from git_aide.app.context import Context, Contexts
    from git_aide.cli.pager import Pager
    from git_aide.gitio.spawn import Prefetch
    from git_aide.rank.selection import Hit
    from git_aide.read.snapshot import Snapshot


def tty() -> bool:
    """Tell whether stdout is a terminal (tables and colour) rather than a pipe (plain text)."""
    return sys.stdout.isatty()


def out(text: str, *, raw: bool = False, page: bool = False) -> None:
    """Write one piece of output on stdout, its control characters escaped (a memory file may
    hold some); `raw` for a rich rendering, which escaped the memories' text itself.

    `page`: a command's human answer, which goes through the pager on a terminal (as
    git's long output does: pager.py); what follows it goes there too."""
    if page:
        paging()
    text = (text if raw else escape(text)) + "\n"
    if _pager:
        _pager[0].write(text)
    else:
        sys.stdout.write(text)


#: The pager the output goes to, once started (an empty list: stdout).
_pager: list[Pager] = []
#: Whether the pager was looked for already (it is chosen once a command).
_paged: list[bool] = []


def paging() -> None:
    """Send the rest of the output to the pager, when stdout is a terminal and the user
    has one (pager.py; imported only on a terminal)."""
    if not _paged and tty():
        _paged.append(True)
        from git_aide.cli.pager import start

        pager = start()
        if pager is not None:
            _pager.append(pager)


def end_paging() -> None:
    """Close the pager's input and wait for the user to leave it (at the command's end,
    before an error's line)."""
    if _pager:
        _pager.pop().close()


def escape(text: str) -> str:
    """Escape `text`'s control characters as `\\uXXXX` (valid inside JSON too)."""
    from git_aide.core.controls import escape as escape_controls

    return escape_controls(text)


def warn(lines: list[str]) -> None:
    """Say warnings (a skipped file, an unstaged write) on stderr, one line each."""
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


def say_notices(ctx: Context) -> None:
    """Say the context's notices (a damaged cache that was rebuilt), once, on stderr."""
    notices = ctx.take_notices()
    if notices:
        from git_aide.app.boundary import notice_line

        sys.stderr.write(f"{notice_line(notices)}\n")


class Opened:
    """Open a command's context (`with Opened() as ctx:`) and say its notices when it ends
    (before an error's line, as the work is done by then).

    `asked`: git's questions already started (spawn.early); `cached`, `rev`: the source
    the command reads, refused (a usage error) before the repository is looked for;
    `contexts`: what opens it (a warm server's, which answers from what it holds; None:
    a fresh one, app/context.Contexts).
    """

    def __init__(self, asked: Prefetch | None = None, *, cached: bool = False,
                 rev: str | None = None, contexts: Contexts | None = None) -> None:
        from git_aide.app.context import Contexts, source

        source(cached, rev)
        #: What opened the context, and gives its snapshot, index and model.
        self.contexts = contexts or Contexts()
        #: The context: the repository around the current directory and its cache.
        self.ctx = self.contexts.open(asked)

    def __enter__(self) -> Context:
        return self.ctx

    def __exit__(self, *exc: object) -> None:
        say_notices(self.ctx)


#: An answer of more memories than this is written by orjson (render.dumps).
LARGE = 2000


def render_hits(snap: Snapshot, hits: list[Hit], as_json: bool, ranked: bool = True) -> None:
    """Print memories as JSON, or as text: `ranked` (numbered in the answer's order), else
    grouped by layer."""
    from git_aide.render import output as render

    if len(hits) > render.MANY:
        snap.body(wanted=len(hits))  # read in one run, when that is cheaper
    if as_json:
        from git_aide.app.answers import memories_doc

        out(render.dumps(memories_doc(snap, hits), large=len(hits) > LARGE))
    else:
        on_tty = tty()
        out(render.memories_text(hits, tty=on_tty, ranked=ranked), raw=on_tty, page=True)


# -- the hot commands: the keywords are option_table.py's, from argv.py or click --------

def recall(paths: tuple[str, ...] | list[str], *, query: str | None = None,
           layers: tuple[str, ...] | list[str] = (), tags: tuple[str, ...] | list[str] = (),
           contributor: str | None = None, limit: int | None = None, cached: bool = False,
           rev: str | None = None, as_json: bool = False, asked: Prefetch | None = None,
           contexts: Contexts | None = None) -> None:
    """Run `git aide recall`."""
    from git_aide.app.answers import recall_hits
    from git_aide.app.queries import RecallQuery

    opened = Opened(asked, cached=cached, rev=rev, contexts=contexts)
    with opened as ctx:
        source = opened.contexts
        # The snapshot's warnings are said once the answer is worked out: git compares
        # the working tree meanwhile.
        snap = source.snapshot(ctx, cached, rev, asked=asked, early=True)
        ft = sem = None
        if query is not None and query.strip():
            ft = source.index(ctx)
            sem = source.semantic(ctx)
        ask = RecallQuery(paths, question=query, layers=layers, tags=tags,
                          contributor=contributor, limit=limit, always=True)
        hits = recall_hits(ctx.repo, ctx.cache, snap, ask, index=ft, semantic=sem,
                           memo=source.memo())
        warn(snap.warnings)
        render_hits(snap, hits, as_json)


def search(query: str, *, layers: tuple[str, ...] | list[str] = (),
           tags: tuple[str, ...] | list[str] = (), contributor: str | None = None,
           limit: int | None = None, mode: str | None = None, cached: bool = False,
           rev: str | None = None, as_json: bool = False, asked: Prefetch | None = None,
           contexts: Contexts | None = None) -> None:
    """Run `git aide search`."""
    from git_aide.app.answers import search_hits
    from git_aide.app.queries import SearchQuery

    opened = Opened(asked, cached=cached, rev=rev, contexts=contexts)
    with opened as ctx:
        source = opened.contexts
        snap = source.snapshot(ctx, cached, rev, asked=asked)
        warn(snap.warnings)
        sem = source.semantic(ctx)
        with progress("indexing memories") as bar:
            ask = SearchQuery(query, layers=layers, tags=tags, contributor=contributor,
                              limit=limit, mode=mode or "auto")
            hits = search_hits(ctx.repo, snap, source.index(ctx), ask, progress=bar,
                               semantic=sem, memo=source.memo())
        render_hits(snap, hits, as_json)
        from git_aide.app.stats import count

        count(ctx.cache, "search", "cli", [h.entry.uuid for h in hits])


def log(revs: list[str], *, all_refs: bool = False, ident: str | None = None,
        reverse: bool = False, limit: int | None = None, as_json: bool = False,
        paths: list[str] | None = None, contexts: Contexts | None = None) -> None:
    """Run `git aide log`."""
    from git_aide.app import log as history_log

    with Opened(contexts=contexts) as ctx:
        warnings: list[str] = []
        doc = history_log.log_doc(ctx.repo, ctx.cache, revs, uuid=ident, paths=paths or [],
                              reverse=reverse, limit=limit, all_refs=all_refs,
                              warnings=warnings)
        warn(list(dict.fromkeys(warnings)))
        if as_json:
            from git_aide.render.output import dumps

            out(dumps(doc))
        else:
            from git_aide.render import review

            out(review.log_text(doc, tty=tty()), raw=True, page=True)


def diff(revs: list[str], *, cached: bool = False, as_stat: bool = False,
         fmt: str = "text", exit_code: bool = False, as_json: bool = False,
         paths: list[str] | None = None, contexts: Contexts | None = None) -> int:
    """Run `git aide diff`; return the exit status (1: differences, with --exit-code)."""
    from git_aide.app import diff as history_diff

    if sum((as_stat, as_json, fmt != "text")) > 1:
        raise UsageError("give at most one of --stat, --json and --format markdown")
    with Opened(contexts=contexts) as ctx:
        warnings: list[str] = []
        doc = history_diff.diff_doc(ctx.repo, ctx.cache, revs, cached=cached, paths=paths or [],
                               warnings=warnings)
        warn(warnings)
        if as_json:
            from git_aide.render.output import dumps

            out(dumps(doc))
        else:
            from git_aide.render import review

            if as_stat:
                out(review.stat_text(history_diff.stat(doc)), page=True)
            elif fmt == "markdown":
                sys.stdout.write(review.markdown(doc))
            else:
                out(review.diff_text(doc, tty=tty()), raw=True, page=True)
    return 1 if exit_code and history_diff.differs(doc) else 0


#: The hot commands' functions by name: the one router, for both parsers.
HOT: dict[str, Callable[..., object]] = {"recall": recall, "search": search, "log": log,
                                         "diff": diff}


def run(command: str, kwargs: dict[str, object], contexts: Contexts | None = None) -> object:
    """Run hot command `command` with the keywords a parser read (option_table.py's), the
    cyclic garbage collector paused: a command's objects live until it ends, and an
    answer of thousands of memories made the collector walk them again and again (a
    sixth of `search WORD --limit 1000000` at 100,000 memories). `contexts`: a warm
    server's (None: the command opens its own)."""
    from git_aide.core import collector

    if contexts is not None:
        kwargs = {**kwargs, "contexts": contexts}
    # A process of its own ends with the command (a warm server's does not).
    with collector.paused(ending=contexts is None):
        return HOT[command](**kwargs)


#: Below this many memories to index, no progress bar is worth drawing.
PROGRESS_FROM = 500


class Bar:
    """Show a rich progress bar, only when there is real work and a terminal."""

    def __init__(self, label: str, enabled: bool) -> None:
        #: What is being done.
        self.label = label
        #: False when output is not a terminal (or --quiet): then it draws nothing.
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __call__(self, done: int, total: int) -> None:
        """Report progress: `done` of `total`."""
        if not self.enabled or total < PROGRESS_FROM:
            return
        if self._progress is None or self._task is None:  # both are set at once
            from rich.progress import Progress

            self._progress = Progress(transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=total)
        self._progress.update(self._task, completed=done, total=total)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def progress(label: str, quiet: bool = False) -> Bar:
    """Make a progress bar for `label`, drawn only on a terminal."""
    return Bar(label, enabled=not quiet and sys.stderr.isatty() and sys.stdout.isatty())


def guarded(work: Callable[[], object]) -> int:
    """Run a command; every error becomes one line and an exit status."""
    try:
        try:
            status = work()
        finally:
            sys.stdout.flush()
            end_paging()
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 -- the one error boundary
        from git_aide.app.boundary import report

        return report(e)
    return status if isinstance(status, int) else 0
