"""Everything an agent needs: the MCP server, hook events, agent settings, rules files."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.warm.listener import Runner

#: The MCP SDK git-aide requires (a dependency of every install, as in pyproject.toml).
MCP_REQUIREMENT = "mcp>=2.3,<3"


def serve(runner: Runner | None = None) -> int:
    """Run `git aide mcp`'s server, or say in one line what is missing; `runner`: what
    runs the hooks and commands handed over its socket (warm/listener.py)."""
    import importlib.util

    try:
        found = importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):  # a broken or half-removed package
        found = False
    if not found:
        # A dependency of every install: only a damaged environment lacks it, so name
        # the interpreter it must go into.
        sys.stderr.write("git-aide: error: the MCP server needs the Python package mcp, "
                         "missing from this installation of git-aide: run "
                         f"{sys.executable} -m pip install '{MCP_REQUIREMENT}'\n")
        return 1
    from git_aide.agents.mcp.handshake import main

    return main(runner)
