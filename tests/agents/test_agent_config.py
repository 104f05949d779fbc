"""`git aide init --agent A`: our entries merged into the user's own agent settings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import TESTS, aide, aide_ok, git, make_repo

#: The variables our Codex table asks Codex to pass on to the server.
ENV_VARS = ('env_vars = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", '
            '"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "NO_COLOR"]')
CODEX_ENV_VARS = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "GIT_CONFIG_GLOBAL",
                  "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "NO_COLOR"]

#: A Claude Code settings file as a user may have it: their hooks, permissions, unknown keys.
USER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./scripts/guard.sh"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "futureKey": {"x": [1, 2, 3]},
}
USER_MCP = {"mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]}}}
USER_TOML = """# my codex settings
model = "o4"

[mcp_servers.db]
command = "db-mcp"   # read-only
args = ["--ro"]

[profiles.fast]
model = "o4-mini"
"""


def dump(doc: object) -> str:
    """JSON as editors and most tools write it."""
    return json.dumps(doc, indent=2) + "\n"


def files(repo: Path, *rels: str) -> dict[str, bytes | None]:
    """The bytes of these files (None when absent)."""
    return {r: (repo / r).read_bytes() if (repo / r).exists() else None for r in rels}


def test_claude_merges_with_the_users_settings(repo: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text(dump(USER_SETTINGS))
    (repo / ".mcp.json").write_text(dump(USER_MCP))
    original = files(repo, ".claude/settings.json", ".mcp.json")
    aide_ok(repo, "init", "--agent", "claude")
    once = files(repo, ".claude/settings.json", ".mcp.json")
    aide_ok(repo, "init", "--agent", "claude")
    r = aide_ok(repo, "init", "--agent", "claude")
    assert files(repo, ".claude/settings.json", ".mcp.json") == once  # three runs = one
    assert "already up to date" in r.stdout

    settings = json.loads(once[".claude/settings.json"] or b"")
    assert list(settings) == ["permissions", "hooks", "futureKey"]  # order kept
    assert settings["permissions"] == USER_SETTINGS["permissions"]
    assert settings["futureKey"] == USER_SETTINGS["futureKey"]
    hooks = settings["hooks"]
    assert hooks["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]  # theirs first
    assert hooks["PreToolUse"][1] == {"matcher": "Read|Edit|MultiEdit|Write|NotebookEdit|Bash",
                                      "hooks": [
        {"type": "command", "command": "git-aide hook pre-tool-use --agent claude",
         "timeout": 10}]}
    assert hooks["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    for event in ("session-start", "pre-tool-use", "post-tool-use", "user-prompt", "stop",
                  "pre-compact"):
        assert commands.count(f"git-aide hook {event} --agent claude") == 1
    servers = json.loads(once[".mcp.json"] or b"")["mcpServers"]
    assert list(servers) == ["db", "git-aide"] and servers["db"] == USER_MCP["mcpServers"]["db"]

    # --uninstall takes out only ours: the user's files come back byte for byte
    aide_ok(repo, "init", "--agent", "claude", "--uninstall")
    assert files(repo, ".claude/settings.json", ".mcp.json") == original
    aide_ok(repo, "init", "--agent", "claude", "--uninstall")  # and again: nothing to do
    assert files(repo, ".claude/settings.json", ".mcp.json") == original


def test_a_fresh_repo_gets_files_to_commit_as_they_are(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh", init=False)
    r = aide_ok(repo, "init", "--agent", "claude")
    assert ".mcp.json: created" in r.stdout and ".claude/settings.json: created" in r.stdout
    mcp = json.loads((repo / ".mcp.json").read_text())
    assert mcp == {"mcpServers": {"git-aide": {"type": "stdio", "command": "git-aide",
                                               "args": ["mcp"]}}}
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "set up git-aide for Claude Code")  # the pre-commit hook too
    aide_ok(repo, "init", "--agent", "claude")
    assert git(repo, "status", "--porcelain") == ""
    assert "ok: claude: git-aide is set up in .mcp.json, .claude/settings.json" in \
        aide_ok(repo, "doctor").stdout


def test_an_invalid_file_is_an_error_and_left_alone(repo: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text('{"hooks": {,}\n')
    r = aide(repo, "init", "--agent", "claude")
    assert r.returncode == 1
    assert r.stderr.startswith("git-aide: error: .claude/settings.json is not valid JSON")
    assert (repo / ".claude/settings.json").read_text() == '{"hooks": {,}\n'
    assert not (repo / ".mcp.json").exists()  # nothing half done
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text("[mcp_servers\n")
    r = aide(repo, "init", "--agent", "codex")
    assert r.returncode == 1 and "not valid TOML" in r.stderr
    assert (repo / ".codex/config.toml").read_text() == "[mcp_servers\n"
    assert "note: claude:" in aide(repo, "doctor").stdout


def test_codex_toml_keeps_every_other_byte(repo: Path) -> None:
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text(USER_TOML)
    aide_ok(repo, "init", "--agent", "codex")
    once = files(repo, ".codex/config.toml", ".codex/hooks.json")
    text = (once[".codex/config.toml"] or b"").decode()
    assert text.startswith(USER_TOML)
    assert text[len(USER_TOML):] == ('\n[mcp_servers.git-aide]\ncommand = "git-aide"\n'
                                     'args = ["mcp"]\nstartup_timeout_sec = 30\n'
                                     f'{ENV_VARS}\n')
    hooks = json.loads(once[".codex/hooks.json"] or b"")["hooks"]
    assert hooks["PreToolUse"][0]["hooks"][0]["command"] == \
        "git-aide hook pre-tool-use --agent codex"
    aide_ok(repo, "init", "--agent", "codex")
    aide_ok(repo, "init", "--agent", "codex")
    assert files(repo, ".codex/config.toml", ".codex/hooks.json") == once
    # a table of ours written by an older version, in the middle, is replaced in place
    (repo / ".codex/config.toml").write_text(USER_TOML.replace(
        "[profiles.fast]", '[mcp_servers.git-aide]\ncommand = "/old/git-aide"\nargs = ["mcp"]\n'
        '\n[profiles.fast]'))
    aide_ok(repo, "init", "--agent", "codex")
    text = (repo / ".codex/config.toml").read_text()
    assert text.count("[mcp_servers.git-aide]") == 1 and "/old/" not in text
    assert text.index("[mcp_servers.git-aide]") < text.index("[profiles.fast]")
    aide_ok(repo, "init", "--agent", "codex", "--uninstall")
    assert (repo / ".codex/config.toml").read_text() == USER_TOML
    assert not (repo / ".codex/hooks.json").exists()  # it held only ours


@pytest.mark.parametrize("agent, server_file, key, hooks_file, event", [
    ("cursor", ".cursor/mcp.json", "mcpServers", ".cursor/hooks.json", "preToolUse"),
    ("gemini", ".gemini/settings.json", "mcpServers", ".gemini/settings.json", "AfterTool"),
    ("vscode", ".vscode/mcp.json", "servers", None, None),
])
def test_other_agents(repo: Path, agent: str, server_file: str, key: str,
                      hooks_file: str | None, event: str | None) -> None:
    (repo / server_file).parent.mkdir(exist_ok=True)
    user = {"theme": "dark", key: {"mine": {"command": "mine-mcp"}}}
    (repo / server_file).write_text(dump(user))
    rels = [server_file] + ([hooks_file] if hooks_file and hooks_file != server_file else [])
    # --dry-run shows the change and writes nothing
    r = aide_ok(repo, "init", "--agent", agent, "--dry-run")
    assert f"+++ b/{server_file}" in r.stdout and '"git-aide"' in r.stdout
    assert json.loads((repo / server_file).read_text()) == user
    for _ in range(3):
        aide_ok(repo, "init", "--agent", agent)
    doc = json.loads((repo / server_file).read_text())
    assert list(doc[key]) == ["mine", "git-aide"] and doc["theme"] == "dark"
    assert doc[key]["git-aide"]["args"] == ["mcp"]
    if hooks_file:
        hooks = json.loads((repo / hooks_file).read_text())["hooks"]
        text = json.dumps(hooks[event])
        assert text.count(f"git-aide hook pre-tool-use --agent {agent}") == 1
    once = files(repo, *rels)
    aide_ok(repo, "init", "--agent", agent)
    assert files(repo, *rels) == once
    aide_ok(repo, "init", "--agent", agent, "--uninstall")
    assert (repo / server_file).read_text() == dump(user)
    if hooks_file and hooks_file != server_file:
        assert not (repo / hooks_file).exists()


@pytest.mark.parametrize("layout", [
    json.dumps(USER_SETTINGS, separators=(",", ":")),  # compact, no final newline
    json.dumps(USER_SETTINGS) + "\n",  # one line with spaces
    json.dumps(USER_SETTINGS, indent=4) + "\n",
    json.dumps(USER_SETTINGS, indent="\t"),
])
def test_uninstall_gives_back_the_users_layout(repo: Path, layout: str) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text(layout)
    aide_ok(repo, "init", "--agent", "claude")
    installed = (repo / ".claude/settings.json").read_text()
    assert "git-aide hook" in installed
    assert ("\n" in installed.strip()) == ("\n" in layout.strip())  # the same style
    aide_ok(repo, "init", "--agent", "claude", "--uninstall")
    assert (repo / ".claude/settings.json").read_text() == layout


def test_start_up_timeouts_cover_a_slow_start(repo: Path) -> None:
    """Gemini CLI gives a server 5 s in `gemini mcp list` and Codex 10 s unless told
    otherwise, less than a cold start takes on a loaded machine: each gets a timeout
    in its own key and unit, and a stale entry without one is brought up to date."""
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text(dump({"mcpServers": {"git-aide": {
        "command": "git-aide", "args": ["mcp"]}}}))
    r = aide_ok(repo, "init", "--agent", "gemini", "--agent", "codex")
    assert ".gemini/settings.json: updated" in r.stdout
    gemini = json.loads((repo / ".gemini/settings.json").read_text())["mcpServers"]
    assert gemini == {"git-aide": {"command": "git-aide", "args": ["mcp"], "timeout": 60000}}
    import tomlkit

    codex = tomlkit.parse((repo / ".codex/config.toml").read_text()).unwrap()
    assert codex["mcp_servers"]["git-aide"] == {"command": "git-aide", "args": ["mcp"],
                                                "startup_timeout_sec": 30,
                                                "env_vars": list(CODEX_ENV_VARS)}
    r = aide_ok(repo, "init", "--agent", "gemini", "--agent", "codex")
    assert r.stdout.count("already up to date") == 3


#: Copilot's hook events as git-aide installs them: camelCase where Copilot CLI answers
#: (its flat output), PascalCase PreCompact, the one name VS Code and Copilot CLI share.
COPILOT_EVENTS = {"sessionStart": ["session-start"], "userPromptSubmitted": ["user-prompt"],
                  "postToolUse": ["pre-tool-use", "post-tool-use"],
                  "agentStop": ["stop"], "PreCompact": ["pre-compact"]}


def test_copilot_and_vs_code_agent_hooks(repo: Path) -> None:
    """`--agent copilot`: the MCP server in `.github/mcp.json` (Copilot CLI's shared
    project file) and the hooks in `.github/hooks/git-aide.json`, in the format Copilot
    CLI, the cloud agent and VS Code all read: version 1, flat handlers with the command
    under `bash` and a timeout in seconds; no preToolUse, whose failure would deny the
    tool call. The user's own files stay theirs."""
    (repo / ".github/hooks").mkdir(parents=True)
    (repo / ".github/mcp.json").write_text(dump(USER_MCP))
    theirs = {"version": 1, "hooks": {"preToolUse": [{"type": "command",
                                                      "bash": "./scripts/guard.sh"}]}}
    (repo / ".github/hooks/guard.json").write_text(dump(theirs))
    r = aide_ok(repo, "init", "--agent", "copilot")
    assert ".github/mcp.json: updated" in r.stdout
    assert ".github/hooks/git-aide.json: created" in r.stdout
    servers = json.loads((repo / ".github/mcp.json").read_text())["mcpServers"]
    assert servers == {**USER_MCP["mcpServers"], "git-aide": {
        "type": "stdio", "command": "git-aide", "args": ["mcp"]}}
    doc = json.loads((repo / ".github/hooks/git-aide.json").read_text())
    assert doc["version"] == 1 and list(doc["hooks"]) == list(COPILOT_EVENTS)
    for event, ours in COPILOT_EVENTS.items():
        handlers = doc["hooks"][event]
        assert [h["bash"] for h in handlers] == \
            [f"git-aide hook {e} --agent copilot" for e in ours]
        for h in handlers:
            assert h["type"] == "command" and h["timeoutSec"] == 10 and "command" not in h
    reads = doc["hooks"]["postToolUse"][0]["matcher"].split("|")
    assert {"view", "edit", "create", "bash"} <= set(reads)
    assert json.loads((repo / ".github/hooks/guard.json").read_text()) == theirs
    once = files(repo, ".github/mcp.json", ".github/hooks/git-aide.json")
    assert "already up to date" in aide_ok(repo, "init", "--agent", "copilot").stdout
    assert files(repo, ".github/mcp.json", ".github/hooks/git-aide.json") == once
    assert "ok: copilot: git-aide is set up in .github/mcp.json, .github/hooks/git-aide.json" \
        in aide(repo, "doctor").stdout
    aide_ok(repo, "init", "--agent", "copilot", "--uninstall")
    assert (repo / ".github/mcp.json").read_text() == dump(USER_MCP)
    assert not (repo / ".github/hooks/git-aide.json").exists()
    assert json.loads((repo / ".github/hooks/guard.json").read_text()) == theirs


@pytest.mark.parametrize("sample", sorted((TESTS / "data" / "settings")
                                          .glob("*.json")), ids=lambda p: p.name)
def test_copilot_gives_every_layout_back(tmp_path: Path, sample: Path) -> None:
    """Copilot's files go through the same in-place editing as the other agents': a
    user's `.github/mcp.json` (or a hooks file of theirs under git-aide's name) in any
    layout comes back byte for byte."""
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".github/hooks").mkdir(parents=True)
    data = sample.read_bytes()
    for rel in (".github/mcp.json", ".github/hooks/git-aide.json"):
        (repo / rel).write_bytes(data)
    aide_ok(repo, "init", "--no-hooks", "--agent", "copilot")
    assert b"git-aide hook session-start --agent copilot" in (
        repo / ".github/hooks/git-aide.json").read_bytes()
    aide_ok(repo, "init", "--uninstall", "--agent", "copilot")
    for rel in (".github/mcp.json", ".github/hooks/git-aide.json"):
        assert (repo / rel).read_bytes() == data, rel


def test_an_earlier_copilot_hooks_file_is_brought_up_to_date(repo: Path) -> None:
    """The file an earlier git-aide wrote (PascalCase events, `command`, `timeout`) is
    recognised as git-aide's: install replaces it with today's hooks, every one once,
    and uninstall takes it away."""
    def handler(event: str, **more: str) -> dict[str, object]:
        return {"type": "command", "command": f"git-aide hook {event} --agent copilot",
                "timeout": 10, **more}

    earlier = {"version": 1, "hooks": {
        "SessionStart": [handler("session-start")],
        "PostToolUse": [handler("pre-tool-use", matcher="Read|Edit|Write|view|create|edit"),
                        handler("post-tool-use")],
        "Stop": [handler("stop")], "PreCompact": [handler("pre-compact")]}}
    fresh = make_repo(repo.parent / "fresh", init=False)
    aide_ok(fresh, "init", "--no-hooks", "--agent", "copilot")
    want = json.loads((fresh / ".github/hooks/git-aide.json").read_text())
    (repo / ".github/hooks").mkdir(parents=True)
    (repo / ".github/hooks/git-aide.json").write_text(dump(earlier))
    r = aide_ok(repo, "init", "--agent", "copilot")
    assert ".github/hooks/git-aide.json: updated" in r.stdout
    assert json.loads((repo / ".github/hooks/git-aide.json").read_text()) == want
    assert "ok: copilot: git-aide is set up" in aide(repo, "doctor").stdout
    aide_ok(repo, "init", "--agent", "copilot", "--uninstall")
    assert not (repo / ".github/hooks/git-aide.json").exists()


# -- the matchers, against the names the real programs give their tools ---------------------

PAYLOADS = TESTS / "data" / "payloads"
#: Each agent's hooks file, as `init --agent` writes it.
HOOKS_FILE = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json",
              "gemini": ".gemini/settings.json", "copilot": ".github/hooks/git-aide.json"}
#: Tool names beyond the recorded payloads (tests/data/payloads/): (file tools git-aide's
#: file hook must see, git-aide's reading MCP tools its post-tool-use hook must see,
#: tools neither may fire for), each as the program names them.
NAMES = {
    "claude": (["Edit", "MultiEdit", "Write", "NotebookEdit"],
               ["mcp__git-aide__aide_search", "mcp__git-aide__aide_memories"],
               ["Grep", "Glob", "WebFetch", "Task", "mcp__git-aide__aide_remember",
                "mcp__git-aide__aide_diff", "mcp__other__aide_recall"]),
    "codex": ([], ["mcp__git_aide__aide_search", "mcp__git_aide__aide_memories"],
              ["update_plan", "view_image", "mcp__git_aide__aide_remember",
               "mcp__other__aide_recall"]),
    "gemini": (["write_file", "replace"],
               ["mcp_git-aide_aide_search", "mcp__git-aide__aide_memories"],
               ["glob", "search_file_content", "list_directory", "web_fetch",
                "mcp_git-aide_aide_remember", "mcp_other_aide_recall"]),
    "copilot": (["create", "str_replace_editor", "apply_patch"],
                ["git-aide-aide_search", "git-aide/aide_memories"],
                ["grep", "glob", "web_fetch", "task", "ask_user", "git-aide/aide_remember",
                 "other/aide_recall"]),
}


def recorded_names(agent: str) -> tuple[set[str], set[str], set[str]]:
    """(file tools the agent's recorded tool events get memories for, git-aide's reading
    MCP tools among them, the other tools of its recorded events)."""
    reads: set[str] = set()
    aide_tools: set[str] = set()
    others: set[str] = set()
    for event in ("pre-tool-use", "post-tool-use"):
        for case in json.loads((PAYLOADS / f"{agent}-{event}.json").read_text())["cases"]:
            payload = case["payload"]
            name = payload.get("tool_name") or payload.get("toolName")
            if not name:
                continue
            if re.search(r"aide_(recall|search|memories)$", name):
                aide_tools.add(name)
            elif event == "pre-tool-use" and case["expect"]["shape"] != "none":
                reads.add(name)
            else:
                others.add(name)
    return reads, aide_tools, others - reads


def matchers(doc: dict[str, object]) -> dict[str, list[str]]:
    """Our hook event -> the matchers it is installed with, from a settings file."""
    out: dict[str, list[str]] = {}
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    for groups in hooks.values():
        for group in groups:
            handlers = group.get("hooks", [group])
            for h in handlers:
                command = h.get("command") or h.get("bash") or ""
                m = re.fullmatch(r"git-aide hook (\S+) --agent \w+", command)
                if m:
                    out.setdefault(m.group(1), []).append(group.get("matcher"))
    return out


@pytest.mark.parametrize("agent", sorted(HOOKS_FILE))
def test_matchers_fire_for_the_tools_each_program_really_names(tmp_path: Path,
                                                                agent: str) -> None:
    """Each matcher `init --agent` writes, run as the regular expression the program
    reads it as, fires the file hook for every file and shell tool the real program
    sends (Codex has no Read tool; Gemini names its MCP tools `mcp_git-aide_...`, Codex
    `mcp__git_aide__...`), the post-tool-use hook for git-aide's reading MCP tools, and
    neither for anything else. A name that must fire matches whole (as Copilot CLI
    anchors it); one that must not is not found anywhere in it (as Claude Code, Codex
    and Gemini CLI search)."""
    repo = make_repo(tmp_path / "repo", init=False)
    aide_ok(repo, "init", "--no-hooks", "--agent", agent)
    installed = matchers(json.loads((repo / HOOKS_FILE[agent]).read_text()))
    assert len(installed["pre-tool-use"]) == len(installed["post-tool-use"]) == 1
    (pre,), (post,) = installed["pre-tool-use"], installed["post-tool-use"]
    assert pre and post, installed
    reads, aide_tools, others = recorded_names(agent)
    more_reads, more_aide, neither = NAMES[agent]
    reads |= set(more_reads)
    aide_tools |= set(more_aide)

    def fires(matcher: str, name: str, must: bool) -> bool:
        if must or agent == "copilot":
            return re.fullmatch(matcher, name) is not None
        return re.search(matcher, name) is not None

    for name in reads:
        assert fires(pre, name, True), (agent, "pre-tool-use", pre, name)
        assert not fires(post, name, False), (agent, "post-tool-use", post, name)
    for name in aide_tools:
        assert fires(post, name, True), (agent, "post-tool-use", post, name)
        assert not fires(pre, name, False), (agent, "pre-tool-use", pre, name)
    for name in others | set(neither):
        assert not fires(pre, name, False), (agent, "pre-tool-use", pre, name)
        assert not fires(post, name, False), (agent, "post-tool-use", post, name)


def test_hook_help_names_every_agent(repo: Path) -> None:
    """`git aide hook -h` offers every agent `init --agent` sets hooks up for (--help
    opens the manual, as in git)."""
    r = aide_ok(repo, "hook", "-h")
    assert "[claude|codex|copilot|cursor|gemini|vscode]" in r.stdout
    assert aide_ok(repo, "hook", "stop", "--agent", "vscode", "-h").stdout
