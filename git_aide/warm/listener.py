"""The warm server's socket (`Listener`): hooks and reading commands of its repository,
handed over by the thin client (warm/client.py), run here on the server's state.

One process serves a working tree: the one holding `<git dir>/aide-server.lock`
(warm/address.py); an MCP server takes it when free, else leaves the serving to the
process that has it. Requests are run one at a time, under the state's lock, as the
tool calls are: the command's folder is made the current one for its run, and what it
writes on stdout and stderr goes to its answer (`Routed`), so that the client prints
what the command would have printed itself. A request is declined (the client then runs
the command) when its environment differs from the server's in anything an answer
depends on, when its folder lies in another repository, when the runner does not serve
its form, or when a long call holds the state for more than BUSY_SECONDS.
"""

from __future__ import annotations

import json
import marshal
import os
import sys
import threading
import time

from git_aide.warm import address
from git_aide.warm.client import VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from typing import TextIO

    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.warm.state import ServerState

    #: What runs one request: (argv, a hook's event, what opens its contexts) in, its
    #: exit status out; None when it does not serve that form (the client runs it).
    Runner = Callable[[list[str], bytes | None, Contexts], int | None]

#: How long a request waits for a call under way before it is declined.
BUSY_SECONDS = 0.25
#: The largest request read (a hook's event holds a tool's whole output at most).
LARGEST = 64 << 20


class Routed:
    """Stand in for sys.stdout or sys.stderr: what the thread running a served command
    writes goes to that command's answer, the rest where it went before."""

    def __init__(self, stream: TextIO) -> None:
        #: The stream it stands in for.
        self.stream = stream
        self._local = threading.local()

    def capture(self, sink: TextIO | None) -> None:
        """Send this thread's writes to `sink` (None: to the stream again)."""
        self._local.sink = sink

    def _target(self) -> TextIO:
        sink: TextIO | None = getattr(self._local, "sink", None)
        return sink if sink is not None else self.stream

    def write(self, text: str) -> int:
        """Write `text` to this thread's answer, or to the stream."""
        return self._target().write(text)

    def flush(self) -> None:
        """Flush the stream (an answer is read whole at its end)."""
        self._target().flush()

    def isatty(self) -> bool:
        """Tell whether the output is a terminal: never, for a served command."""
        return self._target().isatty()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


class Listener:
    """Serve hooks and reading commands of the state's repository on its socket, in a
    thread of its own, while the process lives (or until `close`)."""

    def __init__(self, state: ServerState, runner: Runner, kind: str,
                 on_stop: Callable[[], None] | None = None) -> None:
        #: The server's state, whose lock each request holds.
        self.state = state
        self._runner = runner
        #: "mcp" (an agent's MCP server) or "daemon" (`git aide daemon`).
        self.kind = kind
        #: What a `stop` request calls (None: this server stops only with its client).
        self._on_stop = on_stop
        #: The working tree's top and git folder it serves, once started.
        self.top = ""
        self.git_dir = ""
        #: When it started serving, and how many requests it answered.
        self.since = 0.0
        self.served = 0
        self._lock_fd: int | None = None
        self._sock: socket.socket | None = None
        self._path = ""
        self._routed: tuple[Routed, Routed] | None = None
        self._env: dict[str, str] = {}
        self._home = ""
        #: Set once closed; `_closing` is held while it closes.
        self._closed = threading.Event()
        #: Why start() refused, when it did.
        self.refused = ""
        self._closing = threading.Lock()
        #: Whether a `stop` request was answered: the listener closes after its answer.
        self._stopping = False

    def start(self) -> bool:
        """Take the repository's serving lock, listen on its socket and start answering;
        False (nothing changed, and `refused` says why) when another process serves it or
        it cannot be served."""
        import fcntl
        import socket

        with self.state.lock:
            try:
                repo = self.state.repo()
                top = repo.worktree
                git_dir = os.path.abspath(repo.git_dir)
            except Exception as e:  # noqa: BLE001 -- no repository: nothing to serve
                self.refused = str(e)
                return False
            finally:
                self.state.end_quietly()
        if top is None:
            self.refused = "a bare repository has no working tree to serve"
            return False
        try:
            fd = os.open(os.path.join(git_dir, address.LOCK), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            # a git folder this user cannot write: nobody serves it
            self.refused = f"cannot write {address.LOCK} in the git folder ({e.strerror})"
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            self.refused = "another process serves the working tree"
            return False
        path = address.socket_path(git_dir)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        where, dir_fd = address.reachable(path)
        try:
            if os.path.lexists(path):
                os.unlink(path)  # left by a server that died: the lock was free
            sock.bind(where)
            os.chmod(path, 0o600)
            sock.listen(16)
        except OSError as e:
            sock.close()
            os.close(fd)
            self.refused = f"cannot listen on {address.SOCKET} ({e.strerror})"
            return False
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "kind": self.kind}).encode() + b"\n")
        self._lock_fd, self._sock, self._path = fd, sock, path
        self.top, self.git_dir, self.since = top, git_dir, time.time()
        self._env = address.compared(address.environment())
        self._home = os.getcwd()
        out, err = Routed(sys.stdout), Routed(sys.stderr)
        sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
        self._routed = (out, err)
        threading.Thread(target=self._loop, name="aide-listener", daemon=True).start()
        return True

    def close(self) -> None:
        """Stop answering: the socket removed, the lock let go, the streams given back
        (then `closed` says so)."""
        with self._closing:
            if self._closed.is_set():
                return
            sock, self._sock = self._sock, None
            if sock is not None:
                import socket

                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
                try:
                    os.unlink(self._path)
                except OSError:
                    pass
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # lets go of the lock
                self._lock_fd = None
            if self._routed is not None:
                out, err = self._routed
                if sys.stdout is out:
                    sys.stdout = out.stream
                if sys.stderr is err:
                    sys.stderr = err.stream
                self._routed = None
            self._closed.set()

    def closed(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for the listener to be closed (a `stop` request,
        or `close`): whether it is."""
        return self._closed.wait(timeout)

    def _loop(self) -> None:
        sock = self._sock
        while sock is not None and not self._closed.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    self._one(conn)
                except Exception as e:  # noqa: BLE001 -- one bad request never ends serving
                    sys.stderr.write(f"git-aide: server: {type(e).__name__}: {e}\n")
            if self._stopping and self._on_stop is not None:
                self._on_stop()
                return

    def _one(self, conn: socket.socket) -> None:
        """Read one request on `conn` and send its answer."""
        import socket

        conn.settimeout(5.0)
        if hasattr(socket, "SO_PEERCRED"):
            import struct

            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                    struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", creds)
            if uid != os.getuid():
                return  # another user: no answer at all
        chunks, size = [], 0
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > LARGEST:
                return
            chunks.append(chunk)
        data = b"".join(chunks)
        line, _, body = data.partition(b"\n")
        try:
            head = json.loads(line)
        except ValueError:
            return
        answer = self._answer(head, body) if isinstance(head, dict) else {"decline": "bad"}
        conn.settimeout(None)
        # marshal: the thin client reads it without importing json (warm/client.py).
        conn.sendall(marshal.dumps(answer))

    def _answer(self, head: JSONObject, body: bytes) -> JSONObject:
        """Return the answer to one request (a command's output and status, the server's
        status, or a decline)."""
        if head.get("version") != VERSION:
            return {"decline": "another version"}
        control = head.get("control")
        if control == "status":
            return {"pid": os.getpid(), "kind": self.kind, "top": self.top,
                    "since": self.since, "served": self.served,
                    "client": self.state.client}
        if control == "stop":
            if self._on_stop is None:
                return {"decline": "an MCP server stops with its client"}
            self._stopping = True
            return {"stopped": True}
        from git_aide import __version__

        if head.get("aide") != __version__:
            return {"decline": "another version of git-aide"}
        argv, cwd, env = head.get("argv"), head.get("cwd"), head.get("env")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
                and isinstance(cwd, str) and isinstance(env, dict)):
            return {"decline": "bad request"}
        if not all(isinstance(v, str) for v in env.values()) or \
                address.compared(env) != self._env:
            return {"decline": "another environment"}
        found = address.find(cwd)
        if found is None or not _same(found[1], self.git_dir):
            return {"decline": "another repository"}
        from git_aide.core.files import relative_inside

        # The command's folder as git's --show-prefix gives it (no folder in .git/).
        prefix = relative_inside(self.top, cwd)
        if prefix is None or relative_inside(self.git_dir, cwd) is not None:
            return {"decline": "outside the working tree"}
        event = body if head.get("event") else None
        carried = {k: env.get(k) for k in address.CARRIED}
        return self._run(argv, cwd, prefix, event, carried)

    def _run(self, argv: list[str], cwd: str, prefix: str, event: bytes | None,
             carried: dict[str, str | None]) -> JSONObject:
        """Run one command under the state's lock, in its folder, with its `carried`
        variables (address.CARRIED), its output captured."""
        import io

        from git_aide.warm.contexts import WarmContexts

        if not self.state.lock.acquire(timeout=BUSY_SECONDS):
            return {"decline": "busy"}
        out, err = io.StringIO(), io.StringIO()
        assert self._routed is not None, "started"
        routed_out, routed_err = self._routed
        kept = {k: os.environ.get(k) for k in carried}
        try:
            _set_environment(carried)
            os.chdir(cwd)
            routed_out.capture(out)
            routed_err.capture(err)
            contexts = WarmContexts(self.state, prefix)
            try:
                status = self._runner(argv, event, contexts)
            finally:
                contexts.restore()
        except SystemExit as e:  # as the process would have exited
            status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
        except OSError:
            status = None  # its folder went away: the command says so itself
        finally:
            routed_out.capture(None)
            routed_err.capture(None)
            _set_environment(kept)
            try:
                os.chdir(self._home)
            except OSError:
                pass
            self.state.end_call(wrote=False)
            self.state.lock.release()
        if status is None:
            return {"decline": "not served"}
        self.served += 1
        return {"status": status, "out": out.getvalue(), "err": err.getvalue()}


def _set_environment(values: dict[str, str | None]) -> None:
    """Set these variables of the process (None: unset)."""
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _same(a: str, b: str) -> bool:
    """Tell whether two paths name the same folder."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def ask_control(git_dir: str, control: str) -> JSONObject | None:
    """Ask the server of `git_dir` for its status or to stop (`control`); None when none
    answers."""
    from git_aide.warm.client import answer_of, encode, exchange

    path = address.socket_path(git_dir)
    if not os.path.exists(path):
        return None
    doc = answer_of(exchange(path, encode({"version": VERSION, "control": control}) + b"\n",
                             10.0))
    return doc or None
