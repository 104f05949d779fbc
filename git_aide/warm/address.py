"""Where a repository's warm server listens: a socket in its git folder, found from a
working directory without asking git (the thin client's whole start is a few stats).

Each working tree has its own server (a linked worktree's git folder is its own), as
git's `fsmonitor--daemon` has: the socket is `<git dir>/aide-server.sock`, readable
only by its user, and `<git dir>/aide-server.lock` is held by the one process that
serves, for as long as it lives (a lock the kernel lets go of when the process dies,
so a socket left by a killed server is known as stale).
"""

from __future__ import annotations

import os

#: The socket's name in the git folder.
SOCKET = "aide-server.sock"
#: The lock the serving process holds, beside it.
LOCK = "aide-server.lock"
#: The longest socket path the kernel takes (sockaddr_un's 108 bytes, less a margin).
LONGEST = 100
#: What the variable GIT_AIDE_SERVER says to leave the server alone.
OFF = ("0", "false", "off", "no")


def find(folder: str) -> tuple[str, str] | None:
    """Return (working tree's top, git folder) of the repository around `folder`, by the
    first `.git` above it (a folder, or a file naming one, as a linked worktree or a
    submodule has); None outside any, or when `.git` cannot be read."""
    path = os.path.abspath(folder)
    while True:
        dot = os.path.join(path, ".git")
        if os.path.isdir(dot):
            return path, dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as f:
                    line = f.readline().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not line.startswith("gitdir:"):
                return None
            named = line[len("gitdir:"):].strip()
            return path, os.path.normpath(os.path.join(path, named))
        up = os.path.dirname(path)
        if up == path:
            return None
        path = up


def within(folder: str, git_dir: str) -> bool:
    """Tell whether `folder` belongs to the repository of git folder `git_dir` (its first
    `.git` above names that folder: not a repository nested in it)."""
    found = find(folder)
    try:
        return found is not None and os.path.samefile(found[1], git_dir)
    except OSError:
        return False


def socket_path(git_dir: str) -> str:
    """Return the path of the socket a server of `git_dir` listens on."""
    return os.path.join(git_dir, SOCKET)


def reachable(path: str) -> tuple[str, int | None]:
    """Return an address for the socket at `path` that the kernel takes, and the
    descriptor it holds open (None: the path itself is short enough). A long path is
    reached through its folder's descriptor (`/proc/self/fd/N/NAME`, Linux)."""
    if len(os.fsencode(path)) <= LONGEST:
        return path, None
    folder, name = os.path.split(path)
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    return f"/proc/self/fd/{fd}/{name}", fd


def off() -> bool:
    """Tell whether GIT_AIDE_SERVER turns asking a server off (every command runs here)."""
    return os.environ.get("GIT_AIDE_SERVER", "").strip().lower() in OFF


#: The variables an answer may depend on besides the repository: a server answers only a
#: command whose values of these are its own. Every GIT_* counts too (GIT_DIR,
#: GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS of `git -c`, a hook's GIT_AIDE_HOOKS...) but
#: those that only reach git's network, editor and pager (PLAIN_GIT).
ENVIRONMENT = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "TZ",
               "NO_COLOR", "LANG", "LANGUAGE", "PYTHONIOENCODING", "PYTHONUTF8")
#: The variables a command reads afresh each time it runs, which the server takes on
#: from the command for its run: where Codex keeps its config (the hooks read how much
#: of its AGENTS.md files it loads), which Codex leaves out of its MCP servers'
#: environment but gives its hooks.
CARRIED = ("CODEX_HOME",)
#: The GIT_* variables no answer depends on: git sets GIT_EXEC_PATH for `git aide`, and
#: the rest reach only git's network, editor and pager (a served command's output is
#: never a terminal), or say whether to ask a server.
PLAIN_GIT = ("GIT_EXEC_PATH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
             "GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_SSH", "GIT_SSH_COMMAND",
             "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_NO_VERIFY", "GIT_PROXY_COMMAND",
             "GIT_AIDE_SERVER")


def environment() -> dict[str, str]:
    """Return the variables of this process that an answer may depend on (ENVIRONMENT, the
    locale's LC_*, and every GIT_* but PLAIN_GIT) and those a server takes on (CARRIED)."""
    return {k: v for k, v in os.environ.items()
            if k in ENVIRONMENT or k in CARRIED or k.startswith("LC_")  # git's messages
            or (k.startswith("GIT_") and k not in PLAIN_GIT)}


def compared(env: dict[str, str]) -> dict[str, str]:
    """Return the part of `env` (an environment() of some process) that must be a
    server's own for it to answer: all but CARRIED."""
    return {k: v for k, v in env.items() if k not in CARRIED}
