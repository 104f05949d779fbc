"""docs/commands.md's table of what each command and MCP tool takes, checked against the
commands' real options (click, built from option_table.py's table for the hot ones) and the
tools' real schema, both ways: a new option or parameter missing from the table, a row
naming one that is gone, or a wrong mark of an unlisted parameter fails here."""

from __future__ import annotations

import re

import click
from helpers import ROOT

from git_aide.agents.mcp.schema import _CHECKED, UNLISTED
from git_aide.cli.main import main
from git_aide.cli.option_table import COMMANDS as HOT

DOC = ROOT / "docs" / "commands.md"
#: The commands that have a tool, whose every option the table must name.
COVERED = ("recall", "search", "list", "show", "remember", "update", "forget", "import",
           "diff", "log")
NONE = "—"


def rows() -> list[list[str]]:
    """The table's rows (what, command line, MCP tool, note), header left out."""
    text = DOC.read_text(encoding="utf-8").split("## The table", 1)[1]
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert lines[0].startswith("| what | command line | MCP tool | note |")
    out = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 4, line
        out.append(cells)
    return out


def cli_refs(cell: str) -> list[tuple[str, str]]:
    """(command, what it names) of each `command ...` in a cell."""
    refs = [tuple(span.split(" ", 1)) for span in re.findall(r"`([^`]+)`", cell)]
    assert all(len(r) == 2 for r in refs), cell
    return refs  # type: ignore[return-value]


def tool_refs(cell: str) -> list[tuple[str, str, bool]]:
    """(tool, parameter, marked unlisted) of each `aide_x param` in a cell."""
    found = [(t, p, star == "*") for t, p, star in
             re.findall(r"`(aide_\w+) (\w+)`(\*?)", cell)]
    assert len(found) == cell.count("`") // 2, cell
    return found


def _option_names(cmd: click.Command) -> list[list[str]]:
    return [[*p.opts, *p.secondary_opts] for p in cmd.params if isinstance(p, click.Option)]


def test_every_row_names_real_options_and_parameters() -> None:
    schemas = {t["name"]: t["inputSchema"]["properties"] for t in _CHECKED}
    for what, cli, mcp, note in rows():
        assert cli or mcp, what
        if cli == NONE or mcp == NONE:
            assert note, f"{what}: one side only, and no note saying why"
        for command, named in cli_refs(cli) if cli != NONE else []:
            cmd = main.commands[command]
            if named.startswith("-- "):
                assert HOT[command].paths_after_dash, (what, command)
            elif named.startswith("-"):
                assert any(named in names for names in _option_names(cmd)), (what, command,
                                                                              named)
            else:
                assert any(isinstance(p, click.Argument) for p in cmd.params), (what, command)
        for tool, param, starred in tool_refs(mcp) if mcp != NONE else []:
            assert param in schemas[tool], (what, tool, param)
            assert starred == (param in UNLISTED.get(tool, ())), (
                f"{tool} {param}: marked {'unlisted' if starred else 'listed'}, which it "
                "is not")


def test_every_option_and_parameter_is_in_the_table() -> None:
    table = rows()
    named_cli = {ref for _w, cli, _m, _n in table for ref in cli_refs(cli)}
    named_mcp = {(t, p) for _w, _c, mcp, _n in table for t, p, _s in tool_refs(mcp)}
    for command in COVERED:
        cmd = main.commands[command]
        said = {named for c, named in named_cli if c == command}
        for names in _option_names(cmd):
            assert said & set(names), f"{command} {names[0]} is not in docs/commands.md"
        if any(isinstance(p, click.Argument) for p in cmd.params):
            assert {s for s in said if not s.startswith("-")}, f"{command}'s arguments"
        if command in HOT and HOT[command].paths_after_dash:
            assert any(s.startswith("-- ") for s in said), f"{command} -- PATH..."
    for t in _CHECKED:
        for param in t["inputSchema"]["properties"]:
            assert (t["name"], param) in named_mcp, \
                f"{t['name']} {param} is not in docs/commands.md"
