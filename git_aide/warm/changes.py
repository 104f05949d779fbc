"""Which memory files may differ from the index, for each call of the MCP server
(`Changes`): told by the watch of the memory folders (warm/watch.py) once it is made,
by git status until then, or when the watch cannot vouch for what happened.

The watch is made between calls (setting 10,000 watches takes 60 ms), in steps the
server's work between calls runs (read/later.py); a call meanwhile asks git.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Prefetch
    from git_aide.read.later import Later, Queue
    from git_aide.warm.watch import Watch


class Changes:
    """Hold what tells a call which memory files may differ from the index: the watch,
    the one being made, git's questions started with the server, and this call's answer
    once asked."""

    def __init__(self, later: Queue) -> None:
        #: The work asked for between calls, where the watch is made.
        self._later = later
        #: The memories folder under inotify, when it can be (None: git status each call).
        self.watch: Watch | None = None
        #: The watch being made between calls (`_make_watch`): no call uses it before.
        self.making: Later | None = None
        #: git's questions started with the server (rev-parse, status), for its first read.
        self.asked: Prefetch | None = None
        #: This call's files that may differ from the index, and git's questions
        #: started, once asked (`ask`).
        self._now: tuple[list[str] | None, Prefetch] | None = None
        #: How many watches were made: a new one's generations start again.
        self._watches = 0
        #: Whether the watch vouched for this call's files (without git status).
        self.vouched = False

    def ask(self, repo: Repo) -> None:
        """Find this call's files that may differ from the index, once per call."""
        if self._now is None:
            self._now = self._changes(repo)

    def take(self, repo: Repo) -> tuple[list[str] | None, Prefetch]:
        """Return this call's files that may differ from the index (None: git's status,
        started, must say) and git's questions started: asked now unless `ask` did."""
        now, self._now = self._now or self._changes(repo), None
        return now

    def forget(self) -> None:
        """Forget what the call under way asked: the next call asks again."""
        self._now = None

    def generation(self) -> tuple[int, int] | None:
        """Return which watch vouched for this call's files, and its generation (what
        changes whenever anything under the memories folder did); None when no watch
        vouched for them."""
        if not self.vouched or self.watch is None:
            return None
        return self._watches, self.watch.generation

    def _changes(self, repo: Repo) -> tuple[list[str] | None, Prefetch]:
        """Return the memory files that may differ from the index, from the folder's watch
        (warm/watch.py); or, when git must say, its status started (or the one started
        with the server, `asked`, for the first read)."""
        from git_aide.core.files import stat_sig
        from git_aide.gitio.spawn import STATUS, Prefetch, spawn
        from git_aide.gitio.status import changed_paths
        from git_aide.warm.watch import Watch

        self.vouched = False
        top = repo.require_worktree("reading the working tree", reads=True)
        wanted = repo.settings.mcp_watch
        if self.watch is not None and (not wanted or self.watch.top != top):
            self.watch.close()
            self.watch = None
        if not wanted:
            self.making = None
        elif self.watch is None:  # made between calls: setting 10,000 watches takes 60 ms
            if self.making is None:
                from git_aide.read.later import Later

                self.making = Later(lambda: self._make_watch(Watch(top), repo.index_file))
            self._later.want(self.making)
        watch = self.watch
        if watch is None:
            early, self.asked = self.asked, None
            return None, Prefetch(status=(early and early.status) or spawn(*STATUS))
        changed = watch.changed(repo.index_file)
        if changed is not None:
            self.vouched = True
            return changed, Prefetch()
        watching = watch.prepare()
        sig = stat_sig(repo.index_file)
        status = spawn(*STATUS)
        if not watching:
            return None, Prefetch(status=status)
        paths = changed_paths(top, status)
        watch.baseline(repo.index_file, sig, paths)
        # Asked again at once: the files touched while git looked count too, and the
        # watch vouches for the answer only if the index kept still meanwhile.
        now = watch.changed(repo.index_file)
        self.vouched = now is not None
        return (paths if now is None else now), Prefetch()

    def _make_watch(self, watch: Watch, index_file: str) -> Iterator[None]:
        """Make the watch of the memory folders in steps between calls (warm/watch.made;
        a call meanwhile asks git), then hand it to the calls (`_changes`)."""
        from git_aide.warm.watch import made

        yield from made(watch, index_file)
        self.watch, self.making = watch, None
        self._watches += 1
