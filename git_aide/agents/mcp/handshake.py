"""The start of an MCP connection, answered without the SDK, and the hand-over to it.

An agent waits for the answer to `initialize` (Gemini CLI gives up after 5 s), and
importing the SDK (pydantic, anyio, starlette, its generated types) takes most of a
second on a quiet machine and several under load. So this module imports neither, and
answers the requests of a connection's start from plain data: `initialize`, `ping` and
`tools/list`, and `tools/call` once a thread has made the server's state and imported
git-aide's read path (server.py's ready_state): a first call waits for that, not for
the SDK, which the thread imports afterwards. The first message of any other kind
(anything this loop does not recognise exactly) hands the connection to the SDK's
low-level server, replaying the client's `initialize` and its notifications first, so
that the SDK's session is in the state the client believes; the SDK's second answer to
`initialize` is dropped (the client has ours, the same). From then on the protocol is
the SDK's alone.

Which tools are listed is git config aide.mcp.tools: git is asked at once, before the
client's first line is read, and its answer read once `initialize` is answered.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from git_aide import __version__
from git_aide.agents.mcp.schema import INSTRUCTIONS, TOOLS, offered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

    from mcp.server.lowlevel import Server

    from git_aide.core.jsonvalue import JSON, JSONObject
    from git_aide.gitio.spawn import Prefetch, Spawned
    from git_aide.warm.listener import Listener, Runner
    from git_aide.warm.state import ServerState

#: The protocol versions a client may ask for in `initialize` and get back as asked: the
#: handshake versions of the SDK git-aide requires (tests/agents/test_mcp_start.py checks them
#: against it). A client asking for another version is answered by the SDK itself.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

#: How long the tool calls answered here (and the hooks and commands the socket answers)
#: must leave the process quiet before the SDK is imported, in seconds. The SDK serves
#: only a hand-over, rare (a hand-over before then imports it at once); its import, a
#: second of CPU, slowed the calls it ran beside: an agent's first calls come in the
#: first seconds, a pause of ten is one between its turns.
QUIET_SECONDS = 10.0

#: Every tool this server answers, listed or not (a call to another is the SDK's to refuse).
_TOOL_NAMES = frozenset(t["name"] for t in TOOLS)

#: What the SDK's low-level server announces for a server with tools only.
CAPABILITIES: JSONObject = {"tools": {"listChanged": False}}


def client_of(params: JSON) -> str | None:
    """Return the client's name and version as `initialize`'s clientInfo gives them
    ("claude-code 2.1.197"), cut to 200 characters; None when it gives no name."""
    info = params.get("clientInfo") if isinstance(params, dict) else None
    if not isinstance(info, dict):
        return None
    name, version = info.get("name"), info.get("version")
    if not isinstance(name, str) or not name.strip():
        return None
    said = " ".join(name.split())
    if isinstance(version, str) and version.strip():
        said += " " + " ".join(version.split())
    return said[:200]


class _Warm:
    """Make the server's state and git-aide's read path in a thread, started once
    `initialize` is answered, then the SDK's server (for a hand-over)."""

    def __init__(self, tools: Callable[[], list[JSONObject]],
                 client: Callable[[], str | None] | None = None,
                 runner: Runner | None = None, asked: Prefetch | None = None) -> None:
        #: What gives the tools to list (Start.tools).
        self._tools = tools
        #: What runs the hooks and commands handed over the socket (cli/served.py);
        #: None: the server does not listen.
        self._runner = runner
        #: The socket's listener, once it serves (warm/listener.py).
        self.listener: Listener | None = None
        #: git's questions started with the server, for the state's first read.
        self._asked = asked
        #: What gives the client's name and version (Start.client), read when it runs.
        self._client = client or (lambda: None)
        #: The thread, once started.
        self._thread: threading.Thread | None = None
        #: Set once the state is made (or could not be).
        self._ready = threading.Event()
        #: Set when a hand-over needs the SDK now.
        self._wanted = threading.Event()
        #: Set once the SDK's server is built (or could not be).
        self._built = threading.Event()
        #: When the last tool call answered here ended (time.monotonic()): the SDK is
        #: imported once the calls leave QUIET_SECONDS of quiet.
        self.last_call = time.monotonic()
        #: The SDK's server it built.
        self._server: Server | None = None
        #: The server's state (warm/state.py), settled at the connection's end.
        self.state: ServerState | None = None
        #: Why the state, or the SDK's server, could not be made: said when needed.
        self._state_error: BaseException | None = None
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            from git_aide.agents.mcp.server import ready_state

            self.state = ready_state(self._client(), self._asked)
        except BaseException as e:  # noqa: BLE001 -- said at the first call, not lost
            self._state_error = self._error = e
            self._built.set()
            return
        finally:
            self.last_call = time.monotonic()
            self._ready.set()
        if self._runner is not None:
            try:
                self.listener = listen(self.state, self._runner)
            except Exception as e:  # noqa: BLE001 -- the tools serve on without the socket
                sys.stderr.write(f"git-aide: warning: hooks and commands are not served: {e}\n")
        # The SDK serves only a hand-over: imported in a quiet spell, since its import
        # (most of a second) would slow the calls it ran beside; at once when wanted.
        while not self._wanted.wait(0.05):
            # The hooks and commands the socket answers count as calls too.
            served = self.listener.last if self.listener is not None else 0.0
            if time.monotonic() - max(self.last_call, served) >= QUIET_SECONDS:
                break
        from git_aide.agents.mcp.server import build, ready_rest

        try:
            self._server = build(self.state, tools=self._tools(), client=self._client())
        except BaseException as e:  # noqa: BLE001 -- said at the hand-over, not lost
            self._error = e
        finally:
            self._built.set()
        ready_rest()  # after the SDK, whose import then ends no later than it did

    def start(self) -> None:
        """Begin in a daemon thread: a client that only lists the tools and leaves is
        not kept waiting for it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="git-aide-warm-up",
                                            daemon=True)
            self._thread.start()

    def ready(self) -> ServerState | None:
        """Return the server's state, waiting for it to be made; None when it could not
        be (the SDK's server then says why)."""
        if self._thread is None:
            self.start()
        self._ready.wait()
        return self.state if self._state_error is None else None

    def server(self) -> Server:
        """Return the SDK's server, waiting for the thread to build it (or building it
        here, not started)."""
        self._wanted.set()
        if self._thread is None:
            self._run()
        else:
            self._built.wait()
        if self._error is not None:
            raise self._error
        assert self._server is not None, "_run() sets the server or the error"
        return self._server


def listen(state: ServerState, runner: Runner) -> Listener | None:
    """Serve the hooks and reading commands of the state's working tree on its socket
    (warm/listener.py), unless git config aide.mcp.serve says not to or another process
    serves it; the listener, or None."""
    from git_aide.warm.listener import Listener

    with state.lock:
        try:
            wanted = state.repo().settings.mcp_serve
        except Exception:  # noqa: BLE001 -- no repository: the calls say so
            wanted = False
        finally:
            state.end_quietly()
    listener = Listener(state, runner, "mcp")
    return listener if wanted and listener.start() else None


def _wire() -> tuple[BinaryIO, BinaryIO]:
    """Move the client's pipes onto descriptors of their own and return them; fd 0 then reads
    nothing and fd 1 writes to stderr, so that no child process or stray print can corrupt the
    protocol (as the SDK's own stdio transport does)."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:
        return sys.stdin.buffer, sys.stdout.buffer
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


def _same_id(a: JSON, b: JSON) -> bool:
    """Tell whether two JSON-RPC ids are the same id (1 and 1.0 or true are not)."""
    return type(a) is type(b) and a == b


class Start:
    """Answer the requests of a connection's start from plain data until a message
    needs the SDK; what the SDK must be given again is kept in `replay`."""

    def __init__(self, out: BinaryIO, config: Spawned | None = None,
                 runner: Runner | None = None, asked: Prefetch | None = None) -> None:
        #: The client's end of the wire.
        self.out = out
        #: git config's answer (the aide.* settings), asked at the start; None: not
        #: asked, or git could not be started (the default tools then).
        self.config = config
        #: The tools `tools/list` gives, once worked out (tools()).
        self._listed: list[JSONObject] | None = None
        #: The client's lines the SDK is given before the rest: its initialize and the
        #: notifications that followed.
        self.replay: list[bytes] = []
        #: The id of the client's initialize, once answered here.
        self.init_id: JSON = None
        #: Whether this loop answered the client's initialize.
        self.initialized = False
        #: The client's name and version, from its initialize (client_of): the
        #: server's writes are marked with it.
        self.client: str | None = None
        #: The SDK and the read path, loading once initialize is answered.
        self.warm = _Warm(self.tools, lambda: self.client, runner, asked)

    def tools(self) -> list[JSONObject]:
        """Return the tools to list, as git config aide.mcp.tools says (read once: the list a
        client was given does not change under it)."""
        if self._listed is None:
            setting = None
            if self.config is not None:
                from git_aide.core.settings import Settings

                _status, out, _err = self.config.wait()
                values = {}
                for item in out.decode(errors="replace").split("\0"):
                    key, _, value = item.partition("\n")
                    values[key.lower()] = value
                setting = Settings(values).mcp_tools
            self._listed, unknown = offered(setting)
            if unknown:
                sys.stderr.write("git-aide: warning: aide.mcp.tools names no tool "
                                 f"{', '.join(unknown)}\n")
        return self._listed

    def send(self, msg: JSONObject) -> None:
        """Send one JSON-RPC message to the client, on its own line."""
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.out.write(line.encode("utf-8"))
        self.out.flush()

    def initialize(self, params: JSON) -> JSONObject | None:
        """Return the result of `initialize`, as the SDK gives it; None when the SDK must
        answer (a version or a shape this loop does not know)."""
        if not isinstance(params, dict) or params.get("protocolVersion") not in \
                HANDSHAKE_VERSIONS or not isinstance(params.get("capabilities"), dict):
            return None
        info = params.get("clientInfo")
        if not (isinstance(info, dict) and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)):
            return None
        return {"protocolVersion": params["protocolVersion"], "capabilities": CAPABILITIES,
                "serverInfo": {"name": "git-aide", "version": __version__},
                "instructions": INSTRUCTIONS}

    def answer(self, line: bytes) -> bool:
        """Answer `line` here; False when the SDK must take it (and all that follows)."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" \
                or not isinstance(msg.get("method"), str):
            return False
        method = msg["method"]
        if "id" not in msg:  # a notification: the SDK's, once it runs
            if not self.initialized:
                return False
            self.replay.append(line)
            return True
        mid = msg["id"]
        if isinstance(mid, bool) or not isinstance(mid, (str, int)):
            return False
        params = msg.get("params")
        if method == "ping" and (params is None or isinstance(params, dict)):
            self.send({"jsonrpc": "2.0", "id": mid, "result": {}})
            return True
        if method == "initialize" and not self.initialized:
            # Kept whoever answers it (the SDK, for a version this loop does not know).
            self.client = client_of(params)
            result = self.initialize(params)
            if result is None:
                return False
            self.send({"jsonrpc": "2.0", "id": mid, "result": result})
            self.replay.append(line)
            self.init_id, self.initialized = mid, True
            self.tools()
            self.warm.start()
            return True
        if method == "tools/list" and self.initialized and (
                params is None or (isinstance(params, dict) and "cursor" not in params)):
            self.send({"jsonrpc": "2.0", "id": mid, "result": {"tools": self.tools()}})
            return True
        if method == "tools/call" and self.initialized:
            return self.call(mid, params)
        return False

    def call(self, mid: str | int, params: JSON) -> bool:
        """Answer a tool call here, as the SDK would, once the state is made (the SDK
        is not waited for); False when the SDK must (a tool or a shape this loop does
        not know, or no state)."""
        if not (isinstance(params, dict) and set(params) <= {"name", "arguments", "_meta"}
                and params.get("name") in _TOOL_NAMES
                and isinstance(params.get("arguments", {}), dict)):
            return False
        state = self.warm.ready()
        if state is None:
            return False
        from git_aide.agents.mcp.server import call, call_result

        self.warm.last_call = float("inf")  # no quiet while a call is under way
        try:
            text, doc, failed = call(state, params["name"], params.get("arguments"))
        finally:
            self.warm.last_call = time.monotonic()
        self.send({"jsonrpc": "2.0", "id": mid, "result": call_result(text, doc, failed)})
        return True

    def refuse(self, line: bytes, message: str) -> None:
        """Answer the request in `line` with an internal error, so that the client is not
        left waiting on a server that cannot go on."""
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if isinstance(msg, dict) and "id" in msg and "method" in msg:
            self.send({"jsonrpc": "2.0", "id": msg["id"],
                       "error": {"code": -32603, "message": message}})


def _handover(reader: BinaryIO, start: Start, line: bytes) -> int:
    """Serve the rest of the connection with the SDK, from `line` on."""
    from typing import IO, cast

    try:
        server = start.warm.server()
        import anyio
        from mcp.server.stdio import stdio_server
    except Exception as e:  # noqa: BLE001 -- one line for the agent's log
        message = f"the MCP SDK cannot be loaded: {type(e).__name__}: {e}"
        start.refuse(line, message)
        sys.stderr.write(f"git-aide: error: {message}\n")
        return 1

    import io

    class Replayed:
        """Give the SDK the client's lines: those answered here first, then the pipe."""

        def __init__(self) -> None:
            self.lines = [x.decode("utf-8", "replace") for x in (*start.replay, line)]
            self.pipe = io.TextIOWrapper(reader, encoding="utf-8", errors="replace")

        def readline(self) -> str:
            return self.lines.pop(0) if self.lines else self.pipe.readline()

    class Answers:
        """Pass the SDK's messages on to the client, less its answer to the replayed initialize."""

        def __init__(self) -> None:
            self.dropping = start.initialized
            self.pending = ""

        def write(self, text: str) -> int:
            self.pending += text
            while "\n" in self.pending:
                one, self.pending = self.pending.split("\n", 1)
                if not self.dropping or not self._dropped(one):
                    start.out.write((one + "\n").encode("utf-8"))
            return len(text)

        def _dropped(self, one: str) -> bool:
            try:
                msg = json.loads(one)
            except ValueError:
                return False
            if not (isinstance(msg, dict) and "method" not in msg
                    and _same_id(msg.get("id"), start.init_id)):
                return False
            self.dropping = False
            if "error" in msg:  # the client was told yes: say it where it can be read
                sys.stderr.write("git-aide: warning: the MCP SDK refused the replayed "
                                 f"initialize: {msg['error']}\n")
            return True

        def flush(self) -> None:
            start.out.flush()

    async def serve() -> None:
        # anyio needs only readline, write and flush of the files it wraps.
        async with stdio_server(stdin=anyio.wrap_file(cast(IO[str], Replayed())),
                                stdout=anyio.wrap_file(cast(IO[str], Answers()))) as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(serve)
    from git_aide.agents.mcp.server import settle

    if start.warm.state is not None:  # made with the server, which served this far
        settle(start.warm.state)
    return 0


def _settle(start: Start) -> None:
    """Settle the server's state at the connection's end, when calls were answered."""
    if start.warm.state is not None and start.warm.state.calls:
        from git_aide.agents.mcp.server import settle

        settle(start.warm.state)


def main(runner: Runner | None = None) -> int:
    """Serve on stdio until the client goes away; `runner`: what runs the hooks and
    commands handed over the socket (cli/served.py; None: no socket)."""
    from git_aide.gitio.spawn import CONFIG, REV_PARSE, STATUS, Prefetch, spawn

    config = spawn(*CONFIG)  # answered while the client starts and sends initialize
    # The first read's questions too: git answers them while Python imports the read path.
    asked = Prefetch(rev_parse=spawn(*REV_PARSE), status=spawn(*STATUS))
    reader, writer = _wire()
    start = Start(writer, config, runner, asked)
    try:
        while True:
            line = reader.readline()
            if not line:
                _settle(start)
                return 0  # the client left: no message needed the SDK
            if not start.answer(line):
                return _handover(reader, start, line)
    except BrokenPipeError:
        return 0  # the client left while it was being answered: nobody to tell
    except KeyboardInterrupt:
        return 130
    finally:
        if start.warm.listener is not None:
            start.warm.listener.close()
