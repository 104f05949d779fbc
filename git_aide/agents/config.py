"""`git aide init --agent A`: the MCP registration and the hooks in each agent's own
project settings (DESIGN section 13), merged with what the user has there.

Each file is read, git-aide's own entries (known by their command: `git-aide mcp`,
`git-aide hook ...`) are taken out and written back fresh, and everything else stays as
it was and where it was. Running it again gives the same bytes. A file that does not
parse is an error and is left alone. Codex's TOML is edited as text: only the lines of
our own `[mcp_servers.git-aide]` table change.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from git_aide.errors import AideError

AGENTS = ("claude", "codex", "cursor", "gemini", "vscode")
#: The name of our MCP server in every agent's settings.
SERVER = "git-aide"
#: The executable agents start (on PATH once the package is installed).
EXE = "git-aide"
_HOOK_PREFIXES = ("git-aide hook ", "git aide hook ")

#: (event name in the agent's file, our hook event, matcher or None): Claude Code and
#: Codex share one shape.
_CLAUDE_HOOKS = (
    ("SessionStart", "session-start", None),
    ("PreToolUse", "pre-tool-use", "Read|Edit|Write|MultiEdit"),
    ("PostToolUse", "post-tool-use",
     f"mcp__{SERVER}__aide_recall|mcp__{SERVER}__aide_search|mcp__{SERVER}__aide_memories"),
    ("UserPromptSubmit", "user-prompt", None),
    ("Stop", "stop", None),
    ("PreCompact", "pre-compact", None),
)
#: Gemini CLI: context after a file tool (BeforeTool has no context channel).
_GEMINI_HOOKS = (
    ("SessionStart", "session-start", None),
    ("AfterTool", "pre-tool-use", "read_file|read_many_files|write_file|replace"),
    ("AfterTool", "post-tool-use", f"mcp__{SERVER}__aide_(recall|search|memories)"),
    ("BeforeAgent", "user-prompt", None),
    ("AfterAgent", "stop", None),
    ("PreCompress", "pre-compact", None),
)
#: Cursor: its prompt hook has no context channel, so it is not installed.
_CURSOR_HOOKS = (
    ("sessionStart", "session-start", None),
    ("preToolUse", "pre-tool-use", "Read|Write|Edit"),
    ("postToolUse", "post-tool-use", None),  # MCP tools' names there: unconfirmed
    ("stop", "stop", None),
    ("preCompact", "pre-compact", None),
)


@dataclass
class Change:
    """What init did (or would do) to one file."""

    #: Repo-relative path.
    path: str
    #: The bytes before (None: no file) and after (None: the file is removed).
    before: bytes | None
    after: bytes | None
    #: A few words on what is ours in it.
    what: str

    @property
    def changed(self) -> bool:
        """Whether the file's bytes change."""
        return self.before != self.after

    def line(self) -> str:
        """One line for the user."""
        if not self.changed:
            return f"{self.path}: already up to date ({self.what})"
        if self.after is None:
            return f"{self.path}: removed (it held only {self.what})"
        verb = "created" if self.before is None else "updated"
        return f"{self.path}: {verb} ({self.what})"

    def diff(self) -> str:
        """A unified diff of the change, for --dry-run."""
        import difflib

        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}"))


def hook_command(event: str, agent: str) -> str:
    """The command an agent runs for one of our hook events."""
    return f"{EXE} hook {event} --agent {agent}"


def is_ours(command: Any) -> bool:
    """Whether a hook command is one of git-aide's."""
    return isinstance(command, str) and command.strip().startswith(_HOOK_PREFIXES)


def is_our_server(entry: Any) -> bool:
    """Whether an MCP server entry starts git-aide's server."""
    if not isinstance(entry, dict):
        return False
    cmd = entry.get("command")
    args = entry.get("args") or []
    return (isinstance(cmd, str) and os.path.basename(cmd) in ("git-aide", "git")
            and isinstance(args, list) and args[-1:] == ["mcp"])


# -- JSON files -----------------------------------------------------------------------------

def _read_json(top: str, rel: str) -> tuple[bytes | None, dict[str, Any], Style]:
    """(bytes, document, layout) of a JSON settings file; {} when it does not exist."""
    path = os.path.join(top, rel)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None, {}, _style(b"")
    except OSError as e:
        raise AideError(f"{rel}: cannot be read ({e.strerror})") from None
    try:
        doc = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as e:
        raise AideError(f"{rel} is not valid JSON ({e}); fix it, then run init again "
                        "(it was left as it was)") from None
    if not isinstance(doc, dict):
        raise AideError(f"{rel} does not hold a JSON object; left as it was")
    return raw, doc, _style(raw)


class Style(NamedTuple):
    """How a JSON file is laid out, so that what we write back looks like the user's."""

    indent: str | None  # None: all on one line
    item_sep: str
    key_sep: str
    newline: bool  # ends with a newline


def _style(raw: bytes) -> Style:
    """The layout of `raw`: its indent, separators and final newline."""
    body = raw.strip()
    if not body:
        return Style("  ", ",", ": ", True)  # ours: two spaces, as most tools write
    key_sep = ": " if re.search(rb'"\s*:\s', body) or not re.search(rb'":', body) else ":"
    if b"\n" not in body:
        item_sep = ", " if re.search(rb"[\]}\"\w],\s", body) else ","
        return Style(None, item_sep, key_sep, raw.endswith(b"\n"))
    m = re.search(rb"\n([ \t]+)\S", raw)
    return Style(m[1].decode() if m else "  ", ",", key_sep, raw.endswith(b"\n"))


def _dump_json(doc: dict[str, Any], style: Style) -> bytes:
    text = json.dumps(doc, indent=style.indent, separators=(style.item_sep, style.key_sep),
                      ensure_ascii=False)
    return (text + ("\n" if style.newline else "")).encode()


def _section(doc: dict[str, Any], key: str, rel: str) -> dict[str, Any]:
    value = doc.setdefault(key, {})
    if not isinstance(value, dict):
        raise AideError(f"{rel}: {key!r} is not an object; left as it was")
    return value


def _set_server(doc: dict[str, Any], key: str, entry: dict[str, Any] | None, rel: str) -> None:
    """Put our server under `key` (in place if there), dropping copies under other names."""
    servers = _section(doc, key, rel)
    for name in [n for n, e in servers.items() if n != SERVER and is_our_server(e)]:
        del servers[name]
    if entry is None:
        servers.pop(SERVER, None)
    else:
        servers[SERVER] = entry
    if not servers:
        del doc[key]


def _set_hooks(doc: dict[str, Any], table: tuple[tuple[str, str, str | None], ...], agent: str,
               nested: bool, rel: str, install: bool, extra: dict[str, Any]) -> None:
    """Take our hooks out of every event of `doc["hooks"]`, then add them fresh.

    `nested`: Claude's shape (groups with a matcher and a `hooks` list) rather than
    Cursor's flat list of commands.
    """
    hooks = _section(doc, "hooks", rel)
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if nested and isinstance(g, dict) and isinstance(g.get("hooks"), list):
                inner = [h for h in g["hooks"]
                         if not (isinstance(h, dict) and is_ours(h.get("command")))]
                if not inner and g["hooks"]:
                    continue  # the group held only ours
                if len(inner) != len(g["hooks"]):
                    g = {**g, "hooks": inner}
            elif isinstance(g, dict) and is_ours(g.get("command")):
                continue
            kept.append(g)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if install:
        for event, ours, matcher in table:
            handler: dict[str, Any] = {"command": hook_command(ours, agent)}
            if nested:
                handler = {"type": "command", **handler, **extra}
                group: dict[str, Any] = {"matcher": matcher} if matcher else {}
                group["hooks"] = [handler]
            else:
                group = {**handler, **({"matcher": matcher} if matcher else {})}
            hooks.setdefault(event, []).append(group)
    if not hooks:
        del doc["hooks"]


def _json_change(top: str, rel: str, what: str, edit: Any, empty: dict[str, Any]) -> Change:
    """Apply `edit` to a JSON settings file; a file it leaves holding only `empty` goes."""
    import copy

    raw, doc, indent = _read_json(top, rel)
    original = copy.deepcopy(doc)
    edit(doc)
    if doc == original:
        return Change(rel, raw, raw, what)  # the user's bytes, whatever their layout
    if not doc or doc == empty:
        return Change(rel, raw, None, what)
    return Change(rel, raw, _dump_json(doc, indent), what)


# -- Codex's TOML ----------------------------------------------------------------------------

_TOML_HEADER = re.compile(r'^\s*\[\s*mcp_servers\s*\.\s*("git-aide"|git-aide)\s*(\.[^\]]*)?\]')
_ANY_HEADER = re.compile(r"^\s*\[")
TOML_BLOCK = f'[mcp_servers.{SERVER}]\ncommand = "{EXE}"\nargs = ["mcp"]\n'


def _toml_parse(text: str, rel: str) -> dict[str, Any] | None:
    try:
        import tomllib
    except ImportError:  # Python 3.10: checked when tomli happens to be there
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise AideError(f"{rel} is not valid TOML ({e}); fix it, then run init again "
                        "(it was left as it was)") from None


def _toml_change(top: str, rel: str, install: bool) -> Change:
    """Replace our `[mcp_servers.git-aide]` table in Codex's config, leaving every other
    line as it was."""
    from git_aide.store import read_file

    raw = read_file(os.path.join(top, rel))
    text = (raw or b"").decode("utf-8", "replace")
    _toml_parse(text, rel)
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    at = None
    skipping = False
    for line in lines:
        if _TOML_HEADER.match(line):
            skipping = True
            if at is None:
                at = len(out)
            continue
        if skipping and _ANY_HEADER.match(line):
            skipping = False
        if not skipping:
            out.append(line)
    if install:
        if at is None:
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
            if out and out[-1].strip():
                out.append("\n")
            at = len(out)
        block = TOML_BLOCK
        if at < len(out) and out[at].strip():
            block += "\n"  # keep a blank line before the user's next table
        out.insert(at, block)
    elif at is not None and at == len(out) and at > 0 and not out[at - 1].strip():
        out.pop()  # the blank line init put before the table it appended
    new = "".join(out)
    parsed = _toml_parse(new, rel)
    if parsed is not None:
        server = parsed.get("mcp_servers", {}).get(SERVER) if isinstance(
            parsed.get("mcp_servers"), dict) else None
        if install and server != {"command": EXE, "args": ["mcp"]}:
            raise AideError(f"{rel} defines mcp_servers.{SERVER} in a form git-aide does not "
                            "edit (an inline table?); left as it was")
    after = new.encode() if new.strip() else None
    if new == text:
        after = raw
    return Change(rel, raw, after, "the git-aide MCP server")


# -- the agents ------------------------------------------------------------------------------

def _server_entry(typed: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry.update({"command": EXE, "args": ["mcp"]})
    return entry


def plan(top: str, agent: str, install: bool = True) -> list[Change]:
    """The changes init --agent (or --uninstall) makes for one agent."""
    if agent not in AGENTS:
        raise AideError(f"unknown agent {agent!r}; choose one of {', '.join(AGENTS)}")
    server = "the git-aide MCP server"
    hooks = "git-aide's hooks"

    def servers(key: str, typed: bool) -> Any:
        return lambda doc: _set_server(doc, key, _server_entry(typed) if install else None,
                                       "")

    if agent == "claude":
        return [
            _json_change(top, ".mcp.json", server, servers("mcpServers", True), {}),
            _json_change(top, ".claude/settings.json", hooks, lambda d: _set_hooks(
                d, _CLAUDE_HOOKS, agent, True, ".claude/settings.json", install,
                {"timeout": 10}), {}),
        ]
    if agent == "codex":
        return [
            _toml_change(top, ".codex/config.toml", install),
            _json_change(top, ".codex/hooks.json", hooks, lambda d: _set_hooks(
                d, _CLAUDE_HOOKS, agent, True, ".codex/hooks.json", install,
                {"timeout": 10}), {}),
        ]
    if agent == "cursor":
        def cursor_hooks(d: dict[str, Any]) -> None:
            if install:
                d.setdefault("version", 1)
            _set_hooks(d, _CURSOR_HOOKS, agent, False, ".cursor/hooks.json", install, {})

        return [
            _json_change(top, ".cursor/mcp.json", server, servers("mcpServers", False), {}),
            _json_change(top, ".cursor/hooks.json", hooks, cursor_hooks, {"version": 1}),
        ]
    if agent == "gemini":
        def gemini(d: dict[str, Any]) -> None:
            _set_server(d, "mcpServers", _server_entry(False) if install else None,
                        ".gemini/settings.json")
            _set_hooks(d, _GEMINI_HOOKS, agent, True, ".gemini/settings.json", install,
                       {"timeout": 10000})

        return [_json_change(top, ".gemini/settings.json", f"{server} and {hooks}", gemini,
                             {})]
    return [_json_change(top, ".vscode/mcp.json", server, servers("servers", True), {})]


def apply(top: str, changes: list[Change]) -> None:
    """Write (atomically) or remove each changed file."""
    from git_aide.store import write_file

    for c in changes:
        if not c.changed:
            continue
        path = os.path.join(top, c.path)
        if c.after is None:
            os.unlink(path)
        else:
            write_file(path, c.after)


def found(top: str) -> list[tuple[str, bool, str]]:
    """(agent, set up?, what was found) for each agent whose files exist, for doctor."""
    out = []
    for agent in AGENTS:
        try:
            changes = plan(top, agent)
        except AideError as e:
            out.append((agent, False, f"{agent}: {e}"))
            continue
        present = [c for c in changes if c.before is not None]
        if not present:
            continue
        stale = [c.path for c in changes if c.changed]
        if stale:
            out.append((agent, False, f"{agent}: git-aide is missing or out of date in "
                                      f"{', '.join(stale)}"))
        else:
            out.append((agent, True, f"{agent}: git-aide is set up in "
                                     f"{', '.join(c.path for c in changes)}"))
    return out
