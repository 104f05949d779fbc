"""What a command the warm server runs writes (`Recorded`), and the stand-ins for
sys.stdout and sys.stderr that send it there (`Routed`), while every other thread of the
server writes where it always did.

The thin client writes the answer back in the order it would have reached a pipe that
stdout and stderr share (`2>&1`), had the command run itself: stdout is buffered in a
process whose output is not a terminal, so its text reaches the pipe when flushed or
when a buffer's worth waits; stderr's lines reach it at once.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

#: How many characters of stdout wait before they reach the pipe (io's buffer).
BUFFER = 8192


class Recorded:
    """Record one command's writes on stdout (1) and stderr (2), in the order they would
    reach a shared pipe."""

    def __init__(self) -> None:
        #: The writes so far, each [1 or 2, text], consecutive ones of a stream joined.
        self.writes: list[list[int | str]] = []
        self._pending: list[str] = []
        self._size = 0
        #: The stand-ins the command writes to, as sys.stdout and sys.stderr.
        self.stdout = Sink(self, 1)
        self.stderr = Sink(self, 2)

    def write(self, fd: int, text: str) -> int:
        """Record `text` written on `fd`."""
        if fd == 1:
            self._pending.append(text)
            self._size += len(text)
            if self._size >= BUFFER:
                self.flush()
        else:
            self._add(2, text)
        return len(text)

    def flush(self) -> None:
        """Let what stdout holds reach the pipe."""
        if self._pending:
            self._add(1, "".join(self._pending))
            self._pending, self._size = [], 0

    def _add(self, fd: int, text: str) -> None:
        if not text:
            return
        if self.writes and self.writes[-1][0] == fd:
            self.writes[-1][1] = str(self.writes[-1][1]) + text
        else:
            self.writes.append([fd, text])

    def finish(self) -> list[list[int | str]]:
        """Return every write, stdout's last text flushed (as at the process's exit)."""
        self.flush()
        return self.writes


class Sink:
    """Stand in for one stream of a served command: its writes recorded."""

    def __init__(self, recorded: Recorded, fd: int) -> None:
        self._recorded = recorded
        self._fd = fd

    def write(self, text: str) -> int:
        """Record `text`."""
        return self._recorded.write(self._fd, text)

    def flush(self) -> None:
        """Flush stdout's text (stderr's is never held)."""
        if self._fd == 1:
            self._recorded.flush()

    def isatty(self) -> bool:
        """Tell whether the output is a terminal: never, for a served command."""
        return False


class Routed:
    """Stand in for sys.stdout or sys.stderr: what the thread running a served command
    writes goes to that command's record, the rest where it went before."""

    def __init__(self, stream: TextIO) -> None:
        #: The stream it stands in for.
        self.stream = stream
        self._local = threading.local()

    def capture(self, sink: Sink | None) -> None:
        """Send this thread's writes to `sink` (None: to the stream again)."""
        self._local.sink = sink

    def _target(self) -> Sink | TextIO:
        sink: Sink | None = getattr(self._local, "sink", None)
        return sink if sink is not None else self.stream

    def write(self, text: str) -> int:
        """Write `text` to this thread's record, or to the stream."""
        return self._target().write(text)

    def flush(self) -> None:
        """Flush this thread's record, or the stream."""
        self._target().flush()

    def isatty(self) -> bool:
        """Tell whether the output is a terminal: never, for a served command."""
        return self._target().isatty()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)
