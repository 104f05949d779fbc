"""The thin client: hand a hook or a reading command to the repository's warm server and
print its answer (warm/listener.py serves it), importing nothing but the socket.

A hook or `git aide recall FILE` started by an agent costs an interpreter's start and
its imports; the agent's own MCP server (or `git aide daemon`) already holds the
repository, its views and its index. When one serves the repository around the
current directory, the command's arguments, folder, environment and (for a hook) its
event go to it over the socket in the git folder, and what it printed comes back;
when none serves, or it declines (another environment, a form it does not run, busy
with a long call), the command runs here as it always did. The answer is the same
either way: the server runs the same code (cli/served.py).
"""

from __future__ import annotations

import os
import sys

from git_aide.warm import address

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject

#: The protocol's version: a server answers only requests of its own.
VERSION = 1
#: Seconds a server may take over one command (a long search) before the client gives
#: up on it and runs the command itself.
ANSWER_SECONDS = 60.0
#: Seconds a server may take to say it got the request (its first byte, ACK): one that
#: does not is stuck (stopped, or its process starved) and the command runs here.
ACK_SECONDS = 2.0
#: That first byte.
ACK = b"A"


def ask(argv: list[str], event: bytes | None = None) -> int | None:
    """Run `argv` through the warm server of the repository around the current directory:
    write what it printed and return its exit status; None when no server answered it
    (the caller runs the command itself; nothing was written). `event`: a hook's event,
    read from stdin."""
    try:
        answer = _asked(argv, event)
    except Exception:  # noqa: BLE001 -- whatever it was, the command runs here instead
        return None
    if answer is None:
        return None
    status, writes = answer
    # Once answered, never run again (its output twice, a hook's record kept twice),
    # whatever writing it meets: the status stands.
    for fd, text in writes:
        stream = sys.stdout if fd == 1 else sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    return status


def _asked(argv: list[str], event: bytes | None) -> tuple[int, list[tuple[int, str]]] | None:
    """Return the server's answer to `argv`: (its status, what it wrote, in order, on 1
    or 2); None when there is no server or it did not answer."""
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    found = address.find(cwd)
    if found is None or "GIT_DIR" in os.environ:
        return None
    path = address.socket_path(found[1])
    try:
        if os.stat(path).st_uid != os.getuid():
            return None  # a socket of another user's: never asked
    except OSError:
        return None
    from git_aide import __version__

    head = encode({"version": VERSION, "aide": __version__, "argv": argv, "cwd": cwd,
                   "env": address.environment(), "event": event is not None})
    doc = answer_of(exchange(path, head + b"\n" + (event or b""), ANSWER_SECONDS))
    status, writes = doc.get("status"), doc.get("writes")
    if not isinstance(status, int) or not isinstance(writes, list):
        return None  # a decline, or no answer
    told: list[tuple[int, str]] = []
    for write in writes:
        if not (isinstance(write, list) and len(write) == 2 and write[0] in (1, 2)
                and isinstance(write[1], str)):
            return None
        told.append((1 if write[0] == 1 else 2, write[1]))
    return status, told


#: What a character stands for inside a JSON string, where it is not itself.
_ESCAPES = {**{i: f"\\u{i:04x}" for i in range(32)}, ord('"'): '\\"', ord("\\"): "\\\\"}


def encode(value: object) -> bytes:
    """Return `value` (str, bool, int, and lists and str-keyed dicts of them) as JSON, for
    the server's `json` to read: written here, as `json` imports `re` (a fifth of the
    client's imports)."""
    return _encoded(value).encode("utf-8", "surrogatepass")


def _encoded(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.translate(_ESCAPES) + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_encoded(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_encoded(k) + ":" + _encoded(v) for k, v in value.items()) + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


def answer_of(data: bytes | None) -> JSONObject:
    """Return the server's answer (a marshal'd dict: the client trusts its own user's
    server, as it trusts its own files); {} when there is none or it cannot be read."""
    import marshal

    if not data:
        return {}
    try:
        doc = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}  # another Python's format, say: the command runs here
    return doc if isinstance(doc, dict) else {}


def exchange(path: str, request: bytes, timeout: float) -> bytes | None:
    """Send `request` to the socket at `path` and return the answer's bytes; None when
    the server cannot be reached or left without answering."""
    # The C module: `socket` imports enum and selectors, a tenth of the client's start.
    import _socket

    where, fd = address.reachable(path)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    chunks = []
    try:
        sock.settimeout(ACK_SECONDS)
        sock.connect(where)
        sock.sendall(request)
        sock.shutdown(_socket.SHUT_WR)
        if sock.recv(1) != ACK:
            return None
        sock.settimeout(timeout)
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None  # no server (a socket left by a killed one), or it went away
    finally:
        sock.close()
        if fd is not None:
            os.close(fd)
    return b"".join(chunks) or None
