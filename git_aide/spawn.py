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

#: Where the repository is: git dir, common dir, inside?, index file, top, prefix.
REV_PARSE = ("rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-inside-work-tree",
             "--git-path", "index", "--show-toplevel", "--show-prefix")
#: The settings git-aide reads (aide.*, and user.* for the contributor).
CONFIG = ("config", "-z", "--get-regexp", r"^(aide|user)\.")
#: The memory files that differ from the index: modified, untracked, ignored (personal).
STATUS = ("--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all",
          "--ignored=matching", "--no-renames", "--", ":/" + MEMORIES_DIR)


class Spawned:
    """One git process, started now and read when its answer is needed."""

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
        finally:
            os.close(out_w)
            os.close(err_w)
            os.close(in_r)
        try:
            if input:  # a few lines at most: the pipe holds them without blocking
                os.write(in_w, input)
        finally:
            os.close(in_w)
        self._fds = (out_r, err_r)
        self._result: tuple[int, bytes, bytes] | None = None

    def wait(self) -> tuple[int, bytes, bytes]:
        """(exit status, stdout, stderr); the first call waits for git to finish."""
        if self._result is None:
            out = _read_all(self._fds[0])
            err = _read_all(self._fds[1])  # git says little on stderr: no deadlock
            _pid, status = os.waitpid(self._pid, 0)
            self._result = (os.waitstatus_to_exitcode(status), out, err)
        return self._result


def _read_all(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


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


def resolve_query(rev: str) -> bytes:
    """What `git cat-file --batch-check` is asked to resolve a revision and its memories.

    The revision alone first: `:/text` would read `^{commit}` as part of its text.
    """
    return f"{rev}\n{rev}^{{commit}}\n{rev}^{{commit}}:{MEMORIES_DIR}\n".encode()


def early(cached: bool, rev: str | None) -> dict[str, Spawned | None]:
    """Start the questions a recall or search of this source asks."""
    asked = {"rev-parse": spawn(*REV_PARSE), "config": spawn(*CONFIG)}
    if rev is not None:
        if rev and "\n" not in rev and not rev.startswith("-"):
            asked["resolve"] = spawn("cat-file", "--batch-check", input=resolve_query(rev))
    elif not cached:
        asked["status"] = spawn(*STATUS)
    return asked
