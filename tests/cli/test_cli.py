"""The command line as a user meets it: help, version, usage errors, output modes."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import AIDE as AIDE_CMD
from helpers import BASE_ENV, aide, aide_ok, git, on_tty, remember

import git_aide

MAN = Path(sys.prefix) / "share" / "man" / "man1" / "git-aide.1"


def test_version(tmp_path: Path) -> None:
    r = aide_ok(tmp_path, "--version")
    assert r.stdout.strip() == f"git-aide version {git_aide.__version__}"


def test_short_help_is_usage(tmp_path: Path) -> None:
    r = aide_ok(tmp_path, "-h")
    assert "Usage:" in r.stdout and "recall" in r.stdout
    r = aide_ok(tmp_path, "recall", "-h")
    assert "--rev" in r.stdout and "--cached" in r.stdout


@pytest.mark.skipif(not MAN.exists() or not shutil.which("man"),
                    reason="needs a regular (not editable) install and man(1)")
@pytest.mark.parametrize("argv", [["aide", "--help"], ["help", "aide"]])
def test_git_help_opens_the_man_page(repo: Path, argv: list[str]) -> None:
    env = {"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = git(repo, *argv, env=env)
    assert "GIT-AIDE(1)" in out
    assert "git aide recall" in out


def test_direct_help_shows_the_man_page(tmp_path: Path) -> None:
    r = aide_ok(tmp_path, "--help", env={"MANPAGER": "cat", "PAGER": "cat"})
    assert "git-aide" in r.stdout and "recall" in r.stdout
    assert "SYNOPSIS" in r.stdout or ".SH SYNOPSIS" in r.stdout


def test_usage_errors_are_one_line_with_status_2(repo: Path) -> None:
    for args in (["recall", "--nope"], ["remember"], ["forget"], ["search"],
                 ["recall", "--limit", "x"]):
        r = aide(repo, *args)
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), r.stderr


def test_no_color_and_plain_output(repo: Path) -> None:
    remember(repo, "a fact", "--tag", "x")
    out = aide_ok(repo, "recall", env={"NO_COLOR": "1"}).stdout
    assert "\x1b[" not in out and "a fact" in out
    out = aide_ok(repo, "show", remember(repo, "another")["uuid"]).stdout
    assert "what" in out and "another" in out


def test_init_is_idempotent(repo: Path) -> None:
    aide_ok(repo, "init")
    before = {p: p.read_bytes() for p in (repo / ".gitignore", repo / ".gitattributes")}
    r = aide_ok(repo, "init")
    assert "nothing changed" in r.stdout
    assert {p: p.read_bytes() for p in before} == before
    assert (repo / ".gitignore").read_text().count("preferences/personal") == 1
    assert ".aide/memories/**/*.json merge=aide" in (repo / ".gitattributes").read_text()


def test_init_agent_claude_writes_settings_not_rules(repo: Path) -> None:
    (repo / "CLAUDE.md").write_text("# House rules\n")
    aide_ok(repo, "init", "--agent", "claude")
    assert (repo / "CLAUDE.md").read_text() == "# House rules\n"  # export's job now
    servers = json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    assert servers["git-aide"] == {"type": "stdio", "command": "git-aide", "args": ["mcp"]}


def test_terminal_output_is_a_table_per_layer(repo: Path) -> None:
    """On a terminal (a pseudo-terminal here), `list` prints rich tables grouped by layer,
    `recall` one table in rank order, numbered; NO_COLOR kept."""
    remember(repo, "a technical fact", "--tag", "x")
    remember(repo, "a team rule", "--layer", "guidelines")

    def run_on_tty(env: dict[str, str], command: str = "list") -> str:
        return on_tty(repo, [*AIDE_CMD, command], {**BASE_ENV, **env})[1]

    out = run_on_tty({"COLUMNS": "100"})
    assert "technical" in out and "guidelines" in out
    assert out.index("technical") < out.index("guidelines")
    assert "┏" in out or "┃" in out  # a table, not the plain listing
    assert "\x1b[36m" in out  # the cyan id column
    plain = run_on_tty({"COLUMNS": "100", "NO_COLOR": "1"})
    assert "a team rule" in plain and "\x1b[36m" not in plain
    # recall: the newest first, whatever its layer, each with its rank
    ranked = run_on_tty({"COLUMNS": "100", "NO_COLOR": "1"}, "recall")
    assert ranked.index("a team rule") < ranked.index("a technical fact")
    assert "guidelines" in ranked and "#" in ranked
