"""The pager of long human output, chosen and run as git does (git's pager.c).

Only when stdout is a terminal: GIT_PAGER, else the `core.pager` setting, else PAGER,
else `less`; an empty value or `cat` means none (`git --no-pager aide ...` sets
GIT_PAGER=cat for git-aide, as for any external command; so does `git aide --no-pager`).
LESS=FRX and LV=-c are set for the pager unless already set: `less` then quits at once on
an answer that fits the screen, keeps colours and leaves the text on the screen.
Imported only on a terminal, so the hot commands' usual caller (an agent, a pipe) never
pays for it.
"""

from __future__ import annotations

import os
import sys


def choice() -> str | None:
    """Return the pager command git would run; None for none."""
    pager = os.environ.get("GIT_PAGER")
    if pager is None:
        pager = _core_pager()
    if pager is None:
        pager = os.environ.get("PAGER")
    if pager is None:
        pager = "less"
    return None if not pager or pager == "cat" else pager


def _core_pager() -> str | None:
    """Ask `git config core.pager`; None when unset (or git cannot tell)."""
    from git_aide.gitio.spawn import one_answer, spawn

    asked = spawn("config", "core.pager")
    if asked is None:
        return None
    status, answer, _err = asked.wait()
    return one_answer(answer) if status == 0 else None


class Pager:
    """Write text to a running pager's stdin until `close`, which waits for it."""

    def __init__(self, pid: int, fd: int) -> None:
        self._pid = pid
        #: The pipe to the pager; -1 once closed (or once the pager stopped reading).
        self._fd = fd

    def write(self, text: str) -> None:
        """Give the pager `text`; dropped once the pager has quit (the user pressed q)."""
        if self._fd < 0:
            return
        data = memoryview(text.encode(sys.stdout.encoding or "utf-8",
                                      sys.stdout.errors or "strict"))
        try:
            while data:
                data = data[os.write(self._fd, data):]
        except BrokenPipeError:
            self._drop()

    def _drop(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def close(self) -> None:
        """End the pager's input and wait until the user is done with it."""
        self._drop()
        while True:
            try:
                os.waitpid(self._pid, 0)
                return
            except ChildProcessError:
                return
            except KeyboardInterrupt:  # the pager has the terminal: wait for it
                continue


def start() -> Pager | None:
    """Start a pager for stdout, when stdout is a terminal and a pager is wanted; else None."""
    if not sys.stdout.isatty():
        return None
    command = choice()
    if command is None:
        return None
    from git_aide.gitio.spawn import pager

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    started = pager(command, env)
    if started is None:
        return None
    import signal

    # A ^C in the pager is the pager's (as with git): the output stops when the user
    # quits it, without an error.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return Pager(*started)
