"""git-aide's own entries in an agent's settings: the name of its MCP server, the program
agents start, the hook command, and how an entry is known to be git-aide's (by its
command), so that install and uninstall change those entries and nothing else."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON

#: The name of our MCP server in every agent's settings.
SERVER = "git-aide"
#: The executable agents start (on PATH once the package is installed).
EXE = "git-aide"
#: How a hook command of git-aide's starts.
_HOOK_PREFIXES = ("git-aide hook ", "git aide hook ")


def hook_command(event: str, agent: str) -> str:
    """Return the command an agent runs for one of our hook events."""
    return f"{EXE} hook {event} --agent {agent}"


def is_ours(command: JSON) -> bool:
    """Tell whether a hook command is one of git-aide's."""
    return isinstance(command, str) and command.strip().startswith(_HOOK_PREFIXES)


def is_our_server(entry: JSON) -> bool:
    """Tell whether an MCP server entry starts git-aide's server."""
    if not isinstance(entry, dict):
        return False
    cmd = entry.get("command")
    args = entry.get("args") or []
    return (isinstance(cmd, str) and os.path.basename(cmd) in ("git-aide", "git")
            and isinstance(args, list) and args[-1:] == ["mcp"])
