"""`git aide init --agent A`: the MCP registration and the hooks in each agent's own
project settings (docs/agents.md), edited in place.

A settings file is the user's, and often committed: only git-aide's own entries (known
by their command: `git-aide mcp`, `git-aide hook ...`) change, every other byte stays
as it was, and `--uninstall` gives the file back byte for byte. JSON is edited as text:
a small tokenizer finds where each value is, new entries go after the last of their
neighbours in the file's own layout (indent, separators, line ends), and uninstall cuts
out exactly what install put in, recomputed from the file. Codex's TOML goes through
tomlkit, which keeps the document as written. A file that does not parse is an error
and is left alone, and nothing is read or written through a link out of the working
tree.

A set-up is only called done when the server the files name starts (agents/setup/probe.py).

Longer than most modules, on purpose: a hundred lines are the table of each agent's
hooks and files, and the rest is one promise (install, and give the file back byte for
byte) kept for JSON and TOML side by side; the text editing itself is jsonedit.py's,
whether the server starts probe.py's.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from typing import Any

from git_aide.agents.setup.jsonedit import Document, Edit, Node, kind, newline, splice
from git_aide.core.errors import AideError

AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "vscode")
#: The name of our MCP server in every agent's settings.
SERVER = "git-aide"
#: The executable agents start (on PATH once the package is installed).
EXE = "git-aide"
_HOOK_PREFIXES = ("git-aide hook ", "git aide hook ")

#: (event name in the agent's file, our hook event, matcher or None). Claude Code, Codex
#: and Gemini CLI read a matcher as a regular expression on the tool's name; the matchers
#: are the names the real programs send (tests/data/payloads/), and a shell tool is among
#: the file tools because the hook reads the files its command reads.
_CLAUDE_HOOKS = (
    ("SessionStart", "session-start", None),
    # a plain `|` list: Claude Code compares each name exactly
    ("PreToolUse", "pre-tool-use", "Read|Edit|MultiEdit|Write|NotebookEdit|Bash"),
    ("PostToolUse", "post-tool-use",
     f"mcp__{SERVER}__aide_recall|mcp__{SERVER}__aide_search|mcp__{SERVER}__aide_memories"),
    ("UserPromptSubmit", "user-prompt", None),
    ("Stop", "stop", None),
    ("PreCompact", "pre-compact", None),
)
#: Codex: Claude's shape with its own tools (no Read tool: files are read with shell
#: commands and written with apply_patch). It names the MCP server with `-` made `_`
#: (`mcp__git_aide__aide_recall`); `[-_]` keeps the hook if a version stops doing so.
_CODEX_HOOKS = (
    ("SessionStart", "session-start", None),
    ("PreToolUse", "pre-tool-use", "Bash|apply_patch"),
    ("PostToolUse", "post-tool-use", "mcp__git[-_]aide__aide_(recall|search|memories)"),
    ("UserPromptSubmit", "user-prompt", None),
    ("Stop", "stop", None),
    ("PreCompact", "pre-compact", None),
)
#: Gemini CLI: context after a file tool (BeforeTool has no context channel). Its MCP
#: tools are `mcp_<server>_<tool>` (0.61), `mcp__<server>__<tool>` in other versions.
_GEMINI_HOOKS = (
    ("SessionStart", "session-start", None),
    ("AfterTool", "pre-tool-use",
     "read_file|read_many_files|write_file|replace|run_shell_command"),
    ("AfterTool", "post-tool-use", f"^mcp_{{1,2}}{SERVER}_{{1,2}}aide_(recall|search|memories)$"),
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

#: `.github/hooks/git-aide.json`, read by Copilot CLI, the Copilot cloud agent and VS Code
#: (GitHub's "Copilot hooks reference", VS Code's "Agent hooks"). Copilot CLI sends a
#: camelCase event its camelCase payload and reads flat output (`additionalContext`,
#: `decision`; a prompt's context since 1.0.65); a PascalCase one gets VS Code's
#: snake_case payload, whose reply shape it does not document: the events that answer are
#: camelCase. VS Code renames those it knows (`agentStop` is its Stop,
#: `userPromptSubmitted` its UserPromptSubmit) and sends its own payload, answered in its
#: own shape; it has no camelCase `preCompact`, so that one is the PascalCase name both
#: read. Copilot CLI's preToolUse answers with a permission only, and fails the tool call
#: when its command fails (git-aide missing on a machine, or in the cloud agent's
#: sandbox): file context rides on postToolUse, whose `additionalContext` both programs
#: give the model. VS Code ignores matchers, so each hook looks at the tool itself;
#: Copilot CLI anchors them (`^(?:...)$`) on its own tool names, and names MCP tools in a
#: way it does not document (hence the loose prefix).
_COPILOT_HOOKS = (
    ("sessionStart", "session-start", None),
    ("userPromptSubmitted", "user-prompt", None),
    ("postToolUse", "pre-tool-use", "view|create|edit|str_replace_editor|apply_patch|bash"),
    ("postToolUse", "post-tool-use", ".*git[-_]aide[-_/.:]+aide_(recall|search|memories)"),
    ("agentStop", "stop", None),
    ("PreCompact", "pre-compact", None),
)

#: Each agent's files, repo-relative.
FILES = {
    "claude": (".mcp.json", ".claude/settings.json"),
    "codex": (".codex/config.toml", ".codex/hooks.json"),
    "copilot": (".github/mcp.json", ".github/hooks/git-aide.json"),
    "cursor": (".cursor/mcp.json", ".cursor/hooks.json"),
    "gemini": (".gemini/settings.json",),
    "vscode": (".vscode/mcp.json",),
}
#: The largest JSON settings file read: agents' files are a few KiB, and a bound keeps
#: something that never ends from hanging init or doctor.
MAX_JSON = 1 << 20
#: The same for TOML, smaller: tomlkit keeps a document as written but parses slowly.
MAX_TOML = 128 << 10
#: What install writes to an absent JSON file before adding its entries; a file that
#: uninstall leaves holding exactly this was made by install, and goes.
SKELETON = "{\n}\n"
#: The same for hooks files that carry a format version (Cursor's, Copilot's).
_VERSIONED = '{\n  "version": 1\n}\n'

#: How long the MCP server may take to answer `initialize` before Gemini CLI gives up, in
#: ms. Gemini uses this one `timeout` for the connection and for every tool call (its own
#: default: 10 minutes, but 5 s in `gemini mcp list`): 60 s covers a cold start on a
#: loaded machine (up to 11 s measured) several times over, and the first search that
#: builds the index of a large store, while a server that hangs still fails in a minute.
GEMINI_TIMEOUT_MS = 60_000
#: Codex's `startup_timeout_sec` (its default: 10 s, less than a cold start under load);
#: tool calls have their own `tool_timeout_sec` (60 s), left as Codex sets it.
CODEX_STARTUP_S = 30


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
    #: The file read and written: the path, or what a link inside the tree points to.
    dest: str = field(default="", repr=False)
    #: The permission bits of the file before, given back to the rewritten one.
    mode: int | None = field(default=None, repr=False)

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


# -- reading and writing, inside the working tree only -----------------------------------

def _place(top: str, rel: str) -> str:
    """The file to read and write for `rel`: the path itself, or the target of a link
    that stays inside the working tree; anything that would lead out of it is refused,
    every folder on the way checked as the memory folders are."""
    from git_aide.gitio import folders

    folder = os.path.dirname(rel)
    if folder:
        message = folders.problem(top, folder, "agent settings")
        if message:
            raise AideError(f"{rel}: {message}")
    path = os.path.join(top, rel)
    if not os.path.islink(path):
        return path
    target = os.path.realpath(path)
    root = os.path.realpath(top)
    inside = os.path.relpath(target, root)
    if inside == os.pardir or inside.startswith(os.pardir + os.sep) or os.path.isabs(inside):
        raise AideError(f"{rel} is a symbolic link out of the working tree (to "
                        f"{os.readlink(path)}); git-aide writes agent settings only inside "
                        "it: left as it was")
    if inside.split(os.sep)[0] == ".git":
        raise AideError(f"{rel} is a symbolic link into .git; left as it was")
    return target


def read_settings(top: str, rel: str, limit: int) -> tuple[bytes | None, str, int | None]:
    """(bytes or None, file, permission bits) of a settings file: only a regular file
    of at most `limit` bytes is read (a FIFO or a device would never end)."""
    dest = _place(top, rel)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(
        os, "O_NOCTTY", 0)
    try:
        fd = os.open(dest, flags)
    except FileNotFoundError:
        return None, dest, None
    except OSError as e:
        raise AideError(f"{rel} cannot be read ({e.strerror}); left as it was") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AideError(f"{rel} is not a regular file; left as it was")
        too_big = AideError(f"{rel} is larger than {limit >> 10} KiB, more than agent settings "
                            "ever are; left as it was")
        if st.st_size > limit:
            raise too_big
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise too_big
    except OSError as e:
        raise AideError(f"{rel} cannot be read ({e.strerror}); left as it was") from None
    finally:
        os.close(fd)
    return b"".join(chunks), dest, stat.S_IMODE(st.st_mode)


@dataclass(frozen=True)
class _Spec:
    """What git-aide owns in one JSON settings file."""

    #: The key of the MCP servers object ("" when the file has no server of ours).
    servers: str = ""
    #: Whether the server entry says `"type": "stdio"`.
    typed: bool = False
    #: The hooks installed: (event in the file, our event, matcher or None).
    hooks: tuple[tuple[str, str, str | None], ...] = ()
    #: Claude's shape (groups of a matcher and handlers) rather than Cursor's flat list.
    nested: bool = True
    #: What each handler adds (the timeout, in the agent's unit).
    extra: tuple[tuple[str, Any], ...] = ()
    #: Whether a flat handler says `"type": "command"` (Copilot's and VS Code's do).
    typed_hooks: bool = False
    #: The key of a handler's command: `bash` in Copilot's files, which every program
    #: reading them takes (Copilot CLI's `command` is recent).
    command_key: str = "command"
    #: What the server entry adds after its command (the start-up timeout).
    server_extra: tuple[tuple[str, Any], ...] = ()
    #: What install starts from when the file does not exist.
    skeleton: str = SKELETON


def _server_entry(spec: _Spec) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if spec.typed else {}
    entry.update({"command": EXE, "args": ["mcp"]})
    entry.update(spec.server_extra)
    return entry


def _hook_groups(spec: _Spec, agent: str) -> dict[str, list[dict[str, Any]]]:
    """Our groups (Cursor: handlers) under each event, in the order they are written."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event, ours, matcher in spec.hooks:
        handler: dict[str, Any] = {spec.command_key: hook_command(ours, agent)}
        if spec.nested:
            handler = {"type": "command", **handler, **dict(spec.extra)}
            group: dict[str, Any] = {"matcher": matcher} if matcher else {}
            group["hooks"] = [handler]
        else:
            typed = {"type": "command"} if spec.typed_hooks else {}
            group = {**typed, **handler, **dict(spec.extra),
                     **({"matcher": matcher} if matcher else {})}
        out.setdefault(event, []).append(group)
    return out


def _ours_in(doc: Document, groups: Node, spec: _Spec) -> tuple[list[int], list[Edit]]:
    """(the groups of an event that hold only our hooks, the edits that take ours out
    of the groups that also hold the user's)."""
    whole: list[int] = []
    inner: list[Edit] = []
    nested = spec.nested
    # a handler an earlier version wrote under `command` is ours too, and is replaced
    keys = dict.fromkeys(("command", spec.command_key))

    def ours(handler: Node) -> bool:
        if handler.kind != "{":
            return False
        found = (doc.member(handler, k) for k in keys)
        return any(i is not None and is_ours(doc.value(handler.items[i])) for i in found)

    for g, group in enumerate(groups.items):
        if not nested:
            if ours(group):
                whole.append(g)
            continue
        i = doc.member(group, "hooks") if group.kind == "{" else None
        handlers = group.items[i] if i is not None else None
        if handlers is None or handlers.kind != "[":
            continue
        mine = [h for h, handler in enumerate(handlers.items) if ours(handler)]
        if mine and len(mine) == len(handlers.items):
            whole.append(g)
        elif mine:
            inner += doc.drop(handlers, mine)
    return whole, inner


#: A place to add to, after the first pass: (keys from the top, key or None, value).
_Later = tuple[tuple[str, ...], str | None, Any]


def _edit_json(text: str, spec: _Spec, agent: str, install: bool, rel: str) -> str:
    """`text` with git-aide's entries put in (or taken out): the stale ones are
    replaced or removed in a first pass, then the missing ones added."""
    doc = Document(text)
    root = doc.root
    edits: list[Edit] = []
    later: list[_Later] = []
    emptied: dict[int, list[Edit]] = {}  # the top-level containers left empty
    if spec.servers:
        edits += _servers(doc, spec, install, rel, later, emptied)
    if spec.hooks:
        edits += _hooks(doc, spec, agent, install, rel, later, emptied)
    edits += doc.prune(root, emptied)[1]
    text = splice(text, edits)
    if not later:
        return text
    doc = Document(text)
    boxes: dict[int, tuple[Node, list[tuple[str | None, Any]]]] = {}
    for path, key, value in later:
        box = doc.root
        for k in path:
            at = doc.member(box, k)
            assert at is not None, "the first pass keeps every place it adds to"
            box = box.items[at]
        new = [(key, value)] if key is not None else [(None, v) for v in value]
        boxes.setdefault(id(box), (box, []))[1].extend(new)
    return splice(text, [doc.append(box, new) for box, new in boxes.values()])


def _servers(doc: Document, spec: _Spec, install: bool, rel: str, later: list[_Later],
             emptied: dict[int, list[Edit]]) -> list[Edit]:
    """Our server under `spec.servers`: kept when it is as it should be, else replaced
    in place or added last; copies of it under other names go."""
    key = spec.servers
    entry = _server_entry(spec)
    i = doc.member(doc.root, key)
    if i is None:
        if install:
            later.append(((), key, {SERVER: entry}))
        return []
    box = doc.root.items[i]
    if box.kind != "{":
        raise AideError(f"{rel}: {key!r} is {kind(doc.text, box)}, not an object; left as "
                        "it was")
    named = [j for j, k in enumerate(box.keys) if k[0] == SERVER]
    keep = named[-1] if install and named else None
    gone = [j for j, value in enumerate(box.items) if j != keep and (
        box.keys[j][0] == SERVER or is_our_server(doc.value(value)))]
    edits: list[Edit] = []
    if keep is None:
        if install:
            later.append(((key,), SERVER, entry))
    elif doc.value(box.items[keep]) != entry:
        value = box.items[keep]
        flat = doc.flat(value if value.kind else box)
        edits.append((value.start, value.end,
                      doc.render(entry, doc.indent(box.keys[keep][1]), flat)))
    if gone:
        if not install and len(gone) == len(box.items):
            emptied[i] = doc.drop(box, gone)
        else:
            edits += doc.drop(box, gone)
    return edits


def _hooks(doc: Document, spec: _Spec, agent: str, install: bool, rel: str,
           later: list[_Later], emptied: dict[int, list[Edit]]) -> list[Edit]:
    """Our hooks in `"hooks"`: an event whose groups of ours are as they should be is
    left alone, one whose are not has them replaced in place (or taken out and added
    last), a missing event is added last, and ours go from events we no longer use."""
    want = _hook_groups(spec, agent) if install else {}
    i = doc.member(doc.root, "hooks")
    if i is None:
        if install:
            later.append(((), "hooks", want))
        return []
    box = doc.root.items[i]
    if box.kind != "{":
        raise AideError(f"{rel}: 'hooks' is {kind(doc.text, box)}, not an object; left as "
                        "it was")
    target = {k[0]: j for j, k in enumerate(box.keys) if k[0] in want}
    edits: list[Edit] = []
    events: dict[int, list[Edit]] = {}  # the events left empty
    for j, (event, _, _) in enumerate(box.keys):
        groups = box.items[j]
        if groups.kind != "[":
            if target.get(event) == j:
                raise AideError(f"{rel}: hooks.{event} is {kind(doc.text, groups)}, not an "
                                "array; left as it was")
            continue
        whole, inner = _ours_in(doc, groups, spec)
        if target.get(event) == j:
            mine = want[event]
            if not inner and len(whole) == len(mine):
                for g, group in zip(whole, mine, strict=True):
                    node = groups.items[g]
                    if doc.value(node) != group:
                        edits.append((node.start, node.end, doc.render(
                            group, doc.indent(node.start), doc.flat(node))))
                continue
            later.append((("hooks", event), None, mine))
        elif not whole and not inner:
            continue
        elif len(whole) == len(groups.items):
            events[j] = doc.drop(groups, whole)
            continue
        edits += inner
        if whole:
            edits += doc.drop(groups, whole)
    later.extend((("hooks",), event, mine) for event, mine in want.items()
                 if event not in target)
    gone, pruned = doc.prune(box, events)
    if not install and gone and gone == len(box.items):
        emptied[i] = pruned
    else:
        edits += pruned
    return edits


def json_text(raw: bytes | None, rel: str) -> str:
    """The text of a JSON settings file, checked to be an object."""
    if raw is None:
        return ""
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text) if text.strip() else {}
    except RecursionError:
        raise AideError(f"{rel} is nested too deeply to be agent settings; left as it was"
                        ) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise AideError(f"{rel} is not valid JSON ({e}); fix it, then run init again "
                        "(it was left as it was)") from None
    if not isinstance(doc, dict):
        raise AideError(f"{rel} does not hold a JSON object; left as it was")
    return text


def _json_change(top: str, rel: str, what: str, spec: _Spec, agent: str,
                 install: bool) -> Change:
    """Put our entries in a JSON settings file (or take them out), touching nothing
    else; a file that uninstall leaves as install would have started it goes."""
    raw, dest, mode = read_settings(top, rel, MAX_JSON)
    text = json_text(raw, rel)
    if not text.strip():
        if not install:
            return Change(rel, raw, raw, what, dest, mode)
        text = spec.skeleton
    new = _edit_json(text, spec, agent, install, rel)
    if new == text:
        return Change(rel, raw, raw, what, dest, mode)
    try:
        json.loads(new)
    except (ValueError, RecursionError):
        raise AideError(f"{rel}: git-aide could not edit it in place (a bug: please "
                        "report it); left as it was") from None
    if not install and new == spec.skeleton:
        return Change(rel, raw, None, what, dest, mode)
    return Change(rel, raw, new.encode(), what, dest, mode)


# -- Codex's TOML ----------------------------------------------------------------------------

def toml_load(text: str, rel: str) -> Any:
    """The tomlkit document of `text`."""
    import tomlkit

    try:
        return tomlkit.parse(text)
    except RecursionError:
        raise AideError(f"{rel} is nested too deeply to be agent settings; left as it was"
                        ) from None
    except Exception as e:  # tomlkit's errors are not all of one class
        message = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise AideError(f"{rel} is not valid TOML ({message}); fix it, then run init again "
                        "(it was left as it was)") from None


#: Our `[mcp_servers.git-aide]`, as values.
_CODEX_ENTRY: dict[str, Any] = {"command": EXE, "args": ["mcp"],
                                "startup_timeout_sec": CODEX_STARTUP_S}


def _toml_table(nl: str) -> str:
    """Our table as install appends it, with the file's line ends."""
    return (f'[mcp_servers.{SERVER}]{nl}command = "{EXE}"{nl}args = ["mcp"]{nl}'
            f'startup_timeout_sec = {CODEX_STARTUP_S}{nl}')


def _toml_change(top: str, rel: str, install: bool) -> Change:
    """Our `[mcp_servers.git-aide]` in Codex's config: added at the end of the file,
    changed in place wherever and however it is written, taken out with the line end
    install put before it."""
    what = "the git-aide MCP server"
    raw, dest, mode = read_settings(top, rel, MAX_TOML)
    unchanged = Change(rel, raw, raw, what, dest, mode)
    if raw is None:  # nothing to parse (doctor asks about every agent)
        return Change(rel, raw, _toml_table("\n").encode(), what, dest) if install else unchanged
    from tomlkit.items import InlineTable

    # non-UTF-8 bytes (in a comment, say) go through as they came
    text = raw.decode("utf-8", "surrogateescape")
    doc = toml_load(text, rel)
    if doc.as_string() != text:
        raise AideError(f"{rel}: git-aide cannot edit it without rewriting other lines; "
                        "left as it was")
    plain = doc.unwrap()
    servers = plain.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise AideError(f"{rel}: mcp_servers is not a table; left as it was")
    want = _CODEX_ENTRY
    others = [n for n, e in servers.items() if n != SERVER and is_our_server(e)]
    if not others and (servers.get(SERVER) == want if install else SERVER not in servers):
        return unchanged
    expected = {n: e for n, e in servers.items() if n not in others and n != SERVER}
    if install:
        expected[SERVER] = want
    box = doc.get("mcp_servers")
    for name in others:
        del box[name]
    nl = newline(text)
    if install and SERVER not in servers and not isinstance(box, InlineTable):
        base = doc.as_string()
        new = base + (nl if base else "") + _toml_table(nl)
    else:
        if not install:
            if SERVER in servers:
                del box[SERVER]
        elif isinstance(servers.get(SERVER), dict):
            entry = box[SERVER]
            for k in [k for k in entry if k not in want]:
                del entry[k]
            for k, v in want.items():
                if entry.get(k) != v:
                    entry[k] = v
        else:
            import tomlkit

            inline = tomlkit.inline_table()
            inline.update(want)
            box[SERVER] = inline
        new = doc.as_string()
        cut = text[len(new):] if text.startswith(new) else ""
        if not install and cut.lstrip(" \t").startswith("["):
            # our table was last: the line end install put before it goes too
            new = new.removesuffix(newline(new[-2:]) if new.endswith("\n") else "")
    after = toml_load(new, rel).unwrap()
    mcp = after.pop("mcp_servers", {})
    plain.pop("mcp_servers", None)
    if after != plain or mcp != expected:
        raise AideError(f"{rel}: git-aide cannot change its entry without touching others "
                        "(an unusual layout); left as it was")
    if not install and not new:
        return Change(rel, raw, None, what, dest, mode)
    return Change(rel, raw, new.encode("utf-8", "surrogateescape"), what, dest, mode)


# -- the agents ------------------------------------------------------------------------------

def plan(top: str, agent: str, install: bool = True) -> list[Change]:
    """The changes init --agent (or --uninstall) makes for one agent."""
    if agent not in AGENTS:
        raise AideError(f"unknown agent {agent!r}; choose one of {', '.join(AGENTS)}")
    server = "the git-aide MCP server"
    hooks = "git-aide's hooks"
    timeout = (("timeout", 10),)

    def change(rel: str, what: str, spec: _Spec) -> Change:
        return _json_change(top, rel, what, spec, agent, install)

    if agent == "claude":
        return [change(".mcp.json", server, _Spec(servers="mcpServers", typed=True)),
                change(".claude/settings.json", hooks, _Spec(hooks=_CLAUDE_HOOKS,
                                                             extra=timeout))]
    if agent == "codex":
        return [_toml_change(top, ".codex/config.toml", install),
                change(".codex/hooks.json", hooks, _Spec(hooks=_CODEX_HOOKS, extra=timeout))]
    if agent == "copilot":
        # `.github/mcp.json` is the project file Copilot CLI documents for a shared set-up
        # (`.mcp.json` is Claude's); the hooks get a file of their own in `.github/hooks/`
        return [change(".github/mcp.json", server, _Spec(servers="mcpServers", typed=True)),
                change(".github/hooks/git-aide.json", hooks, _Spec(
                    hooks=_COPILOT_HOOKS, nested=False, typed_hooks=True, command_key="bash",
                    extra=(("timeoutSec", 10),), skeleton=_VERSIONED))]
    if agent == "cursor":
        # Cursor wants a version in its hooks file: written in a file install makes,
        # never added to the user's own
        return [change(".cursor/mcp.json", server, _Spec(servers="mcpServers")),
                change(".cursor/hooks.json", hooks, _Spec(
                    hooks=_CURSOR_HOOKS, nested=False, skeleton=_VERSIONED))]
    if agent == "gemini":
        return [change(".gemini/settings.json", f"{server} and {hooks}", _Spec(
            servers="mcpServers", hooks=_GEMINI_HOOKS, extra=(("timeout", 10000),),
            server_extra=(("timeout", GEMINI_TIMEOUT_MS),)))]
    return [change(".vscode/mcp.json", server, _Spec(servers="servers", typed=True))]


def apply(top: str, changes: list[Change]) -> None:
    """Write (atomically) or remove each changed file: through a link inside the
    working tree, never out of it (checked again here), keeping its permissions."""
    from git_aide.core.files import write_atomic

    todo = [c for c in changes if c.changed]
    seen: dict[str, str] = {}
    for c in todo:
        dest = _place(top, c.path)
        if dest != c.dest:
            raise AideError(f"{c.path} changed while init ran; nothing was written: run it "
                            "again")
        if dest in seen:
            raise AideError(f"{seen[dest]} and {c.path} are one file (a symbolic link), "
                            "which git-aide sets up for one agent at a time; nothing was "
                            "written")
        seen[dest] = c.path
    for c in todo:
        if c.after is None:
            os.unlink(c.dest)
            continue
        write_atomic(c.dest, c.after)
        if c.mode is not None:
            os.chmod(c.dest, c.mode)


def found(top: str) -> list[tuple[str, bool, str, bool]]:
    """(agent, set up?, what was found, whether init --agent sets it right) for each
    agent whose files exist, for doctor."""
    out = []
    for agent in AGENTS:
        try:
            changes = plan(top, agent)
        except AideError as e:
            if any(os.path.lexists(os.path.join(top, rel)) for rel in FILES[agent]):
                out.append((agent, False, f"{agent}: {e}", False))
            continue
        present = [c for c in changes if c.before is not None]
        if not present:
            continue
        stale = [c.path for c in changes if c.changed]
        if stale:
            out.append((agent, False, f"{agent}: git-aide is missing or out of date in "
                                      f"{', '.join(stale)}", True))
        else:
            out.append((agent, True, f"{agent}: git-aide is set up in "
                                     f"{', '.join(c.path for c in changes)}", False))
    return out
