"""Work a long-lived process does between its calls, in small steps (read/vocabulary.py's
vocabularies, groups.warm's decoded views): what a call would otherwise work out
for itself the first time it needs it.

Each step is made while no call is under way, and holds the call's lock while it runs
(make_wanted's `pause`): a step that ran beside a call would slow it twice or more (the
two would share the interpreter), and would change what the call is reading.
"""

from __future__ import annotations

from contextlib import suppress

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from typing import Protocol

    from git_aide.read.snapshot import Snapshot

    class Job(Protocol):
        """Do work in steps: each yield of `steps()` ends one."""

        def steps(self) -> Iterator[None]:
            """Do the work, a step between two yields."""


class Later:
    """Run a function as a job whose steps its yields end; `done` once it ran out."""

    __slots__ = ("_make", "done")

    def __init__(self, make: Callable[[], Iterator[None]]) -> None:
        self._make = make
        #: Whether every step was made.
        self.done = False

    def steps(self) -> Iterator[None]:
        """Yield the function's steps, then set `done` (and let the function go: it may hold what
        holds this job, which would then wait for the cyclic collector)."""
        yield from self._make()
        self.done = True
        self._make = _nothing


def _nothing() -> Iterator[None]:
    yield from ()


#: How many jobs wait at most: an older one is dropped (asked again, it comes back). A
#: server asks for six at its start (warm/state.prepare).
MOST_WANTED = 8
_DONE = object()


class Queue:
    """Hold the jobs a long-lived process makes between its calls, newest last. The
    process owns one (read/load.py's Held) and hands it to what it reads."""

    __slots__ = ("wanted", "_failed")

    def __init__(self) -> None:
        #: The jobs asked for and not made yet, the newest last (make_wanted makes them).
        self.wanted: list[Job] = []
        #: Jobs whose step failed (a memory's blob gone from the repository, say): not
        #: asked for again, since each call would start them again only to fail; the
        #: calls do that work themselves, as the command line does.
        self._failed: list[Job] = []

    def want(self, job: Job, *, first: bool = False) -> None:
        """Ask for a job to be made between calls (make_wanted); `first`: before those
        asked for so far."""
        if any(job is failed for failed in self._failed):
            return
        if job in self.wanted:
            if not first:
                return
            self.wanted.remove(job)
        self.wanted.append(job)
        del self.wanted[:-MOST_WANTED]

    def make_wanted(self, pause: Callable[[], AbstractContextManager[object]]) -> None:
        """Make the jobs asked for, newest first, each step inside what `pause()` gives
        (it waits while a call is under way, and holds the call's lock). The list is
        read outside that lock on purpose: a call may take or drop a job meanwhile."""
        wanted = self.wanted
        while wanted:
            try:
                job = wanted[-1]
            except IndexError:  # a call took it meanwhile
                return
            steps = job.steps()
            while job in wanted:
                with pause():
                    try:
                        if next(steps, _DONE) is _DONE:
                            break
                    except Exception:  # noqa: BLE001 -- work done ahead: a call does it
                        self._failed.append(job)
                        del self._failed[:-MOST_WANTED]
                        break
            with suppress(ValueError):  # a call may have dropped it meanwhile
                wanted.remove(job)


def first_recall(snap: Snapshot, contents: bool) -> Iterator[None]:
    """Do between calls what a first recall would do for itself: read what it searches
    and ask for the view's vocabulary (`contents`: read/contents.ahead); or compile the
    patterns of the view's scopes (core/scope.ahead) and decode its groups
    (read/groups.decode)."""
    from git_aide.core import scope
    from git_aide.read.contents import ahead
    from git_aide.read.groups import decode

    yield
    if contents:
        ahead(snap)
        return
    yield from scope.ahead(c for c, _part in snap.parts()[0])
    yield from decode(snap)
