"""`git aide daemon`: a warm server for the purpose, when no agent's MCP server serves the
working tree (warm/listener.py), and the questions a user asks of whichever serves.

As git's `fsmonitor--daemon`: `run` serves in the foreground until stopped, `start` runs
it in the background and returns once it answers, `stop` asks it to end, `status` says
who serves. The server holds the same state an MCP server holds (warm/state.py), made
at its start: the working tree's view read, its memory folders watched.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.warm.listener import Runner

#: How long `start` waits for the new server to answer, in seconds.
START_SECONDS = 20.0
#: How often a daemon looks whether its git folder is still there, in seconds.
LOOK_SECONDS = 30.0


def git_dir() -> str:
    """Return the git folder of the working tree around the current directory (as git
    finds it), or raise the error `git aide` says outside a working tree."""
    from git_aide.gitio.repo import open_repo

    repo = open_repo()
    repo.require_worktree("serving the working tree", reads=True)
    return os.path.abspath(repo.git_dir)


def status(folder: str) -> JSONObject | None:
    """Return what the server of git folder `folder` says of itself; None when none serves."""
    from git_aide.warm.listener import ask_control

    return ask_control(folder, "status")


def stop(folder: str) -> JSONObject | None:
    """Ask the server of `folder` to stop; its answer (a decline from an MCP server), or
    None when none serves. A daemon answers once it has let go of the working tree."""
    from git_aide.warm.listener import ask_control

    return ask_control(folder, "stop")


def run(runner: Runner) -> int:
    """Serve the working tree around the current directory until stopped (a `stop`
    request, SIGTERM, SIGINT, or its git folder removed); 1 when another process serves
    it."""
    import signal
    import threading

    from git_aide.agents.mcp.server import ready_rest, ready_state
    from git_aide.warm.listener import Listener

    folder = git_dir()
    # The state an MCP server makes, the same way (its read path, its first read, the
    # work between calls); what only some calls need once it is made.
    state = ready_state()
    ready_rest()
    # Set by a signal or a `stop` request: the main thread then closes the listener
    # (a signal handler that closed it could meet a close under way).
    ending = threading.Event()
    listener = Listener(state, runner, "daemon", on_stop=ending.set)
    if not listener.start():
        held = status(folder)
        sys.stderr.write("git-aide: error: " + (
            f"the working tree is served already ({said(held)})" if held is not None
            else f"cannot serve the working tree: {listener.refused}") + "\n")
        return 1
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: ending.set())
    while not ending.wait(LOOK_SECONDS):
        if not os.path.isdir(folder):
            break
    listener.close()
    return 0


def start() -> JSONObject:
    """Start `git aide daemon run` in the background for the working tree around the current
    directory and return its status once it answers; raise AideError when it does not."""
    import subprocess

    from git_aide.core.errors import AideError

    folder = git_dir()
    held = status(folder)
    if held is not None:
        return held
    log = os.path.join(folder, "aide-server.log")
    # Not `-m git_aide`, which would put the current folder first on sys.path: a
    # repository holding a `git_aide` folder would run its code.
    code = ("import sys; del sys.path[0]; from git_aide.__main__ import main; "
            "sys.exit(main())")
    with open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-c", code, "daemon", "run"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, start_new_session=True, close_fds=True)
    until = time.monotonic() + START_SECONDS
    while time.monotonic() < until:
        held = status(folder)
        if held is not None:
            return held
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AideError(f"the server did not start; see {log}")


def said(doc: JSONObject | None) -> str:
    """Return one line on who serves: its kind, process id and what it answered."""
    if doc is None:
        return "no server"
    kind = "MCP server" if doc.get("kind") == "mcp" else "daemon"
    client = doc.get("client")
    of = f" of {client}" if isinstance(client, str) and client else ""
    since = doc.get("since")
    when = time.strftime(" since %H:%M:%S", time.localtime(since)) \
        if isinstance(since, (int, float)) else ""
    from git_aide import __version__

    other = "" if doc.get("aide") == __version__ else \
        f" (git-aide {doc.get('aide') or 'of another version'}: it answers none of this one's)"
    return f"{kind}{of}, pid {doc.get('pid')}{when}, {doc.get('served')} answered{other}"
