"""`doctor` and `init --agent` start the MCP server the agents' settings name and say
whether it answers in time, whether git would keep the files from the team, and which
one-time approval each agent still waits for (issue 20, items 1 and 3)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from helpers import AIDE, BASE_ENV, git, make_repo

#: Variables through which the agents find their user settings: each test sets its own.
AGENT_VARS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_TRUST_WORKSPACE",
              "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "MCP_TIMEOUT")


def run(repo: Path, *args: str, home: Path, path: str | None = None,
        **env: str) -> subprocess.CompletedProcess[str]:
    """git-aide with a home of its own (the agents' user settings live there), a time
    limit (a hang fails the test instead of the run) and, if given, another PATH."""
    base = {k: v for k, v in BASE_ENV.items() if k not in AGENT_VARS}
    base["HOME"] = str(home)
    if path is not None:
        base["PATH"] = path
    proc = subprocess.run([*AIDE, *args], cwd=repo, capture_output=True, text=True,
                          env={**base, **env}, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def lines(out: str, start: str) -> list[str]:
    """The lines of `out` that start with `start`."""
    return [line for line in out.splitlines() if line.startswith(start)]


def fake_server(folder: Path, body: str) -> str:
    """A folder holding a `git-aide` that is not git-aide (a broken or stuck install),
    first on a PATH that still finds git: what PATH an agent starting it would see."""
    folder.mkdir()
    script = folder / "git-aide"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    return f"{folder}{os.pathsep}{git_dir}"


def test_doctor_starts_the_server_and_says_it_answers(tmp_path: Path) -> None:
    """A set-up that works: doctor started the real server, which answered initialize
    and listed its tools within what each agent waits."""
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    r = run(repo, "init", "--agent", "claude", "--agent", "gemini", "--agent", "codex",
            home=home)
    assert r.returncode == 0, r.stderr
    out = run(repo, "doctor", home=home).stdout
    for agent, rel, who in (("claude", ".mcp.json", "Claude Code waits 30 s"),
                            ("codex", ".codex/config.toml", "Codex waits 30 s"),
                            ("gemini", ".gemini/settings.json", "Gemini CLI waits 60 s")):
        found = lines(out, f"ok: {agent}: the MCP server {rel} starts (git-aide mcp) "
                           "answers initialize in ")
        assert len(found) == 1, out
        assert who in found[0] and " tools" in found[0]


def test_a_server_that_cannot_start_is_a_problem_and_init_refuses(tmp_path: Path) -> None:
    """The reported case: the git-aide the agents start exits before answering (an
    install without the MCP SDK). init --agent writes the files but fails, saying why
    and what to do; doctor calls it a problem instead of `ok`."""
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    path = fake_server(tmp_path / "bin", "echo 'git-aide: error: the MCP server needs the "
                                         "MCP SDK' >&2\nexit 1")
    r = run(repo, "init", "--agent", "claude", home=home, path=path)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "git-aide: error: the git-aide MCP server that .mcp.json starts cannot start: it "
        "stopped before answering: the MCP server needs the MCP SDK; fix: reinstall "
        "git-aide the way you installed it, with its dependencies; `git-aide mcp` here "
        "shows the whole error"]
    assert ".mcp.json: created" in r.stdout  # the files are right: the install is not
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"]["git-aide"]["args"] \
        == ["mcp"]
    d = run(repo, "doctor", home=home, path=path)
    assert d.returncode == 1
    assert "ok: claude: git-aide is set up in .mcp.json, .claude/settings.json" in d.stdout
    assert lines(d.stdout, "problem: claude: the MCP server .mcp.json starts (git-aide mcp) "
                           "cannot start: it stopped before answering: the MCP server "
                           "needs the MCP SDK; fix: reinstall git-aide")


def test_git_aide_not_on_the_agents_path(tmp_path: Path) -> None:
    """The agent starts `git-aide` by name: a PATH without it is named, with the folder
    to add."""
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    run(repo, "init", "--agent", "gemini", home=home)
    only_git = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    d = run(repo, "doctor", home=home, path=only_git)
    found = lines(d.stdout, "problem: gemini: the MCP server .gemini/settings.json starts "
                            "(git-aide mcp) cannot start: `git-aide` is not on PATH")
    assert len(found) == 1 and "fix: put git-aide on the PATH the agent starts with" in \
        found[0]


def test_a_server_that_never_answers_is_given_the_agents_time_only(tmp_path: Path) -> None:
    """A server that hangs: doctor waits what the agent's settings say (here a timeout
    of 1,500 ms written by hand in Gemini's file), stops it, and says so."""
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"git-aide": {
        "command": "git-aide", "args": ["mcp"], "timeout": 1500}}}))
    path = fake_server(tmp_path / "bin", "exec sleep 311")
    d = run(repo, "doctor", home=home, path=path)  # within run's 60 s, not 311
    assert lines(d.stdout, "problem: gemini: the MCP server .gemini/settings.json starts "
                           "(git-aide mcp) cannot start: it did not answer initialize "
                           "within 1.5 s")
    # what doctor started is gone
    assert subprocess.run(["pgrep", "-fx", "sleep 311"], capture_output=True).stdout == b""


def test_an_ignored_settings_file_is_named_with_the_fix(tmp_path: Path) -> None:
    """A .gitignore that ignores `.vscode/` keeps the server entry from the team:
    init says so, doctor calls it a problem until the file is added by force."""
    repo = make_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    with open(repo / ".gitignore", "a") as f:
        f.write(".vscode/\n")
    r = run(repo, "init", "--agent", "vscode", home=home)
    assert r.returncode == 0, r.stderr
    assert "note: .vscode/mcp.json is ignored by git (.gitignore:" in r.stdout
    assert "git add -f .vscode/mcp.json" in r.stdout
    d = run(repo, "doctor", home=home)
    found = lines(d.stdout, "problem: .vscode/mcp.json is ignored by git (.gitignore:")
    assert len(found) == 1 and found[0].endswith("fix: git add -f .vscode/mcp.json")
    git(repo, "add", "-f", ".vscode/mcp.json")
    assert not lines(run(repo, "doctor", home=home).stdout, "problem: .vscode/mcp.json")


def test_approvals_each_agent_still_waits_for(tmp_path: Path) -> None:
    """A new user: doctor names the one-time step each agent still waits for and the
    exact way to take it; once taken (as the agents record it), it says so. The user's
    own settings are only read."""
    repo = make_repo(tmp_path / "repo")
    top = str(repo.resolve())
    home = tmp_path / "home"
    home.mkdir()
    run(repo, "init", "--agent", "claude", "--agent", "gemini", "--agent", "codex", home=home)
    out = run(repo, "doctor", home=home).stdout
    assert lines(out, "note: claude: Claude Code has not approved the project's git-aide "
                      "server yet")
    assert '"enabledMcpjsonServers": ["git-aide"] to .claude/settings.local.json' in out
    assert lines(out, "note: gemini: Gemini CLI does not trust this folder yet: run `gemini` "
                      "here and choose \"Trust folder\"")
    codex = lines(out, "note: codex: Codex does not trust this project yet")
    assert len(codex) == 1
    assert f'[projects."{top}"] trust_level = "trusted"' in codex[0]
    assert "/hooks" in codex[0]

    # the steps, taken as each agent records them
    (repo / ".claude/settings.local.json").write_text(
        '{"enabledMcpjsonServers": ["git-aide"]}\n')
    (home / ".gemini").mkdir()
    (home / ".gemini/trustedFolders.json").write_text(
        json.dumps({str(repo.parent.resolve() / "repo"): "TRUST_FOLDER"}))
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(f'[projects."{top}"]\ntrust_level = "trusted"\n')
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    out = run(repo, "doctor", home=home).stdout
    assert ("ok: claude: Claude Code has approved the project's git-aide server "
            "(.claude/settings.local.json)") in out
    assert "ok: gemini: Gemini CLI trusts this folder (~/.gemini/trustedFolders.json)" in out
    assert lines(out, "note: codex: Codex trusts this project (~/.codex/config.toml); one "
                      "step is left, which doctor cannot see: type /hooks in codex and trust "
                      "git-aide's hooks")
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


def test_approvals_recorded_in_the_home_and_refusals(tmp_path: Path) -> None:
    """Claude Code's own record (~/.claude.json, per project), a parent folder trusted
    in Gemini CLI, and a refusal in each: said as the user's choice, with how to undo it."""
    repo = make_repo(tmp_path / "work" / "repo")
    top = str(repo.resolve())
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    run(repo, "init", "--agent", "claude", "--agent", "gemini", home=home)
    (home / ".claude.json").write_text(json.dumps(
        {"projects": {top: {"enabledMcpjsonServers": ["git-aide"]}}}))
    (home / ".gemini/trustedFolders.json").write_text(
        "// trusted by the dialog\n" + json.dumps({top: "TRUST_PARENT"}))
    out = run(repo, "doctor", home=home).stdout
    assert lines(out, "ok: claude: Claude Code has approved the project's git-aide server "
                      "(~/.claude.json")
    assert lines(out, "ok: gemini: Gemini CLI trusts this folder")

    (home / ".claude.json").write_text(json.dumps(
        {"projects": {top: {"disabledMcpjsonServers": ["git-aide"]}}}))
    (home / ".gemini/trustedFolders.json").write_text(json.dumps({top: "DO_NOT_TRUST"}))
    d = run(repo, "doctor", home=home)
    assert lines(d.stdout, "note: claude: you rejected the project's git-aide server in "
                           "Claude Code (~/.claude.json")
    assert lines(d.stdout, "note: gemini: you told Gemini CLI not to trust this folder")
    assert not lines(d.stdout, "problem: claude: Claude") and not lines(
        d.stdout, "problem: gemini: Gemini")  # a user's choice, not a broken set-up
