"""Whether the MCP server each agent's files name really starts: the servers found in
the agents' settings, each started as its agent starts it and spoken to (the first two
MCP requests, no SDK needed) within the start-up time that agent allows; and which of
those files git ignores. `init --agent` and `doctor` call done only what answers here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from git_aide.agents.setup.codextoml import toml_load
from git_aide.agents.setup.config import FILES
from git_aide.agents.setup.entries import SERVER, is_our_server
from git_aide.agents.setup.settingsfile import MAX_JSON, MAX_TOML, json_text, read_settings
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

#: Each agent's name for people.
NAMES = {"claude": "Claude Code", "codex": "Codex", "copilot": "Copilot CLI",
         "cursor": "Cursor", "gemini": "Gemini CLI", "vscode": "VS Code"}
#: Where each agent's MCP servers are: (file, key of the servers table).
_SERVER_FILES = {"claude": (".mcp.json", "mcpServers"), "codex": (".codex/config.toml", ""),
                 "copilot": (".github/mcp.json", "mcpServers"),
                 "cursor": (".cursor/mcp.json", "mcpServers"),
                 "gemini": (".gemini/settings.json", "mcpServers"),
                 "vscode": (".vscode/mcp.json", "servers")}
#: The wait assumed for an agent that documents none, in seconds.
DEFAULT_WAIT = 30.0
#: The longest doctor or init waits for an answer, whatever an agent's settings allow.
MAX_WAIT = 120.0


@dataclass(frozen=True)
class Server:
    """Hold git-aide's MCP server as one agent's settings name it."""

    #: The agent.
    agent: str
    #: The settings file, repo-relative.
    rel: str
    #: The program, as written (found on PATH as the agent finds it).
    command: str
    #: Its arguments.
    args: tuple[str, ...]
    #: How long the agent waits for `initialize`, in seconds.
    wait: float
    #: Where that wait comes from, for a message.
    why: str


@dataclass(frozen=True)
class Answer:
    """Record what a started server did."""

    #: Seconds until it answered `initialize`; None when it did not.
    seconds: float | None
    #: How many tools it listed (None: it did not list them).
    tools: int | None = None
    #: Why it did not answer, in one line ("" when it did).
    error: str = ""
    #: What to do about it.
    fix: str = ""


def _positive(value: JSON) -> float | None:
    """Return a positive number from a settings value (or the environment), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number > 0 else None


def _wait(agent: str, rel: str, entry: JSONObject) -> tuple[float, str]:
    """Return how long `agent` waits for the server's `initialize` answer, and why."""
    name = NAMES[agent]
    if agent == "claude":
        ms = _positive(os.environ.get("MCP_TIMEOUT"))
        if ms:
            return ms / 1000, f"MCP_TIMEOUT, which {name} reads"
        return 30.0, f"{name}'s default"
    if agent == "codex":
        seconds = _positive(entry.get("startup_timeout_sec"))
        if seconds:
            return seconds, f"startup_timeout_sec in {rel}"
        return 10.0, f"{name}'s default"
    if agent == "gemini":
        ms = _positive(entry.get("timeout"))
        if ms:
            return ms / 1000, f"timeout in {rel}"
        return 5.0, "the default of `gemini mcp list`"
    return DEFAULT_WAIT, f"assumed: {name} documents no start-up timeout"


def servers(top: str) -> list[Server]:
    """Return every MCP server entry of ours in the agents' project settings (those that can be
    read), as each agent would start it."""
    out = []
    for agent, (rel, key) in _SERVER_FILES.items():
        try:
            if agent == "codex":
                raw, _, _ = read_settings(top, rel, MAX_TOML)
                if raw is None:
                    continue
                table = toml_load(raw.decode("utf-8", "surrogateescape"), rel).unwrap()
                box = table.get("mcp_servers")
            else:
                raw, _, _ = read_settings(top, rel, MAX_JSON)
                text = json_text(raw, rel)
                box = json.loads(text).get(key) if text.strip() else None
        except AideError:
            continue  # doctor says what is wrong with the file itself
        if not isinstance(box, dict):
            continue
        for name, entry in box.items():
            if not (isinstance(entry, dict) and (name == SERVER or is_our_server(entry))):
                continue
            command = entry.get("command")
            args = entry.get("args") or []
            if not isinstance(command, str) or not isinstance(args, list) or not all(
                    isinstance(a, str) for a in args):
                continue
            wait, why = _wait(agent, rel, entry)
            out.append(Server(agent, rel, command, tuple(args), wait, why))
    return out


def _here() -> str:
    """Return the folder of the git-aide running now, for a fix that puts it on PATH."""
    import shutil
    import sys

    found = shutil.which(sys.argv[0]) if sys.argv and sys.argv[0] else None
    return os.path.dirname(os.path.abspath(found or sys.executable))


def probe(top: str, command: str, args: tuple[str, ...], wait: float) -> Answer:
    """Start the server as an agent does (in the working tree, over stdio), send it
    `initialize` and `tools/list`, and stop it: what a client gets, without the SDK."""
    import selectors
    import shutil
    import signal
    import subprocess
    import tempfile
    import time

    program = shutil.which(command)
    if program is None:
        return Answer(None, error=f"`{command}` is not on PATH, so the agent cannot start it",
                      fix=f"put git-aide on the PATH the agent starts with (this one is in "
                          f"{_here()}), or reinstall it where PATH leads")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "git-aide-doctor", "version": "1"}}}
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        try:
            proc = subprocess.Popen([program, *args], cwd=top, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err,
                                    start_new_session=True)
        except OSError as e:
            return Answer(None, error=f"`{command}` cannot be started ({e.strerror})",
                          fix="reinstall git-aide")
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buffer = b""
        ended = False  # it closed its output: it is exiting by itself

        def send(message: JSONObject) -> None:
            """Send one message to the server, on its own line."""
            try:
                stdin.write(json.dumps(message).encode() + b"\n")
                stdin.flush()
            except OSError:
                pass  # it exited: reading says so

        def answer(ident: int, deadline: float) -> JSONObject | None:
            """Return the response to request `ident`; None at the deadline or at its end."""
            nonlocal buffer, ended
            while True:
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    try:
                        message = json.loads(line)
                    except ValueError:
                        continue  # not a message: a stray print
                    if isinstance(message, dict) and message.get("id") == ident:
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    ended = True
                    return None
                buffer += chunk

        first = None
        try:
            send(hello)
            first = answer(1, start + wait)
            took = time.monotonic() - start
            tools = None
            if first is not None and "result" in first:
                send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
                listed = answer(2, time.monotonic() + max(10.0, wait))
                result = listed.get("result") if listed else None
                if isinstance(result, dict) and isinstance(result.get("tools"), list):
                    tools = len(result["tools"])
        finally:
            sel.close()
            try:
                proc.stdin.close()
            except OSError:
                pass
            if first is not None or ended:  # let it end by itself, as a client leaves it
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                proc.wait()
            proc.stdout.close()
        if first is not None and "result" in first:
            return Answer(took, tools)
        if first is not None:
            error = first.get("error")
            text = error.get("message") if isinstance(error, dict) else None
            return Answer(None, error=f"it refused initialize ({text or error})",
                          fix="upgrade the agent or git-aide so their MCP versions meet")
        if proc.returncode is not None and proc.returncode != -signal.SIGKILL:
            err.seek(0)
            said = [line.strip() for line in err.read()[-8192:].decode(
                "utf-8", "replace").splitlines() if line.strip()]
            reason = said[-1].removeprefix("git-aide: error: ") if said else \
                f"it exited with status {proc.returncode}"
            return Answer(None, error=f"it stopped before answering: {reason[:300]}",
                          fix="reinstall git-aide the way you installed it, with its "
                              "dependencies; `git-aide mcp` here shows the whole error")
        return Answer(None, error=f"it did not answer initialize within {wait:g} s",
                      fix="`git-aide mcp` here shows what it does; a slower machine needs "
                          "a longer start-up timeout in the agent's settings")


def ignored(top: str, rels: list[str]) -> dict[str, str]:
    """Return the files of `rels` (repo-relative, existing, untracked) that git ignores, with
    the rule that does it (`source:line:pattern`): the team would never get them."""
    from git_aide.gitio.spawn import spawn

    present = [r for r in rels if os.path.lexists(os.path.join(top, r))]
    if not present:
        return {}
    proc = spawn("-C", top, "check-ignore", "-v", "-z", "--stdin",
                 input="\0".join(present).encode() + b"\0")
    if proc is None:
        return {}
    fields = proc.wait()[1].decode("utf-8", "replace").split("\0")
    out = {}
    for i in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[i:i + 4]
        if source:  # a negated pattern that matched leaves the file in
            if not pattern.startswith("!"):
                out[path] = f"{source}:{line}: {pattern}"
    return out


def check(top: str, agents: list[str]) -> tuple[list[str], str | None]:
    """Check the set-up after `init --agent`: return (notes on files git ignores, why the server the
    agents' files start does not answer in time, with the fix, or None when it does)."""
    mine = [s for s in servers(top) if s.agent in agents]
    notes = [f"note: {rel} is ignored by git ({rule}), so the team does not get it: "
             f"git add -f {rel}"
             for rel, rule in ignored(top, [r for a in agents for r in FILES[a]]).items()]
    for (command, args), group in by_command(mine).items():
        answer = probe(top, command, args, min(MAX_WAIT, max(s.wait for s in group)))
        late = [s for s in group if answer.seconds is None or answer.seconds > s.wait]
        if not late:
            continue
        files = ", ".join(dict.fromkeys(s.rel for s in late))
        if answer.seconds is None:
            return notes, (f"the git-aide MCP server that {files} "
                           f"start{'s' if len(late) == 1 else ''} cannot start: "
                           f"{answer.error}; fix: {answer.fix}")
        s = late[0]
        return notes, (f"the git-aide MCP server answered in {seconds(answer.seconds)}, later "
                       f"than {NAMES[s.agent]} waits ({s.wait:g} s, {s.why}); fix: "
                       f"{slow_fix(s)}")
    return notes, None


def seconds(x: float) -> str:
    """Write a duration for a message: hundredths under a second."""
    return f"{x:.2f} s" if x < 1 else f"{x:.1f} s"


def slow_fix(s: Server) -> str:
    """Say how to give a slow server more time in one agent."""
    if s.agent == "claude":
        return "start claude with MCP_TIMEOUT=60000 in its environment"
    if s.agent == "codex":
        return f"raise startup_timeout_sec under [mcp_servers.{SERVER}] in {s.rel}"
    if s.agent == "gemini":
        return f"raise \"timeout\" (ms) in the {SERVER} entry of {s.rel}"
    return "run `git-aide mcp` here to see what slows it"


def by_command(found: list[Server]) -> dict[tuple[str, tuple[str, ...]], list[Server]]:
    """Group the entries by what they start: one probe each."""
    out: dict[tuple[str, tuple[str, ...]], list[Server]] = {}
    for s in found:
        out.setdefault((s.command, s.args), []).append(s)
    return out
