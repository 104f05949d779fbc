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
from git_aide.warm.client import ACK, VERSION
from git_aide.warm.output import Recorded, Routed

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable

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
#: How long a client may take to send its request, and to read the answer.
PEER_SECONDS = 10.0
#: How long `close` waits for a request or call under way.
CLOSE_SECONDS = 10.0


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
        #: What is called once a `stop` request was answered (None: this server stops
        #: only with its client, and declines it).
        self._on_stop = on_stop
        #: The working tree's top and git folder it serves, once started.
        self.top = ""
        self.git_dir = ""
        #: When it started serving, and how many requests it answered.
        self.since = 0.0
        self.served = 0
        #: When the last request ended (time.monotonic()).
        self.last = 0.0
        #: Why start() refused, when it did.
        self.refused = ""
        self._lock_fd: int | None = None
        self._sock: socket.socket | None = None
        self._path = ""
        self._routed: tuple[Routed, Routed] | None = None
        self._env: dict[str, str] = {}
        self._home = ""
        #: Set once closing began (requests are declined), and once closed.
        self._closing = threading.Event()
        self._closed = threading.Event()
        #: Held while it closes (a `stop` request and the process's end may meet).
        self._close_lock = threading.Lock()

    def start(self) -> bool:
        """Take the repository's serving lock, listen on its socket and start answering;
        False (nothing changed, and `refused` says why) when another process serves it or
        it cannot be served."""
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
        fd = self._take_lock(git_dir)
        if fd is None:
            return False
        try:
            sock = _bind(address.socket_path(git_dir))
        except OSError as e:
            os.close(fd)
            self.refused = f"cannot listen on {address.SOCKET} ({e.strerror or e})"
            return False
        except BaseException:
            os.close(fd)
            raise
        self._lock_fd, self._sock, self._path = fd, sock, address.socket_path(git_dir)
        self.top, self.git_dir, self.since = top, git_dir, time.time()
        self._env = address.compared(address.environment())
        self._home = os.getcwd()
        out, err = Routed(sys.stdout), Routed(sys.stderr)
        sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
        self._routed = (out, err)
        threading.Thread(target=self._loop, name="aide-listener", daemon=True).start()
        return True

    def _take_lock(self, git_dir: str) -> int | None:
        """Take the serving lock: its descriptor, or None (with `refused`) when another
        process holds it or it is not this user's own plain file (never followed
        through a link, never written)."""
        import fcntl
        import stat

        path = os.path.join(git_dir, address.LOCK)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as e:
            # a git folder this user cannot write (or a link there): nobody serves it
            self.refused = f"cannot open {address.LOCK} in the git folder ({e.strerror})"
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                self.refused = f"{address.LOCK} in the git folder is not this user's own file"
                os.close(fd)
                return None
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            self.refused = "another process serves the working tree"
            return None
        return fd

    def close(self) -> None:
        """Stop answering: new requests declined, the socket removed, the one under way
        waited for (at most CLOSE_SECONDS), the lock let go, the streams given back."""
        self._closing.set()
        with self._close_lock:
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
            # A request under way holds the state's lock: its answer is finished first.
            idle = self.state.lock.acquire(timeout=CLOSE_SECONDS)
            try:
                if self._lock_fd is not None:
                    os.close(self._lock_fd)  # lets go of the serving lock
                    self._lock_fd = None
                if self._routed is not None and idle:
                    out, err = self._routed
                    if sys.stdout is out:
                        sys.stdout = out.stream
                    if sys.stderr is err:
                        sys.stderr = err.stream
                    self._routed = None
            finally:
                if idle:
                    self.state.lock.release()
            self._closed.set()

    def closed(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for the listener to be closed: whether it is."""
        return self._closed.wait(timeout)

    def _loop(self) -> None:
        """Accept connections, each answered in a thread of its own (a client that is
        slow to send or to read holds up nobody else)."""
        while not self._closing.is_set():
            sock = self._sock
            if sock is None:
                return
            try:
                conn, _ = sock.accept()
            except OSError:
                if self._closing.is_set():
                    return
                time.sleep(0.05)  # out of descriptors, say: a moment, then on
                continue
            threading.Thread(target=self._serve, args=(conn,), name="aide-request",
                             daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        """Answer one connection; a `stop` request's after its answer is sent."""
        stop = False
        try:
            with conn:
                stop = self._one(conn)
        except Exception as e:  # noqa: BLE001 -- one bad request never ends serving
            try:
                sys.stderr.write(f"git-aide: server: {type(e).__name__}: {e}\n")
            except Exception:  # noqa: BLE001,S110 -- nowhere left to say it
                pass
        if stop and self._on_stop is not None:
            self._on_stop()

    def _one(self, conn: socket.socket) -> bool:
        """Read one request on `conn` and send its answer; whether it was a `stop`."""
        import socket

        conn.settimeout(PEER_SECONDS)
        if hasattr(socket, "SO_PEERCRED"):
            import struct

            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                    struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", creds)
            if uid != os.getuid():
                return False  # another user: no answer at all
        chunks, size = [], 0
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > LARGEST:
                return False
            chunks.append(chunk)
        line, _, body = b"".join(chunks).partition(b"\n")
        try:
            head = json.loads(line)
        except ValueError:
            return False
        if not isinstance(head, dict):
            return False
        conn.sendall(ACK)
        answer = self._answer(head, body)
        # marshal: the thin client reads it without importing json (warm/client.py).
        conn.sendall(marshal.dumps(answer))
        return bool(answer.get("stopped"))

    def _answer(self, head: JSONObject, body: bytes) -> JSONObject:
        """Return the answer to one request (a command's output and status, the server's
        status, or a decline)."""
        from git_aide import __version__

        if head.get("version") != VERSION:
            return {"decline": "another version"}
        control = head.get("control")
        if control == "status":
            return {"pid": os.getpid(), "kind": self.kind, "top": self.top,
                    "since": self.since, "served": self.served,
                    "client": self.state.client, "aide": __version__}
        if control == "stop":
            if self._on_stop is None:
                return {"decline": "an MCP server stops with its client"}
            self.close()  # the lock let go before the answer: `daemon stop` waits no more
            return {"stopped": True}
        if self._closing.is_set():
            return {"decline": "closing"}
        if head.get("aide") != __version__:
            return {"decline": "another version of git-aide"}
        argv, cwd, env = head.get("argv"), head.get("cwd"), head.get("env")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
                and isinstance(cwd, str) and isinstance(env, dict)):
            return {"decline": "bad request"}
        if not all(isinstance(v, str) for v in env.values()) or \
                address.compared(env) != self._env:
            return {"decline": "another environment"}
        if not address.within(cwd, self.git_dir):
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
        variables (address.CARRIED), what it writes recorded."""
        if not self.state.lock.acquire(timeout=BUSY_SECONDS):
            return {"decline": "busy"}
        try:
            if self._closing.is_set() or self._routed is None:
                return {"decline": "closing"}
            status, recorded = self._locked_run(argv, cwd, prefix, event, carried)
        finally:
            self.last = time.monotonic()
            self.state.lock.release()
        if status is None:
            return {"decline": "not served"}
        self.served += 1
        return {"status": status, "writes": recorded.finish()}  # type: ignore[dict-item]

    def _locked_run(self, argv: list[str], cwd: str, prefix: str, event: bytes | None,
                    carried: dict[str, str | None]) -> tuple[int | None, Recorded]:
        """Run one command, the state's lock held: (its status, what it wrote)."""
        from git_aide.warm.contexts import WarmContexts

        assert self._routed is not None, "started"
        routed_out, routed_err = self._routed
        recorded = Recorded()
        kept = {k: os.environ.get(k) for k in carried}
        status: int | None
        try:
            _set_environment(carried)
            os.chdir(cwd)
            routed_out.capture(recorded.stdout)
            routed_err.capture(recorded.stderr)
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
            try:
                self.state.end_call(wrote=False)
            except Exception:  # noqa: BLE001,S110 -- the answer stands; the lock is let go
                pass
        return status, recorded


def _bind(path: str) -> socket.socket:
    """Return a socket listening at `path`, readable by this user only: bound in a new
    folder of its own (mode 0700) and renamed into place, so that no other user can
    reach it first and a link at `path` is replaced, never followed."""
    import socket
    import tempfile

    folder = tempfile.mkdtemp(prefix=".aide-server-", dir=os.path.dirname(path))
    try:
        made = os.path.join(folder, address.SOCKET)
        where, dir_fd = address.reachable(made)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(where)
            os.chmod(made, 0o600)
            os.rename(made, path)  # replaces a socket a killed server left
            sock.listen(16)
        except BaseException:
            sock.close()
            raise
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
    finally:
        try:
            os.unlink(os.path.join(folder, address.SOCKET))
        except OSError:
            pass
        os.rmdir(folder)
    return sock


def _set_environment(values: dict[str, str | None]) -> None:
    """Set these variables of the process (None: unset)."""
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


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
