"""Which core a thread runs on, and keeping a worker thread off it (Linux).

Linux wakes a thread on the core of the thread that woke it when it judges that core
about to be free; a long-lived server that hands a question to its worker thread and
goes on with the call's own work then waits, on that core, for the worker's whole
run (1-3 ms of a 5 ms call on 2 cores), while the other core idles."""

from __future__ import annotations

import os


def here() -> int | None:
    """Return the core the calling thread runs on (None where that cannot be read)."""
    try:
        with open("/proc/thread-self/stat", "rb") as f:
            # The fields after the command's name (which may hold spaces and parentheses);
            # the 39th field of the line, the processor, is the 37th of them.
            return int(f.read().rsplit(b")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def keep_off(thread: int | None, off: int | None) -> int | None:
    """Let `thread` (a native thread id) run on any core this thread may use but the one it
    runs on; nothing where affinity cannot be set, or only one core is allowed. `off`:
    the core the thread was kept off last (when it is this one, nothing is changed);
    returns the core it is kept off now."""
    if thread is None or not hasattr(os, "sched_setaffinity"):
        return off
    core = here()
    if core is None or core == off:
        return off
    try:
        cores = os.sched_getaffinity(0) - {core}
        if not cores:
            return off
        os.sched_setaffinity(thread, cores)
    except OSError:  # the thread has ended, or the system refuses
        return off
    return core
