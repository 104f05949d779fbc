"""Each agent's hook events as the agents send them, through the real `git aide hook`.

tests/data/payloads/AGENT-EVENT.json holds, for every agent and every event, payloads
recorded from the real programs where they could be run (Claude Code, Codex CLI, Gemini
CLI) and documented ones otherwise (Copilot CLI, VS Code, Cursor), each file saying where
its payloads came from. Each is run as the agent runs it and the reply checked: the
agent's own format, the memories of the files its tool touches (Codex `apply_patch` and
shell reads, Gemini `read_many_files` and MCP names included), never a rule the agent
already loads from its own files, always within the budget.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, TESTS, aide, aide_ok, commit, git, make_repo
from helpers import write_memory as write

PAYLOADS = TESTS / "data" / "payloads"
AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "vscode")
EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "user-prompt", "stop",
          "pre-compact")
SESSION_KEYS = ("session_id", "sessionId", "conversation_id")


# -- helpers ---------------------------------------------------------------------------------

def hook(repo: Path, event: str, data: Any, agent: str,
         env: dict[str, str] | None = None) -> str:
    """Run `git aide hook EVENT --agent AGENT` with the event on stdin; its stdout."""
    r = aide(repo, "hook", event, "--agent", agent, input=json.dumps(data), env=env)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout


def files(repo: Path, *names: str) -> None:
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(f"# {name}\n")


def claude_read(repo: Path, rel: str, session: str) -> dict[str, Any]:
    """A Claude Code PreToolUse for Read, as recorded from Claude Code 2.1.197."""
    return {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {"file_path": str(repo / rel)},
            "tool_use_id": "toolu_0"}


def gemini_read(repo: Path, rel: str, session: str, transcript: str) -> dict[str, Any]:
    """A Gemini CLI AfterTool for read_file, as recorded from Gemini CLI 0.61.0."""
    return {"session_id": session, "transcript_path": transcript, "cwd": str(repo),
            "hook_event_name": "AfterTool", "timestamp": "2026-11-25T22:10:49.521Z",
            "tool_name": "read_file", "tool_input": {"file_path": rel},
            "tool_response": {"llmContent": f"# {rel}\n", "returnDisplay": ""}}


def context(out: str) -> str:
    """The additionalContext of a hookSpecificOutput reply ("" for no reply)."""
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def reply_text(case: dict[str, Any], doc: dict[str, Any], data: dict[str, Any],
               out: str) -> str:
    """The text the agent receives from `out`, after checking the reply has exactly the
    agent's shape for this event."""
    shape = case["expect"]["shape"]
    if shape == "none":
        assert out == "", out
        return ""
    reply = json.loads(out)
    if shape == "hookSpecificOutput":
        assert set(reply) == {"hookSpecificOutput"}, reply
        fired = data.get("hook_event_name") or data.get("hookEventName") or doc["hook"]
        assert reply["hookSpecificOutput"]["hookEventName"] == fired
        assert set(reply["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        return reply["hookSpecificOutput"]["additionalContext"]
    if shape == "stop":
        decision = "deny" if doc["agent"] == "gemini" else "block"
        assert set(reply) == {"decision", "reason"} and reply["decision"] == decision, reply
        return reply["reason"]
    if shape == "flat_stop":
        assert set(reply) == {"decision", "reason"} and reply["decision"] == "block", reply
        return reply["reason"]
    if shape == "vscode_stop":
        assert reply["hookSpecificOutput"] == {"hookEventName": "Stop", "decision": "block",
                                               "reason": reply["reason"]}, reply
        return reply["reason"]
    assert set(reply) == {shape}, reply  # additionalContext, agent_message, ...
    return reply[shape]


def fill(payload: Any, repo: Path, ids: dict[str, str], session: str) -> dict[str, Any]:
    """A recorded payload for this test's repository: its paths, its memory ids and a
    session of its own."""
    text = json.dumps(payload)
    text = text.replace("@REPO@", str(repo)).replace("@HOME@", str(repo.parent / "home"))
    text = re.sub(r"@UUID:(\w+)@", lambda m: ids[m.group(1)], text)
    text = re.sub(r"@ID8:(\w+)@", lambda m: ids[m.group(1)][:8], text)
    data = json.loads(text)
    for key in SESSION_KEYS:
        if key in data:
            data[key] = session
    return data


def session_of(data: dict[str, Any]) -> str:
    return next(data[k] for k in SESSION_KEYS if k in data)


def stock(repo: Path) -> dict[str, str]:
    """The memories every payload is run against; {word: uuid} of a few."""
    files(repo, "src/auth/login.py", "src/auth/tokens.py", "src/db/store.py",
          "docs/guide.md", "README.md")
    rotate = write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**",
                   why="the 2023 incident")
    write(repo, "login.py must stay free of database calls", "area_context",
          scope="src/auth/login.py")
    write(repo, "db migrations are reviewed twice", "area_context", scope="src/db/**")
    write(repo, "review every pull request within a day", "guidelines")
    write(repo, "Ada prefers small commits", "preferences")
    write(repo, "the CI runs on Python 3.10", priority="always")
    commit(repo)
    git(repo, "config", "aide.hooks.reflect", "true")
    return {"rotate": rotate["uuid"]}


@pytest.fixture(scope="module")
def corpus_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = make_repo(tmp_path_factory.mktemp("payloads") / "repo")
    return repo, stock(repo)


def corpus() -> list[tuple[str, int]]:
    out = []
    for path in sorted(PAYLOADS.glob("*.json")):
        doc = json.loads(path.read_text())
        out += [(path.name, i) for i in range(len(doc["cases"]))]
    return out


# -- the corpus: every agent, every event ----------------------------------------------------

def test_the_corpus_covers_every_agent_and_event() -> None:
    names = {p.name for p in PAYLOADS.glob("*.json")}
    assert names == {f"{a}-{e}.json" for a in AGENTS for e in EVENTS}
    for name in names:
        doc = json.loads((PAYLOADS / name).read_text())
        assert f"{doc['agent']}-{doc['event']}.json" == name
        assert doc["source"].startswith(("Recorded from", "Documented:")), name
        assert doc["cases"], name


@pytest.mark.parametrize(("name", "index"), corpus(), ids=lambda v: str(v))
def test_each_recorded_payload_gets_its_agents_reply(
        corpus_repo: tuple[Path, dict[str, str]], name: str, index: int) -> None:
    repo, ids = corpus_repo
    doc = json.loads((PAYLOADS / name).read_text())
    case = doc["cases"][index]
    expect = case["expect"]
    data = fill(case["payload"], repo, ids, f"{name}-{index}")
    agent, event = doc["agent"], doc["event"]
    session = session_of(data)
    given = expect.get("then_injected_again") or expect.get("then_not_injected_again")
    transcript = case.get("transcript")
    if transcript:
        # the agent's transcript as it stood, the session started on it, its file read
        # (through the agent's own event); what the agent writes after the event follows it
        path = repo.parent / "home" / f"{name}-{index}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n"
                                for x in transcript["before"]))
        data["transcript_path"] = str(path)
        hook(repo, "session-start", {"session_id": session, "transcript_path": str(path),
                                     "cwd": str(repo), "hook_event_name": "SessionStart",
                                     "source": "startup"}, agent)

        def read(rel: str) -> str:
            return context(hook(repo, "pre-tool-use", gemini_read(repo, rel, session, str(path)),
                                agent))
    else:
        def read(rel: str) -> str:
            return context(hook(repo, "pre-tool-use", claude_read(repo, rel, session), "claude"))
    if given:  # the session was given the file's memories
        assert "rotate hourly" in read(given)
    out = hook(repo, event, data, agent)
    if transcript:
        with open(data["transcript_path"], "a") as f:
            f.write("".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n"
                            for x in transcript["after"]))
    text = reply_text(case, doc, data, out)
    for want in expect.get("contains", []):
        assert want in text, (name, case["name"], text)
    for unwanted in expect.get("absent", []):
        assert unwanted not in text, (name, case["name"], text)
    if expect.get("reflect"):
        assert "aide_remember" in text
    if "then_not_injected" in expect:  # what the agent fetched is not injected again
        assert "rotate hourly" not in read(expect["then_not_injected"])
    if "then_not_injected_again" in expect:  # the context still holds it: not again
        assert "rotate hourly" not in read(expect["then_not_injected_again"])
    if "then_injected_again" in expect:  # compaction forgot it: given again
        assert "rotate hourly" in read(expect["then_injected_again"])


# -- item 6: never send what the agent loads from its own files ------------------------------

def rules_repo(tmp_path: Path) -> Path:
    """A repository laid out as modelcontextprotocol/python-sdk is: CLAUDE.md only imports
    AGENTS.md, whose rules were imported; one rule written by hand is also in CLAUDE.md."""
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py", "src/db/store.py")
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n\n- Run the linter before every commit\n")
    (repo / "AGENTS.md").write_text(
        "# Development\n\n- ONLY use uv, NEVER pip\n- Type hints are required on public "
        "functions\n")
    aide_ok(repo, "import", "AGENTS.md")
    write(repo, "Run the linter before every commit", "guidelines")
    write(repo, "review every pull request within a day", "guidelines")
    commit(repo)
    return repo


def test_session_start_leaves_out_the_rules_each_agent_loads_itself(tmp_path: Path) -> None:
    repo = rules_repo(tmp_path)
    start = {"hook_event_name": "SessionStart", "cwd": str(repo), "source": "startup"}
    # Claude Code reads CLAUDE.md and, through `@AGENTS.md`, AGENTS.md: none of either
    text = context(hook(repo, "session-start", {**start, "session_id": "c"}, "claude"))
    assert "review every pull request" in text
    for rule in ("ONLY use uv", "Type hints are required", "Run the linter"):
        assert rule not in text, text
    # Codex reads AGENTS.md, not CLAUDE.md
    text = context(hook(repo, "session-start", {**start, "session_id": "x"}, "codex"))
    assert "ONLY use uv" not in text and "Run the linter before every commit" in text
    # Gemini CLI reads GEMINI.md: it gets them all
    text = context(hook(repo, "session-start", {**start, "session_id": "g"}, "gemini"))
    for rule in ("ONLY use uv", "Type hints are required", "Run the linter",
                 "review every pull request"):
        assert rule in text, text
    # ...unless its settings name AGENTS.md as a context file
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text(
        json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}))
    text = context(hook(repo, "session-start", {**start, "session_id": "g2"}, "gemini"))
    assert "ONLY use uv" not in text and "Run the linter" in text


def test_a_file_claude_links_to_counts_as_loaded(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "AGENTS.md").write_text("- Never commit generated protobuf files\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    aide_ok(repo, "import", "AGENTS.md")
    commit(repo)
    start = {"hook_event_name": "SessionStart", "cwd": str(repo), "source": "startup"}
    assert hook(repo, "session-start", {**start, "session_id": "l"}, "claude") == ""
    assert "protobuf" in context(hook(repo, "session-start", {**start, "session_id": "m"},
                                      "gemini"))


def test_file_memories_leave_out_the_nested_claude_md_claude_reads_there(tmp_path: Path
                                                                         ) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py")
    (repo / "src" / "auth" / "CLAUDE.md").write_text(
        "- Tokens are signed with the KMS key, never a local secret\n")
    aide_ok(repo, "import", "src/auth/CLAUDE.md")  # scoped to src/auth/**
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "auth.md").write_text(
        "---\npaths: src/auth/**\n---\n- Log every failed login with its client address\n")
    write(repo, "Log every failed login with its client address", "area_context",
          scope="src/auth/**")
    commit(repo)
    text = context(hook(repo, "pre-tool-use", claude_read(repo, "src/auth/login.py", "c"),
                        "claude"))
    assert "rotate hourly" in text
    assert "KMS key" not in text and "failed login" not in text, text
    # Codex reads neither a CLAUDE.md nor .claude/rules: its apply_patch gets them
    patch = {"session_id": "x", "cwd": str(repo), "hook_event_name": "PreToolUse",
             "model": "gpt-5.5", "tool_name": "apply_patch", "tool_use_id": "call_1",
             "tool_input": {"command": "*** Begin Patch\n*** Update File: src/auth/login.py\n"
                                       "@@\n-a\n+b\n*** End Patch\n"}}
    text = context(hook(repo, "pre-tool-use", patch, "codex"))
    assert "KMS key" in text and "failed login" in text and "rotate hourly" in text
    # VS Code runs .claude/settings.json's hooks too, but reads no nested CLAUDE.md: the
    # program that sent the event decides, not the hook's --agent
    vscode = {"timestamp": "2026-11-25T22:00:00.000Z", "cwd": str(repo), "sessionId": "v",
              "hookEventName": "PreToolUse", "tool_name": "read_file", "tool_use_id": "t",
              "tool_input": {"filePath": str(repo / "src/auth/login.py")}}
    text = context(hook(repo, "pre-tool-use", vscode, "claude"))
    assert "KMS key" in text and "failed login" not in text


# -- item 7: session start by importance, imported rules in their file's order ---------------

def test_session_start_keeps_the_order_of_the_imported_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    rules = ["ONLY use uv, NEVER pip"] + [
        f"Rule {i:02d}: keep the handlers of module {i} free of global state" for i in range(60)]
    (repo / "AGENTS.md").write_text("# Rules\n\n" + "".join(f"- {r}\n" for r in rules))
    aide_ok(repo, "import", "AGENTS.md")
    write(repo, "the CI runs on Python 3.10", priority="always")
    write(repo, "Ada prefers small commits", "preferences")
    commit(repo)
    start = {"session_id": "order", "hook_event_name": "SessionStart", "cwd": str(repo),
             "source": "startup"}
    text = context(hook(repo, "session-start", start, "gemini"))  # Gemini reads GEMINI.md
    assert len(text) <= 2000
    lines = [x for x in text.splitlines() if x.startswith("- ")]
    assert "the CI runs on Python 3.10" in lines[0]
    assert "ONLY use uv, NEVER pip" in lines[1]
    shown = [re.search(r"Rule (\d\d)", x) for x in lines[2:]]
    numbers = [int(m.group(1)) for m in shown if m]
    assert numbers == list(range(len(numbers))) and len(numbers) >= 10
    assert re.search(r"\d+ more: call aide_memories", text.splitlines()[-1])
    assert "Ada prefers" not in text  # a personal preference after the team's rules


def test_one_long_memory_does_not_take_the_whole_session_start(tmp_path: Path) -> None:
    """A procedure kept whole with its steps and code (the importer keeps a rule with its
    list) is cut to a line, with its id for aide_recall: the rules after it still go in."""
    repo = make_repo(tmp_path / "repo")
    steps = " ".join(f"Step {i}: run `make release-{i}` and check the log." for i in range(60))
    long = write(repo, "To cut a release, follow these steps: " + steps, "guidelines",
                 priority="always")
    for rule in ("review every pull request within a day", "never force-push to main",
                 "tag releases as vX.Y.Z"):
        write(repo, rule, "guidelines")
    commit(repo)
    start = {"session_id": "long", "hook_event_name": "SessionStart", "cwd": str(repo),
             "source": "startup"}
    text = context(hook(repo, "session-start", start, "claude"))
    assert len(text) <= 2000
    first = text.splitlines()[1]
    assert first.startswith("- To cut a release") and "\u2026" in first
    assert first.endswith(f"id:{long['uuid'][:8]}") and len(first) < 600
    for rule in ("review every pull request", "never force-push", "tag releases"):
        assert rule in text


# -- item 8: Codex has no Read tool ------------------------------------------------------------

def codex_bash(repo: Path, command: str, session: str) -> dict[str, Any]:
    """A Codex PreToolUse for its shell tool, as recorded from Codex CLI 0.169.0."""
    return {"session_id": session, "turn_id": "t", "transcript_path": None, "cwd": str(repo),
            "hook_event_name": "PreToolUse", "model": "gpt-5.5",
            "permission_mode": "bypassPermissions", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "call_0"}


@pytest.mark.parametrize("command", [
    "cat src/auth/login.py",
    "sed -n '1,80p' src/auth/login.py",
    "head -n 20 src/auth/login.py | grep -n def",
    "nl -ba src/auth/login.py | sed -n '10,20p'",
    "tail -5 'src/auth/login.py'",
    "cd src && rg -n 'def login' auth",
    "cd src/auth && less login.py",
    "grep -rn TOKEN src/auth/login.py src/auth/tokens.py",
    "ls -la src/auth",
    "bash -lc \"sed -n '1,5p' src/auth/login.py\"",
])
def test_codex_shell_reads_get_the_files_memories(tmp_path: Path, command: str) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py", "src/auth/tokens.py", "src/db/store.py")
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    write(repo, "db migrations are reviewed twice", "area_context", scope="src/db/**")
    commit(repo)
    text = context(hook(repo, "pre-tool-use", codex_bash(repo, command, "s"), "codex"))
    assert "rotate hourly" in text and "migrations" not in text, (command, text)


def test_a_shell_command_is_read_never_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py", "src/db/store.py")
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    commit(repo)
    before = git(repo, "status", "--porcelain")
    command = ("cat src/auth/login.py; touch PWNED; rm -f src/db/store.py && "
               "cat $(touch PWNED2) `touch PWNED3` > out.txt")
    text = context(hook(repo, "pre-tool-use", codex_bash(repo, command, "r"), "codex"))
    assert "rotate hourly" in text
    assert not any((repo / n).exists() for n in ("PWNED", "PWNED2", "PWNED3", "out.txt"))
    assert (repo / "src" / "db" / "store.py").exists()
    assert git(repo, "status", "--porcelain") == before
    # commands that read nothing of ours say nothing, without opening the repository
    for quiet in ("npm test", "echo 'unclosed", "cat /etc/hostname", "python -c 'print(1)'"):
        assert hook(repo, "pre-tool-use", codex_bash(repo, quiet, "q"), "codex") == ""


def test_huge_patches_and_commands_are_read_within_bounds(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py")
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    commit(repo)
    patch = "*** Begin Patch\n*** Update File: src/auth/login.py\n" + "".join(
        f"*** Add File: gen/f{i}.py\n+x\n" for i in range(200_000)) + "*** End Patch\n"
    command = "cat src/auth/login.py " + " ".join(f"gen/f{i}.py" for i in range(200_000))
    for tool, text in (("apply_patch", patch), ("Bash", command)):
        data = {**codex_bash(repo, text, tool), "tool_name": tool}
        proc = subprocess.run([*AIDE, "hook", "pre-tool-use", "--agent", "codex"], cwd=repo,
                              env=BASE_ENV, input=json.dumps(data), capture_output=True,
                              text=True, timeout=20)
        assert proc.returncode == 0 and "rotate hourly" in context(proc.stdout), proc.stderr


# -- item 9: Gemini CLI ------------------------------------------------------------------------

def test_gemini_does_not_read_its_own_session_context_as_a_correction(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, "Never use pip; always use uv from now on", "guidelines")
    commit(repo)
    base = {"session_id": "g", "cwd": str(repo), "hook_event_name": "SessionStart",
            "timestamp": "2026-11-25T22:03:41.839Z", "source": "startup"}
    injected = context(hook(repo, "session-start", base, "gemini"))
    assert "always use uv" in injected
    # gemini -p prepends it to the first prompt, BeforeAgent then sees it there
    prompt = f"<hook_context>{injected}</hook_context>\n\nadd a test for the parser"
    before_agent = {**base, "hook_event_name": "BeforeAgent", "prompt": prompt}
    assert hook(repo, "user-prompt", before_agent, "gemini") == ""
    # the same text without the tags (interactive: the first turn of the history)
    assert hook(repo, "user-prompt", {**before_agent, "prompt": injected + "\n\nadd a test"},
                "gemini") == ""
    # the user's own correction after it still gets the nudge
    own = {**before_agent, "prompt": prompt.replace("add a test for the parser",
                                                     "no, use tabs from now on")}
    assert "aide_remember" in context(hook(repo, "user-prompt", own, "gemini"))


def test_gemini_mcp_tool_names_with_one_underscore_are_recorded(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py")
    rotate = write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    commit(repo)
    after = {"session_id": "m", "cwd": str(repo), "hook_event_name": "AfterTool",
             "tool_name": "mcp_git-aide_aide_recall", "tool_input": {"paths": ["src/auth"]},
             "tool_response": {"llmContent": [{"text": f"- [src/auth/**] auth tokens rotate "
                                                       f"hourly `{rotate['uuid'][:8]}`"}]},
             "mcp_context": {"server_name": "git-aide", "tool_name": "aide_recall"}}
    assert hook(repo, "post-tool-use", after, "gemini") == ""
    read = {**after, "tool_name": "read_file", "tool_input": {"file_path": "src/auth/login.py"},
            "tool_response": {"llmContent": "..."}}
    read.pop("mcp_context")
    assert hook(repo, "pre-tool-use", read, "gemini") == ""  # already in its context


def test_gemini_read_many_files_and_at_paths_get_the_files_memories(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/db/store.py", "src/db/models.py", "docs/guide.md")
    write(repo, "db migrations are reviewed twice", "area_context", scope="src/db/**")
    commit(repo)
    many = {"session_id": "r", "cwd": str(repo), "hook_event_name": "AfterTool",
            "tool_name": "read_many_files", "tool_input": {"include": ["src/db/**/*.py"]},
            "tool_response": {"llmContent": ["--- src/db/store.py ---\n\nx\n\n"]}}
    assert "migrations" in context(hook(repo, "pre-tool-use", many, "gemini"))
    # Gemini CLI 0.61 reads `@path` prompts with read_many_files and fires no AfterTool:
    # BeforeAgent's prompt names the files it read
    prompt = ("why does @src/db/store.py retry?\n--- Content from referenced files ---\n"
              "Content from @src/db/store.py:\nx\n--- End of content ---")
    before_agent = {"session_id": "p", "cwd": str(repo), "hook_event_name": "BeforeAgent",
                    "prompt": prompt}
    text = context(hook(repo, "user-prompt", before_agent, "gemini"))
    assert "migrations" in text and "aide_remember" not in text


# -- item 10: Copilot CLI and VS Code ----------------------------------------------------------

def test_vscode_running_two_hook_files_gets_session_start_once(tmp_path: Path) -> None:
    """VS Code runs the hooks of .github/hooks/ and of .claude/settings.json alike: the
    same SessionStart reaches git-aide twice for one session."""
    repo = make_repo(tmp_path / "repo")
    write(repo, "review every pull request within a day", "guidelines")
    commit(repo)
    start = {"timestamp": "2026-11-25T22:00:00.000Z", "cwd": str(repo),
             "sessionId": "vscode-chat-session://local/abc", "hookEventName": "SessionStart",
             "source": "new"}
    first = json.loads(hook(repo, "session-start", start, "copilot"))
    assert "review every pull request" in first["hookSpecificOutput"]["additionalContext"]
    assert hook(repo, "session-start", start, "claude") == ""


def test_copilot_stop_asks_once_then_lets_it_stop(tmp_path: Path) -> None:
    """Copilot CLI's agentStop says nothing like stop_hook_active: the stop after our
    question is never answered with it again."""
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "aide.hooks.reflect", "true")
    git(repo, "config", "aide.hooks.reflectEvery", "1")
    stop = {"sessionId": "cp", "timestamp": 1764108000000, "cwd": str(repo),
            "transcriptPath": "/tmp/events.jsonl", "stopReason": "end_turn"}
    answers = [hook(repo, "stop", stop, "copilot") for _ in range(4)]
    assert [bool(a) for a in answers] == [True, False, True, False]
    assert json.loads(answers[0]) == {"decision": "block", "reason": json.loads(
        answers[0])["reason"]}


def test_the_reply_names_the_event_that_fired(tmp_path: Path) -> None:
    """A file hook installed on PostToolUse (or Gemini's BeforeTool-less AfterTool) must
    answer for that event: Claude Code and Codex refuse a reply naming another one."""
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py")
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    commit(repo)
    post = {**claude_read(repo, "src/auth/login.py", "e"), "hook_event_name": "PostToolUse",
            "tool_response": {"type": "text"}}
    reply = json.loads(hook(repo, "pre-tool-use", post, "claude"))
    assert reply["hookSpecificOutput"]["hookEventName"] == "PostToolUse"


# -- budgets: a 1,000-memory store -------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("big") / "repo")
    files(repo, "src/auth/login.py", "src/auth/tokens.py", "src/db/store.py")
    for i in range(350):
        write(repo, f"Guideline {i}: handlers validate their input before touching the store "
                    "and log the request id", "guidelines")
    for i in range(50):
        write(repo, f"Preference {i}: Ada prefers small, reviewed commits", "preferences")
    for i in range(300):
        write(repo, f"Auth note {i}: tokens are checked against the revocation list first",
              "area_context", scope="src/auth/**", why="incident " + "x" * 200)
    for i in range(300):
        write(repo, f"DB note {i}: migrations run in one transaction", "area_context",
              scope="src/db/**", why="incident " + "y" * 200)
    commit(repo)
    return repo


def budget_events(repo: Path, n: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(agent, event, payload) of every kind that sends memories, in session `n`."""
    s = f"b{n}"
    patch = ("*** Begin Patch\n*** Update File: src/auth/login.py\n@@\n-a\n+b\n"
             "*** Update File: src/db/store.py\n@@\n-a\n+b\n*** End Patch\n")
    return [
        ("claude", "session-start", {"session_id": s, "cwd": str(repo), "source": "startup",
                                     "hook_event_name": "SessionStart"}),
        ("claude", "pre-tool-use", claude_read(repo, "src/auth/login.py", s)),
        ("codex", "pre-tool-use", {**codex_bash(repo, "cat src/auth/login.py src/db/store.py",
                                                s + "c")}),
        ("codex", "pre-tool-use", {**codex_bash(repo, "", s + "p"), "tool_name": "apply_patch",
                                   "tool_input": {"command": patch}}),
        ("gemini", "pre-tool-use", {"session_id": s + "g", "cwd": str(repo),
                                    "hook_event_name": "AfterTool", "tool_name": "read_many_files",
                                    "tool_input": {"include": ["src/**/*.py"]}}),
        ("gemini", "user-prompt", {"session_id": s + "u", "cwd": str(repo),
                                   "hook_event_name": "BeforeAgent",
                                   "prompt": "no, from now on check @src/auth/login.py and "
                                             "@src/db/store.py"}),
        ("copilot", "session-start", {"sessionId": s + "o", "timestamp": 1, "cwd": str(repo),
                                      "source": "new"}),
        ("vscode", "pre-tool-use", {"sessionId": s + "v", "hookEventName": "PreToolUse",
                                    "cwd": str(repo), "tool_name": "read_file",
                                    "tool_input": {"filePath": str(repo / "src/db/store.py")}}),
    ]


def sent(out: str) -> str:
    reply = json.loads(out)
    inner = reply.get("hookSpecificOutput", reply)
    return inner.get("additionalContext") or ""


def test_no_hook_text_is_over_its_budget_with_1000_memories(big: Path) -> None:
    caps = {"session-start": 2000, "pre-tool-use": 4000, "user-prompt": 4000}
    for agent, event, data in budget_events(big, 1):
        text = sent(hook(big, event, data, agent))
        assert 0 < len(text) <= caps[event], (agent, event, len(text))
        assert re.search(r"\d+ more: call aide_", text), (agent, event)
    # a budget set higher than any agent takes is held to 9,000 (Claude Code cuts at 10,000)
    git(big, "config", "aide.hooks.sessionChars", "100000")
    git(big, "config", "aide.hooks.fileChars", "100000")
    try:
        for agent, event, data in budget_events(big, 2):
            text = sent(hook(big, event, data, agent))
            assert caps[event] < len(text) <= 9000, (agent, event, len(text))
    finally:
        git(big, "config", "--unset", "aide.hooks.sessionChars")
        git(big, "config", "--unset", "aide.hooks.fileChars")


# -- what the agents load natively, as a function ----------------------------------------------

def test_native_files_per_agent(tmp_path: Path) -> None:
    from git_aide.agents.setup.native import native_files

    top = tmp_path
    layout = {
        "CLAUDE.md": "@AGENTS.md\n```\n@not/an/import.md\n```\nsee `@neither.md`\n",
        "AGENTS.md": "- rules, and @docs/extra.md\n",
        "docs/extra.md": "x\n",
        "GEMINI.md": "@./docs/gemini-extra.md\n",
        "docs/gemini-extra.md": "x\n",
        "src/auth/CLAUDE.md": "x\n", "src/auth/AGENTS.md": "x\n", "src/auth/GEMINI.md": "x\n",
        ".claude/rules/all.md": "x\n",
        ".claude/rules/auth.md": "---\npaths: src/auth/**\n---\nx\n",
        ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nx\n",
        ".cursor/rules/docs.mdc": "---\nglobs: docs/**\nalwaysApply: false\n---\nx\n",
        ".cursor/rules/asked.mdc": "---\ndescription: when asked\n---\nx\n",
        ".github/copilot-instructions.md": "x\n",
        ".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\nx\n",
        "src/auth/login.py": "x\n",
    }
    for name, text in layout.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    assert native_files("claude", str(top)) == [
        "CLAUDE.md", "AGENTS.md", "docs/extra.md", ".claude/rules/all.md"]
    assert native_files("claude", str(top), "src/auth/login.py")[-2:] == [
        ".claude/rules/auth.md", "src/auth/CLAUDE.md"]
    assert native_files("codex", str(top), "src/auth/login.py") == ["AGENTS.md"]
    assert native_files("codex", str(top), cwd=str(top / "src" / "auth")) == [
        "AGENTS.md", "src/auth/AGENTS.md"]
    assert native_files("gemini", str(top)) == ["GEMINI.md", "docs/gemini-extra.md"]
    assert native_files("gemini", str(top), "src/auth/login.py")[-1] == "src/auth/GEMINI.md"
    assert native_files("cursor", str(top)) == ["AGENTS.md", ".cursor/rules/always.mdc"]
    assert ".cursor/rules/docs.mdc" in native_files("cursor", str(top), "docs/extra.md")
    assert ".cursor/rules/asked.mdc" not in native_files("cursor", str(top), "docs/extra.md")
    assert native_files("copilot", str(top), "src/auth/login.py") == [
        ".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md",
        "src/auth/AGENTS.md", ".github/instructions/py.instructions.md"]
    assert ".github/instructions/py.instructions.md" not in native_files("vscode", str(top))


# -- start-up ----------------------------------------------------------------------------------

def test_codex_and_copilot_hooks_stay_lean(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files(repo, "src/auth/login.py")
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**")
    commit(repo)
    patch = {**codex_bash(repo, "", "l2"), "tool_name": "apply_patch", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: src/auth/login.py\n*** End Patch\n"}}
    events = [("codex", codex_bash(repo, "cd src && sed -n '1,9p' auth/login.py", "l")),
              ("codex", patch),
              ("copilot", {"sessionId": "l3", "cwd": str(repo), "toolName": "view",
                           "toolArgs": json.dumps({"path": str(repo / "src/auth/login.py")})})]
    for agent, data in events:
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "hook",
                               "pre-tool-use", "--agent", agent], cwd=repo, env=BASE_ENV,
                              input=json.dumps(data), capture_output=True, text=True)
        assert proc.returncode == 0 and "rotate hourly" in proc.stdout, proc.stderr[-400:]
        mods = {line.rsplit("|", 1)[1].strip().split(".")[0]
                for line in proc.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
        assert not mods & {"mcp", "rich", "pydantic", "click", "whoosh"}, (agent, mods)


# -- item 10: the file `init --agent copilot` writes, run as Copilot CLI and VS Code run it -----

#: Copilot CLI's events (GitHub Docs, "GitHub Copilot hooks reference"): a camelCase name
#: and its PascalCase one are one event, whose payload is camelCase or VS Code's snake_case
#: after the name configured.
COPILOT_CLI_EVENTS = {"sessionStart": "SessionStart", "userPromptSubmitted": "UserPromptSubmit",
                      "preToolUse": "PreToolUse", "postToolUse": "PostToolUse",
                      "agentStop": "Stop", "preCompact": "PreCompact",
                      "sessionEnd": "SessionEnd", "subagentStop": "SubagentStop",
                      "errorOccurred": "ErrorOccurred"}
#: What Copilot CLI reads from a command hook's output, by event: flat fields, documented
#: in the reference (userPromptSubmitted's `additionalContext`: its 1.0.65 changelog).
COPILOT_CLI_OUTPUT = {"SessionStart": {"additionalContext"},
                      "UserPromptSubmit": {"additionalContext"},
                      "PostToolUse": {"additionalContext", "modifiedResult"},
                      "Stop": {"decision", "reason"}, "PreCompact": set()}
#: The events VS Code runs from a `.github/hooks` file, by their names there
#: (microsoft/vscode, hookTypes.ts: its own PascalCase names, and Copilot CLI's it maps).
VSCODE_EVENTS = {**{e: e for e in ("SessionStart", "UserPromptSubmit", "PreToolUse",
                                   "PostToolUse", "PreCompact", "SubagentStart",
                                   "SubagentStop", "Stop")},
                 "sessionStart": "SessionStart", "userPromptSubmitted": "UserPromptSubmit",
                 "preToolUse": "PreToolUse", "postToolUse": "PostToolUse",
                 "agentStop": "Stop", "subagentStop": "SubagentStop"}


def snake(name: str) -> str:
    """A camelCase field name in snake_case (`transcriptPath` -> `transcript_path`)."""
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def vscode_compatible(payload: dict[str, Any], event: str) -> dict[str, Any]:
    """A camelCase Copilot CLI payload as Copilot CLI sends it to a hook configured with
    the PascalCase name `event`: snake_case fields, `toolArgs` parsed as `tool_input`."""
    out: dict[str, Any] = {"hook_event_name": event}
    for key, value in payload.items():
        if key == "toolArgs":
            out["tool_input"] = json.loads(value) if isinstance(value, str) else value
        elif key == "toolName":
            out["tool_name"] = value
        elif key == "timestamp":
            out["timestamp"] = "2026-11-25T22:00:00.000Z"
        else:
            out[snake(key)] = value
    return out


def cases(agent: str, event: str) -> list[tuple[str, dict[str, Any]]]:
    """(our event the recorded payload is for, case) of every case recorded for `event`,
    a hook event name of the agent's own."""
    out = []
    for path in sorted(PAYLOADS.glob(f"{agent}-*.json")):
        doc = json.loads(path.read_text())
        if doc["hook"] == event:
            out += [(doc["event"], case) for case in doc["cases"]]
    return out


def run_hook(repo: Path, command: str, data: dict[str, Any]) -> str:
    """A handler's command run as Copilot CLI and VS Code run it (through the shell, in
    the repository), the event on stdin; its stdout."""
    proc = subprocess.run(["bash", "-c", command], cwd=repo, env=BASE_ENV,
                          input=json.dumps(data), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def command_of(handler: dict[str, Any]) -> str:
    """What Copilot CLI and VS Code run on Linux and macOS: `bash`, else `command`."""
    return handler.get("bash") or handler["command"]


def said(out: str) -> str:
    """Every string a reply holds, for what it must contain."""
    return json.dumps(json.loads(out)) if out else ""


def check_content(case: dict[str, Any], ours: str, own: str, out: str) -> None:
    """A reply holds what the recorded case expects when the handler is the case's own
    event; another of our handlers says nothing for it."""
    expect = case["expect"]
    if ours != own or expect["shape"] == "none":
        assert out == "", (ours, case["name"], out)
        return
    text = said(out)
    assert text, (ours, case["name"])
    for want in expect.get("contains", []):
        assert want in text, (ours, case["name"], text)
    if expect.get("reflect"):
        assert "aide_remember" in text


def test_the_copilot_hooks_file_answers_copilot_cli_and_vs_code(tmp_path: Path) -> None:
    """`.github/hooks/git-aide.json` is read by Copilot CLI and by VS Code. Each runs every
    git-aide hook once, on the events that carry context to the model, with its own
    payloads (recorded in tests/data/payloads/), and gets replies in the shape it reads:
    Copilot CLI flat fields (its preToolUse would answer with a permission only, so the
    files' memories come after the tool, on postToolUse, its matchers anchored on its tool
    names), VS Code `hookSpecificOutput` for the event it fired (it ignores matchers,
    so every postToolUse handler sees every tool)."""
    repo = make_repo(tmp_path / "repo")
    ids = stock(repo)
    aide_ok(repo, "init", "--no-hooks", "--agent", "copilot")
    doc = json.loads((repo / ".github/hooks/git-aide.json").read_text())
    assert doc["version"] == 1
    entries = [(key, h) for key, handlers in doc["hooks"].items() for h in handlers]

    def ours(command: str) -> str:
        m = re.fullmatch(r"git-aide hook (\S+) --agent copilot", command)
        assert m, command
        return m.group(1)

    # Copilot CLI: `bash`, its matchers anchored, its payload after the configured name
    reached: dict[str, list[str]] = {}
    for key, handler in entries:
        event = COPILOT_CLI_EVENTS.get(key, key)
        assert event in COPILOT_CLI_OUTPUT, key
        reached.setdefault(ours(command_of(handler)), []).append(event)
    assert {e: len(v) for e, v in reached.items()} == dict.fromkeys(EVENTS, 1)
    for key, handler in entries:
        event = COPILOT_CLI_EVENTS.get(key, key)
        camel = key[0].islower()
        mine = ours(command_of(handler))
        pool = cases("copilot", next(k for k, v in COPILOT_CLI_EVENTS.items() if v == event))
        if event == "PostToolUse":  # a file tool's event, once it has run
            pool += [(own, {**case, "payload": {**case["payload"], "toolResult": {
                "resultType": "success", "textResultForLlm": "# src/auth/login.py"}}})
                for own, case in cases("copilot", "preToolUse")]
        ran = 0
        for n, (own, case) in enumerate(pool):
            pascal = "hook_event_name" in case["payload"]
            if camel and pascal:
                continue  # a case of the other format, which this name does not get
            data = fill(case["payload"], repo, ids, f"cli-{key}-{mine}-{n}")
            if not camel and not pascal:
                data = vscode_compatible(data, key)
            tool = data.get("toolName") or data.get("tool_name")
            if handler.get("matcher") and not re.fullmatch(handler["matcher"], tool):
                assert own != mine, (mine, tool)  # its own tool event always reaches it
                continue
            out = run_hook(repo, command_of(handler), data)
            ran += 1
            if out:
                assert set(json.loads(out)) <= COPILOT_CLI_OUTPUT[event], (key, out)
            check_content(case, mine, own, out)
            if event == "Stop" and out:
                assert json.loads(out)["decision"] == "block"
        assert ran, (key, mine)  # every hook met a payload of its own

    # VS Code: `bash` as its Linux command, matchers ignored, its own payloads
    reached = {}
    for key, handler in entries:
        event = VSCODE_EVENTS.get(key)
        assert event, key
        reached.setdefault(ours(command_of(handler)), []).append(event)
    assert {e: len(v) for e, v in reached.items()} == dict.fromkeys(EVENTS, 1)
    for key, handler in entries:
        event = VSCODE_EVENTS[key]
        mine = ours(command_of(handler))
        pool = cases("vscode", event)
        if event == "PostToolUse":
            pool += [(own, {**case, "payload": {**case["payload"], "hookEventName": "PostToolUse",
                                                "tool_response": "done"}})
                     for own, case in cases("vscode", "PreToolUse")]
        assert pool, (key, mine)
        for n, (own, case) in enumerate(pool):
            data = fill(case["payload"], repo, ids, f"vscode-{key}-{mine}-{n}")
            out = run_hook(repo, command_of(handler), data)
            reply = json.loads(out) if out else {}
            if event in ("SessionStart", "PreToolUse", "PostToolUse") and reply:
                assert set(reply) == {"hookSpecificOutput"}, reply
                assert reply["hookSpecificOutput"]["hookEventName"] == event
                assert set(reply["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
            elif event == "Stop" and reply:
                assert reply["hookSpecificOutput"]["decision"] == "block"
                assert reply["hookSpecificOutput"]["reason"]
            elif event == "UserPromptSubmit":
                # VS Code reads only the common fields here: nothing may stop the prompt
                assert not {"continue", "decision", "stopReason"} & set(reply), reply
            else:
                assert reply == {}, (event, reply)
            if event != "UserPromptSubmit":
                check_content(case, mine, own, out)
