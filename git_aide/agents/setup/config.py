"""`git aide init --agent A`: the MCP registration and the hooks in each agent's own
project settings (docs/agents.md), edited in place.

A settings file is the user's, and often committed: only git-aide's own entries (known
by their command: `git-aide mcp`, `git-aide hook ...`, entries.py) change, every other
byte stays as it was, and `--uninstall` gives the file back byte for byte. JSON is edited
as text (jsonsettings.py), Codex's TOML through tomlkit (codextoml.py); a file that does
not parse is an error and is left alone, and nothing is read or written through a link
out of the working tree (settingsfile.py).

This module holds the table of each agent's hooks and files, and plans, applies and
checks (for doctor) the changes for one agent. A set-up is only called done when the
server the files name starts (probe.py).
"""

from __future__ import annotations

import os

from git_aide.agents.setup.codextoml import toml_change
from git_aide.agents.setup.entries import SERVER
from git_aide.agents.setup.jsonsettings import Spec, json_change
from git_aide.agents.setup.settingsfile import Change, place
from git_aide.core.errors import AideError

#: The agents `init --agent` sets up.
AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "vscode")

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
#: `.github/hooks/git-aide.json`, read by Copilot CLI, the Copilot cloud agent and VS
#: Code. Copilot CLI sends a camelCase event its camelCase payload and reads flat output
#: (`additionalContext`, `decision`; a prompt's context since 1.0.65); a PascalCase one
#: gets VS Code's snake_case payload, whose reply shape it does not document: the events
#: that answer are camelCase. VS Code renames those it knows (`agentStop` is its Stop,
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
#: What install writes to an absent hooks file that carries a format version (Cursor's,
#: Copilot's) before adding its entries (jsonsettings.SKELETON for the others).
_VERSIONED = '{\n  "version": 1\n}\n'
#: How long the MCP server may take to answer `initialize` before Gemini CLI gives up, in
#: ms. Gemini uses this one `timeout` for the connection and for every tool call (its own
#: default: 10 minutes, but 5 s in `gemini mcp list`): 60 s covers a cold start on a
#: loaded machine (up to 11 s measured) several times over, and the first search that
#: builds the index of a large store, while a server that hangs still fails in a minute.
GEMINI_TIMEOUT_MS = 60_000


def plan(top: str, agent: str, install: bool = True) -> list[Change]:
    """Return the changes init --agent (or --uninstall) makes for one agent."""
    if agent not in AGENTS:
        raise AideError(f"unknown agent {agent!r}; choose one of {', '.join(AGENTS)}")
    server = "the git-aide MCP server"
    hooks = "git-aide's hooks"
    timeout = (("timeout", 10),)

    def change(rel: str, what: str, spec: Spec) -> Change:
        return json_change(top, rel, what, spec, agent, install)

    if agent == "claude":
        return [change(".mcp.json", server, Spec(servers="mcpServers", typed=True)),
                change(".claude/settings.json", hooks, Spec(hooks=_CLAUDE_HOOKS,
                                                             extra=timeout))]
    if agent == "codex":
        return [toml_change(top, ".codex/config.toml", install),
                change(".codex/hooks.json", hooks, Spec(hooks=_CODEX_HOOKS, extra=timeout))]
    if agent == "copilot":
        # `.github/mcp.json` is the project file Copilot CLI documents for a shared set-up
        # (`.mcp.json` is Claude's); the hooks get a file of their own in `.github/hooks/`
        return [change(".github/mcp.json", server, Spec(servers="mcpServers", typed=True)),
                change(".github/hooks/git-aide.json", hooks, Spec(
                    hooks=_COPILOT_HOOKS, nested=False, typed_hooks=True, command_key="bash",
                    extra=(("timeoutSec", 10),), skeleton=_VERSIONED))]
    if agent == "cursor":
        # Cursor wants a version in its hooks file: written in a file install makes,
        # never added to the user's own
        return [change(".cursor/mcp.json", server, Spec(servers="mcpServers")),
                change(".cursor/hooks.json", hooks, Spec(
                    hooks=_CURSOR_HOOKS, nested=False, skeleton=_VERSIONED))]
    if agent == "gemini":
        return [change(".gemini/settings.json", f"{server} and {hooks}", Spec(
            servers="mcpServers", hooks=_GEMINI_HOOKS, extra=(("timeout", 10000),),
            server_extra=(("timeout", GEMINI_TIMEOUT_MS),)))]
    return [change(".vscode/mcp.json", server, Spec(servers="servers", typed=True))]


def apply(top: str, changes: list[Change]) -> None:
    """Write (atomically) or remove each changed file: through a link inside the
    working tree, never out of it (checked again here), keeping its permissions."""
    from git_aide.core.files import write_atomic

    todo = [c for c in changes if c.changed]
    seen: dict[str, str] = {}
    for c in todo:
        dest = place(top, c.path)
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
    """Return (agent, set up?, what was found, whether init --agent sets it right) for
    each agent whose files exist, for doctor."""
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
