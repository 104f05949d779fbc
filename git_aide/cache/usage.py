"""Per-machine counts of how the memories are used (docs/export-and-stats.md): how many recalls,
searches and writes each front end made, and which memories each answer gave, with
those given to an agent (by the MCP server or a hook) counted apart.

They live in `<git common dir>/aide/usage/`, beside the cache's per-Python folders and
not in them: the counts are not derived from anything, so `index --rebuild` keeps them,
and every Python and every worktree adds to the same ones. Never in a working tree,
never committed.

- `log`: one line per answer, `<unix time> <kind> <channel> <uuid>...`, appended in a
  single write to a file opened O_APPEND, so processes counting at once never mix
  their lines and none waits for another's count (each holds a shared flock on the
  log while it writes; the fold below takes it exclusively).
- `counts`: a JSON table the log is folded into once it passes FOLD_BYTES, by the
  process whose line took it there: the log is read, added to the table, the table
  written atomically and the log emptied, all under the log's exclusive lock. The
  table names the log it holds (a token the emptied log starts with), so that a fold
  cut off between its two writes counts no line twice.

The log's flock is not core/files.lock's: the writers share it (an exclusive lock
would queue every count behind the others), and it is taken on the log itself,
which is emptied, never replaced.

Best effort: counting never raises and never stops an answer; a table or a line that
cannot be read is skipped, and `read` says so once (a warning line), never a traceback.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

#: The folder, beside the per-Python cache folders.
FOLDER = "usage"
#: What an answer was: reading kinds first, then the writes.
READS = ("recall", "search", "list", "session")
WRITES = ("remember", "update", "forget")
KINDS = READS + WRITES
#: Who asked: the command line, the MCP server, an agent's hook.
CHANNELS = ("cli", "mcp", "hook")
#: The channels whose answers an agent reads.
AGENTS = ("mcp", "hook")
#: A log longer than this is folded into the table (about 600 answers of ten memories),
#: once it is longer than the table too: a fold reads and writes the whole table (1.4 MB
#: of 100,000 memories), so a table is rewritten only after as many bytes were logged,
#: not after every answer of thousands of memories (`search WORD --limit 1000000`).
FOLD_BYTES = 256 * 1024
#: The table's format; another is read as empty.
FORMAT = 1


class Used:
    """Hold how one memory was used on this machine."""

    __slots__ = ("recalls", "searches", "agents", "last")

    def __init__(self, recalls: int = 0, searches: int = 0, agents: int = 0,
                 last: int = 0) -> None:
        #: Recall answers it was in (any channel).
        self.recalls = recalls
        #: Search answers it was in (any channel).
        self.searches = searches
        #: Answers an agent was given it in (MCP recall, search, list; a hook's).
        self.agents = agents
        #: When it was last given in any answer (unix time).
        self.last = last

    def as_list(self) -> list[int]:
        """Return the table's row."""
        return [self.recalls, self.searches, self.agents, self.last]


class Usage:
    """Hold the counts of one machine: answers by kind and channel, and each memory's use.
    (Plain classes, not dataclasses: this module is imported on a recall's path.)"""

    def __init__(self, warnings: list[str] | None = None) -> None:
        #: kind -> channel -> answers.
        self.calls: dict[str, dict[str, int]] = {}
        #: uuid -> how it was used.
        self.memories: dict[str, Used] = {}
        #: What could not be read, one line each (for the user, once).
        self.warnings: list[str] = warnings or []

    def add_line(self, line: bytes) -> bool:
        """Count one line of the log; False when it is not one."""
        parts = line.split()
        if len(parts) < 3 or not parts[0].isdigit():
            return False
        try:
            when = int(parts[0])
            kind, channel = parts[1].decode("ascii"), parts[2].decode("ascii")
            uuids = [p.decode("ascii") for p in parts[3:]]
        except (UnicodeDecodeError, ValueError):
            return False
        if kind not in KINDS or channel not in CHANNELS:
            return False
        by = self.calls.setdefault(kind, {})
        by[channel] = by.get(channel, 0) + 1
        if kind in WRITES:
            return True
        agent = channel in AGENTS
        for u in dict.fromkeys(uuids):
            used = self.memories.get(u)
            if used is None:
                used = self.memories[u] = Used()
            if kind == "recall":
                used.recalls += 1
            elif kind == "search":
                used.searches += 1
            if agent:
                used.agents += 1
            used.last = max(used.last, when)
        return True

    def table(self, token: str, prev: dict[str, object]) -> bytes:
        """Write the `counts` file holding these counts, for the log that starts with `token`."""
        import json

        return json.dumps({
            "format": FORMAT, "token": token, "prev": prev,
            "calls": self.calls,
            "memories": {u: m.as_list() for u, m in sorted(self.memories.items())},
        }, separators=(",", ":")).encode() + b"\n"


def folder_of(cache_root: str) -> str:
    """Return the usage folder of a cache folder (`<git common dir>/aide/<python>`)."""
    return os.path.join(os.path.dirname(cache_root), FOLDER)


def line(kind: str, channel: str, uuids: Iterable[str], when: float) -> bytes:
    """Write one line of the log."""
    return " ".join([str(int(when)), kind, channel, *uuids]).encode("ascii", "replace") + b"\n"


def record(folder: str, lines: list[bytes]) -> None:
    """Append lines (line()) to the log in one write, folding it when it has grown past
    FOLD_BYTES; never raises (a count lost is no failure)."""
    if not lines:
        return
    import fcntl

    path = os.path.join(folder, "log")
    try:
        fd = _open_log(path)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        os.write(fd, b"".join(lines))
        if _outgrown(folder, fd):
            fcntl.flock(fd, fcntl.LOCK_UN)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return  # another process counts or folds: the next count folds
            if _outgrown(folder, fd):  # not folded meanwhile by another
                _fold(folder, fd)
    except (OSError, ValueError):
        return
    finally:
        os.close(fd)


def _outgrown(folder: str, fd: int) -> bool:
    """Tell whether the log (open as `fd`) is due to be folded: longer than FOLD_BYTES and
    than the table."""
    size = os.fstat(fd).st_size
    if size <= FOLD_BYTES:
        return False
    try:
        return size > os.stat(os.path.join(folder, "counts")).st_size
    except OSError:
        return True  # no table yet (or none readable): the fold writes one


def _open_log(path: str) -> int:
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, 0o644)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return os.open(path, flags, 0o644)


def read(folder: str) -> Usage:
    """Read the counts: the table and the log's lines since it was folded (read under the
    log's shared lock, so never half a fold)."""
    import fcntl

    path = os.path.join(folder, "log")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return _table(folder)[0]
    except OSError as e:
        return Usage(warnings=[f"the usage log {path} cannot be read ({e.strerror}); "
                               "no counts are shown"])
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        return _counted(folder, _read_all(fd))[0]
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    at = 0
    while True:
        chunk = os.pread(fd, 1 << 20, at)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        at += len(chunk)


def _table(folder: str) -> tuple[Usage, str | None, dict[str, object]]:
    """Read (the table's counts, its token, what it says of the log before) — empty, with a
    warning, when the table is damaged."""
    path = os.path.join(folder, "counts")
    usage = Usage()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return usage, None, {}
    except OSError as e:
        usage.warnings.append(f"the usage counts {path} cannot be read ({e.strerror}); "
                              "counted from the log alone")
        return usage, None, {}
    import json

    try:
        doc = json.loads(data)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError
        token = doc["token"]
        prev = doc["prev"]
        calls = doc["calls"]
        memories = doc["memories"]
        if not (isinstance(token, str) and isinstance(prev, dict)
                and isinstance(calls, dict) and isinstance(memories, dict)):
            raise ValueError
        for kind, by in calls.items():
            if kind not in KINDS or not isinstance(by, dict) or not all(
                    c in CHANNELS and type(n) is int and n >= 0 for c, n in by.items()):
                raise ValueError
            usage.calls[kind] = dict(by)
        for uuid, row in memories.items():
            if not (isinstance(row, list) and len(row) == 4
                    and all(type(n) is int and n >= 0 for n in row)):
                raise ValueError
            usage.memories[uuid] = Used(*row)
    except (ValueError, KeyError, TypeError):
        bad = Usage(warnings=[f"the usage counts {path} are damaged; counting starts "
                              "again from the log (the next fold rewrites them)"])
        return bad, None, {}
    return usage, token, prev


def _counted(folder: str, data: bytes) -> tuple[Usage, str | None, dict[str, object]]:
    """Add to the table's counts those of the log's lines it does not hold yet: (counts,
    the log's own token, what it held)."""
    usage, token, prev = _table(folder)
    head, _nl, rest = data.partition(b"\n")
    mine: str | None = None
    body = data
    if head.startswith(b"# "):
        mine = head[2:].decode("ascii", "replace").strip()
        body = rest
    cut = prev.get("bytes")
    if token is not None and mine != token and prev.get("token") == mine \
            and isinstance(cut, int) and data[:cut].endswith(b"\n"):
        # A fold was cut off before it emptied the log: the table holds what it read.
        body = data[cut:]
    bad = 0
    for raw in body.split(b"\n")[:-1]:  # the last, unended piece is being written
        if raw.strip() and not usage.add_line(raw):
            bad += 1
    if bad:
        usage.warnings.append(f"{bad} line{'s' if bad > 1 else ''} of the usage log "
                              f"{os.path.join(folder, 'log')} could not be read; skipped")
    return usage, mine, {"token": mine, "bytes": len(data)}


def _fold(folder: str, fd: int) -> None:
    """Add the log to the table and empty it (the caller holds the log's exclusive lock)."""
    from git_aide.core.files import write_atomic

    data = _read_all(fd)
    usage, _mine, held = _counted(folder, data)
    token = os.urandom(8).hex()
    write_atomic(os.path.join(folder, "counts"), usage.table(token, held))
    os.ftruncate(fd, 0)
    os.write(fd, f"# {token}\n".encode())
