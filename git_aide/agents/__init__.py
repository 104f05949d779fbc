"""Everything an agent needs: the MCP server, hook events, agent settings, rules files."""

from __future__ import annotations

import sys

#: What to install when the MCP SDK is missing.
MCP_EXTRA = "pip install 'git-aide[mcp]'"


def serve() -> int:
    """`git aide mcp`: run the server, or say in one line what to install."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        sys.stderr.write("git-aide: error: the MCP server needs the MCP SDK: "
                         f"{MCP_EXTRA}\n")
        return 1
    from git_aide.agents.server import main

    return main()
