"""`git aide daemon`: start, stop and look at the warm server of the working tree
(agents/daemon.py), through which hooks and reading commands are answered."""

from __future__ import annotations

import click

from git_aide.cli.commands import out


@click.group()
def daemon() -> None:
    """Serve hooks and reading commands from a warm process (as an agent's MCP server does)."""


@daemon.command()
def start() -> None:
    """Start a server for this working tree in the background (none if one serves)."""
    from git_aide.agents.daemon import said
    from git_aide.agents.daemon import start as start_server

    out(f"serving: {said(start_server())}")


@daemon.command()
def run() -> None:
    """Serve this working tree in the foreground until stopped."""
    from git_aide.agents.daemon import run as run_server
    from git_aide.cli.served import run as served

    raise click.exceptions.Exit(run_server(served))


@daemon.command()
def stop() -> None:
    """Stop this working tree's daemon (an agent's MCP server stops with its agent)."""
    from git_aide.agents.daemon import git_dir, said, status
    from git_aide.agents.daemon import stop as stop_server
    from git_aide.core.errors import AideError

    folder = git_dir()
    held = status(folder)
    if held is None:
        out("no server runs for this working tree.")
        return
    answer = stop_server(folder)
    if answer is None or not answer.get("stopped"):
        raise AideError(f"not stopped: served by the {said(held)}; it stops with its agent")
    out(f"stopped: {said(held)}")


@daemon.command()
def status() -> None:
    """Say whether a server answers for this working tree, and which (exit 1: none)."""
    from git_aide.agents.daemon import git_dir, said
    from git_aide.agents.daemon import status as server_status

    held = server_status(git_dir())
    if held is None:
        out("no server runs for this working tree.")
        raise click.exceptions.Exit(1)
    out(f"serving: {said(held)}")
