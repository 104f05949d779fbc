"""Ask git early: start its processes with posix_spawn, read their answers later.

The calls agents make on every file they touch need three answers from git: where the
repository is (`rev-parse`), its aide.* settings (`config`) and which memory files
differ from the index (`status`, the slow one). Started together at the very top of
the process, before the rest of git-aide is imported, they run on the other core while
Python starts. The subprocess module is not needed for that, and is not imported.
"""

from __future__ import annotations

import os

from git_aide import MEMORIES_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    import select

#: Where the repository is: git dir, common dir, inside?, index file, top, prefix; one
#: question each, asked all at once (REV_PARSE) or one a process (gitio.repo.open_repo).
WHERE: tuple[tuple[str, ...], ...] = (
    ("--absolute-git-dir",), ("--git-common-dir",), ("--is-inside-work-tree",),
    ("--git-path", "index"), ("--show-toplevel",), ("--show-prefix",))
#: The questions of WHERE in one process. git answers each on a line of its own and has
#: no -z for them, so a path holding a newline makes the lines ambiguous: open_repo
#: then asks again, one question a process.
REV_PARSE = ("rev-parse", *(arg for question in WHERE for arg in question))
#: The settings git-aide reads (aide.*, and user.* for the contributor).
CONFIG = ("config", "-z", "--get-regexp", r"^(aide|user)\.")
#: The memory files that differ from the index: modified, untracked, ignored (personal).
STATUS = ("--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all",
          "--ignored=matching", "--no-renames", "--", ":/" + MEMORIES_DIR)


def one_answer(out: bytes) -> str:
    """Decode a git answer of one line, such as a path from `rev-parse`: its bytes (undecodable
    ones kept as surrogates) less the one newline git ends it with. Only that one: a path
    may itself end in a newline, a space or a tab, which strip() would take."""
    return (out[:-1] if out.endswith(b"\n") else out).decode(errors="surrogateescape")


class Spawned:
    """Start one git process now and read it when its answer is needed."""

    def __init__(self, *args: str, input: bytes | None = None,
                 env: dict[str, str] | None = None) -> None:
        #: The git arguments, for messages.
        self.args = args
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
                   (os.POSIX_SPAWN_DUP2, err_w, 2)]
        try:
            self._pid = os.posix_spawnp("git", ["git", *args],
                                        os.environ if env is None else env,
                                        file_actions=actions)
        except BaseException:
            for fd in (out_r, err_r, in_w):
                os.close(fd)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
            os.close(in_r)
        #: git's stdout and stderr, then its stdin while input is left to give it; each
        #: closed (and dropped) once done with.
        self._fds = [out_r, err_r, in_w]
        #: The input git has not been given yet.
        self._pending = memoryview(input or b"")
        self._result: tuple[int, bytes, bytes] | None = None
        #: What git wrote to stdout and stderr so far, and the poll of its pipes.
        self._got: tuple[list[bytes], list[bytes]] = ([], [])
        self._poller: select.poll | None = None
        # Only what the pipe takes goes now: git answers as it reads, and a write that
        # blocked here would wait for a reader (wait()) that has not started.
        os.set_blocking(in_w, False)
        self._give()

    def _give(self) -> None:
        """Give git as much of the pending input as its stdin takes without blocking;
        close its stdin once all is given, or once git stopped reading."""
        fd = self._fds[2]
        try:
            while self._pending:
                self._pending = self._pending[os.write(fd, self._pending):]
        except BlockingIOError:
            return
        except OSError:  # git exited without reading it all: its answer says why
            self._pending = memoryview(b"")
        os.close(fd)
        self._fds[2] = -1

    def wait(self) -> tuple[int, bytes, bytes]:
        """Return (exit status, stdout, stderr); the first call waits for git to finish.

        git's three pipes are served together, whichever is ready: git blocks on any
        pipe that is full (or empty), so reading them in a fixed order could wait on
        git while git waits on us.
        """
        self.finished(None)
        assert self._result is not None, "finished() sets it"
        return self._result

    def finished(self, timeout: float | None = 0.0) -> bool:
        """Serve git's pipes for at most `timeout` seconds (None: until git is done) and
        tell whether it is done: wait() then returns at once. A long-lived process polls
        this between its calls, never blocking a call behind git."""
        if self._result is not None:
            return True
        import select

        if self._poller is None:
            self._poller = select.poll()
            for i, fd in enumerate(self._fds):
                if fd >= 0:
                    self._poller.register(fd, select.POLLOUT if i == 2 else select.POLLIN)
        poller, got = self._poller, self._got
        try:
            while self._fds[0] >= 0 or self._fds[1] >= 0:
                ready = poller.poll(None if timeout is None else int(timeout * 1000))
                if not ready:
                    return False
                for fd, _event in ready:
                    if fd == self._fds[2]:
                        self._give()
                        if self._fds[2] < 0:
                            poller.unregister(fd)
                        continue
                    i = self._fds.index(fd)
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        got[i].append(chunk)
                    else:
                        poller.unregister(fd)
                        os.close(fd)
                        self._fds[i] = -1
        except BaseException:
            self.close()
            raise
        self.close()
        _pid, status = os.waitpid(self._pid, 0)
        self._result = (os.waitstatus_to_exitcode(status), b"".join(got[0]),
                        b"".join(got[1]))
        return True

    def close(self) -> None:
        """Let go of git's pipes without waiting for it: git reads the end of its input,
        or stops writing to a pipe that nobody reads."""
        for fd in self._fds:
            if fd >= 0:
                os.close(fd)
        self._fds = [-1, -1, -1]
        self._pending = memoryview(b"")

    def __del__(self) -> None:
        # Never waited for: git must not stay blocked on a pipe that nobody serves.
        if any(fd >= 0 for fd in getattr(self, "_fds", ())):
            self.close()


def spawn(*args: str, input: bytes | None = None) -> Spawned | None:
    """Start git with these arguments; None when git cannot be started at all."""
    # STATUS names its pathspec with `:/` magic, which the user's pathspec settings
    # would turn into literal text (and then nothing would differ from the index).
    env = None
    if args == STATUS and _PATHSPEC_VARS & os.environ.keys():
        env = {k: v for k, v in os.environ.items() if k not in _PATHSPEC_VARS}
    try:
        return Spawned(*args, input=input, env=env)
    except OSError:
        return None


_PATHSPEC_VARS = frozenset({"GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
                            "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS"})


#: The longest revision git-aide hands to git, in bytes. A ref is a file under the git
#: directory, so no name git can create is longer than a path (PATH_MAX, 4096 bytes).
MAX_REVISION = 4096
#: How the control characters a revision most likely carries by mistake are named.
_CONTROL_NAMES = {"\0": "NUL", "\n": "a newline", "\r": "a carriage return", "\t": "a tab"}


def revision_problem(rev: str) -> str | None:
    """Say why `rev` cannot name a commit, before git is asked; None when it may.

    The one check of every revision a user or an agent gives (the command line's and
    the MCP server's): git reads revisions one a line on stdin (`cat-file --batch-check`),
    where a newline makes two questions of one, and takes no NUL in an argument.
    """
    try:
        size = len(rev.encode("utf-8"))
    except UnicodeEncodeError:
        return "it is not valid UTF-8"
    if not rev:
        return "it is empty"
    if size > MAX_REVISION:
        return (f"it is {size} bytes long; git-aide takes revisions of at most "
                f"{MAX_REVISION} bytes, as no ref name can be longer")
    for ch in rev:
        if ch < " " or ch == "\x7f":
            what = _CONTROL_NAMES.get(ch, f"the control character U+{ord(ch):04X}")
            return f"it holds {what}; a revision holds no control characters"
    if rev.startswith("-"):
        return "it starts with '-': git would read an option"
    return None


def resolve_query(rev: str) -> bytes:
    """Return what `git cat-file --batch-check` is asked to resolve a revision and its memories.

    The revision alone first: `:/text` would read `^{commit}` as part of its text.
    """
    return f"{rev}\n{rev}^{{commit}}\n{rev}^{{commit}}:{MEMORIES_DIR}\n".encode()


class Prefetch:
    """Hold the git questions a command started at its very top (`early`), each read where
    its answer is needed; None where it was not asked (or git could not be started)."""

    __slots__ = ("rev_parse", "config", "status", "resolve")

    def __init__(self, *, rev_parse: Spawned | None = None, config: Spawned | None = None,
                 status: Spawned | None = None, resolve: Spawned | None = None) -> None:
        #: Where the repository is (REV_PARSE), read by gitio.repo.open_repo.
        self.rev_parse = rev_parse
        #: The aide.* and user.* settings (CONFIG), read by the Repo on first use.
        self.config = config
        #: The memory files that differ from the index (STATUS), for the working tree.
        self.status = status
        #: The revision, its commit and its memories tree (resolve_query), for --rev.
        self.resolve = resolve


def early(cached: bool, rev: str | None) -> Prefetch:
    """Start the questions a recall or search of this source asks."""
    asked = Prefetch(rev_parse=spawn(*REV_PARSE), config=spawn(*CONFIG))
    if rev is not None:
        if revision_problem(rev) is None:  # else Repo.resolve says what is wrong
            asked.resolve = spawn("cat-file", "--batch-check", input=resolve_query(rev))
    elif not cached:
        asked.status = spawn(*STATUS)
    return asked


def pager(command: str, env: dict[str, str]) -> tuple[int, int] | None:
    """Start a pager, a shell command as git runs it (`sh -c`), reading a pipe: (its pid,
    the pipe's end to write); None when it cannot be started. Not git, but this is the one
    place that starts processes (cli/pager.py chooses the command, as git does)."""
    read_end, write_end = os.pipe()
    try:
        pid = os.posix_spawnp("sh", ["sh", "-c", command], env,
                              file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0)])
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return pid, write_end
