"""`git aide hook EVENT`: recorded agent events in, each agent's JSON (or nothing) out."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BASE_ENV, CACHE, aide, claude_read, git, hook
from helpers import hook_context as context
from helpers import write_memory as write


@pytest.fixture
def stocked(repo: Path) -> Path:
    """A repository with scoped, project-wide, always-on and preference memories."""
    write(repo, "auth tokens rotate hourly", "area_context", scope="src/auth/**",
          why="the 2023 incident")
    write(repo, "login.py must stay free of database calls", "area_context",
          scope="src/auth/login.py")
    write(repo, "db migrations are reviewed twice", "area_context", scope="src/db/**")
    write(repo, "review every pull request within a day", "guidelines")
    write(repo, "Ada prefers small commits", "preferences")
    write(repo, "the CI runs on Python 3.10", priority="always")
    write(repo, "we use tabs in Makefiles")  # technical, normal: not always-on
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    return repo


def started(repo: Path, session: str) -> None:
    """Start a session as Claude Code does, so that the always-on memories are given."""
    hook(repo, "session-start", {"session_id": session, "cwd": str(repo),
                                 "hook_event_name": "SessionStart", "source": "startup"})


@pytest.mark.quick
def test_pre_tool_use_injects_the_files_memories_once_per_session(stocked: Path) -> None:
    status = git(stocked, "status", "--porcelain")
    started(stocked, "s-1")
    started(stocked, "s-2")
    rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py"))
    assert rc == 0
    reply = json.loads(out)
    assert reply["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    text = context(out)
    lines = [x for x in text.splitlines() if x.startswith("- ")]
    # recall order: the scope naming the file first; project-wide ones are not here
    assert "login.py must stay free" in lines[0] and "rotate hourly" in lines[1]
    assert "why: the 2023 incident" in lines[1]
    assert len(lines) == 2 and "src/auth/login.py" in text
    # the same session reading the file again gets nothing new
    rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py"))
    assert (rc, out) == (0, "")
    # a neighbour file: only what was not given yet (nothing here)
    rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/other.py"))
    assert (rc, out) == (0, "")
    # another session starts from nothing
    _rc, out, _ = hook(stocked, "pre-tool-use",
                       claude_read(stocked, "src/auth/other.py", session="s-2"))
    assert "rotate hourly" in context(out) and "login.py must" not in context(out)
    # compaction forgets what was given, so it is given again
    hook(stocked, "pre-compact", {"session_id": "s-1", "cwd": str(stocked),
                                  "hook_event_name": "PreCompact", "trigger": "auto"})
    _rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py"))
    assert "rotate hourly" in context(out)
    # nothing was written into the working tree
    assert git(stocked, "status", "--porcelain") == status


def test_pre_tool_use_stays_within_the_budget(repo: Path) -> None:
    for i in range(12):
        write(repo, f"rule number {i} about the parser " + "detail " * 12, "area_context",
              scope="src/parse/**")
    git(repo, "config", "aide.hooks.fileChars", "400")
    _rc, out, _ = hook(repo, "pre-tool-use", claude_read(repo, "src/parse/lexer.py"))
    text = context(out)
    assert len(text) <= 400
    shown = sum(1 for x in text.splitlines() if x.startswith("- "))
    assert 1 <= shown < 12
    assert text.splitlines()[-1] == f"{12 - shown} more: call aide_recall for src/parse/lexer.py"
    # the ones left out are given on the next touch, within the budget again
    _rc, out, _ = hook(repo, "pre-tool-use", claude_read(repo, "src/parse/lexer.py"))
    assert len(context(out)) <= 400 and "rule number" in context(out)


def test_each_agents_dialect(stocked: Path) -> None:
    path = str(stocked / "src/db/store.py")
    # Codex: Claude's shape
    _rc, out, _ = hook(stocked, "pre-tool-use", {
        "session_id": "cx", "cwd": str(stocked), "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": path}}, agent="codex")
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "migrations are reviewed" in context(out)
    # Cursor: conversation_id, permission + agent_message
    _rc, out, _ = hook(stocked, "pre-tool-use", {
        "conversation_id": "cu", "generation_id": "g1", "hook_event_name": "preToolUse",
        "tool_name": "Read", "tool_input": {"file_path": path},
        "workspace_roots": [str(stocked)], "cwd": str(stocked)}, agent="cursor")
    reply = json.loads(out)
    assert "migrations" in reply["agent_message"]
    # Gemini CLI: AfterTool on read_file, context appended to the tool's result
    _rc, out, _ = hook(stocked, "pre-tool-use", {
        "session_id": "ge", "transcript_path": "/tmp/g.json", "cwd": str(stocked),
        "hook_event_name": "AfterTool", "timestamp": "2026-11-23T10:00:00Z",
        "tool_name": "read_file", "tool_input": {"absolute_path": path},
        "tool_response": {"llmContent": "..."}}, agent="gemini")
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "AfterTool"
    assert "migrations" in context(out)
    # Stop and PreCompact never carry hookSpecificOutput
    git(stocked, "config", "aide.hooks.reflect", "true")
    for agent, key in (("claude", "decision"), ("codex", "decision"),
                       ("cursor", "followup_message"), ("gemini", "decision")):
        _rc, out, _ = hook(stocked, "stop", {"session_id": f"stop-{agent}", "cwd": str(stocked),
                                             "stop_hook_active": False}, agent=agent)
        reply = json.loads(out)
        assert key in reply and "hookSpecificOutput" not in reply
        assert "aide_remember" in json.dumps(reply)
    _rc, out, _ = hook(stocked, "pre-compact", {"session_id": "x", "cwd": str(stocked)})
    assert out == ""


@pytest.mark.quick
def test_session_start_injects_the_always_on_memories(stocked: Path) -> None:
    start = {"session_id": "ss", "transcript_path": "/tmp/t", "cwd": str(stocked),
             "hook_event_name": "SessionStart", "source": "startup"}
    _rc, out, _ = hook(stocked, "session-start", start)
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = context(out)
    for what in ("the CI runs on Python 3.10", "review every pull request",
                 "Ada prefers small commits"):
        assert what in text
    assert text.index("Python 3.10") < text.index("review every") < text.index("Ada prefers")
    for what in ("tabs in Makefiles", "rotate hourly"):
        assert what not in text
    git(stocked, "config", "aide.hooks.sessionChars", "150")
    _rc, out, _ = hook(stocked, "session-start", start)
    assert len(context(out)) <= 150 and "more: call aide_memories" in context(out)


def test_session_start_names_what_this_branch_changed(stocked: Path) -> None:
    git(stocked, "switch", "-qc", "feature")
    write(stocked, "the feature flag is read once at boot", "area_context",
          scope="src/flags/**")
    git(stocked, "add", "-A")
    git(stocked, "commit", "-qm", "feature memory")
    _rc, out, err = hook(stocked, "session-start", {"session_id": "br", "cwd": str(stocked),
                                                    "source": "startup"})
    text = context(out)
    if importlib.util.find_spec("git_aide.app.diff") is None:
        assert "feature flag" not in text  # no history module: skipped, silently
        assert err == ""
    else:
        assert "since main" in text and "feature flag is read once" in text


@pytest.mark.quick
def test_post_tool_use_records_what_the_agent_fetched(stocked: Path) -> None:
    listed = aide(stocked, "recall", "src/db/x.py", "--json").json()["memories"]
    mine = next(m for m in listed if "migrations" in m["what"])
    response = [{"type": "text", "text": json.dumps({"memories": [{"uuid": mine["uuid"]}]})}]
    started(stocked, "pt")
    rc, out, _ = hook(stocked, "post-tool-use", {
        "session_id": "pt", "cwd": str(stocked), "hook_event_name": "PostToolUse",
        "tool_name": "mcp__git-aide__aide_recall", "tool_input": {"paths": ["src/db"]},
        "tool_response": response})
    assert (rc, out) == (0, "")
    rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/db/x.py", "pt"))
    assert (rc, out) == (0, "")  # already in the agent's context


@pytest.mark.quick
def test_user_prompt_nudges_on_decisions_only(stocked: Path) -> None:
    ev = {"session_id": "up", "cwd": str(stocked), "hook_event_name": "UserPromptSubmit"}
    _rc, out, _ = hook(stocked, "user-prompt", {**ev, "prompt": "No, use pnpm from now on"})
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "aide_remember" in context(out)
    _rc, out, _ = hook(stocked, "user-prompt", {**ev, "prompt": "add a test for the parser"})
    assert out == ""


@pytest.mark.quick
def test_stop_only_with_reflect_and_never_loops(stocked: Path) -> None:
    ev = {"session_id": "st", "cwd": str(stocked), "hook_event_name": "Stop",
          "stop_hook_active": False}
    assert hook(stocked, "stop", ev)[1] == ""  # reflect is off by default
    git(stocked, "config", "aide.hooks.reflect", "true")
    assert json.loads(hook(stocked, "stop", ev)[1])["decision"] == "block"
    assert hook(stocked, "stop", {**ev, "stop_hook_active": True})[1] == ""
    assert hook(stocked, "stop", ev)[1] == ""  # every few turns, not every turn


def test_hooks_never_fail(stocked: Path, tmp_path: Path) -> None:
    read = claude_read(stocked, "src/auth/login.py", "nf")
    for event, stdin in (("pre-tool-use", ""), ("session-start", "not json"),
                         ("post-tool-use", "[1, 2]"), ("pre-tool-use", "{\"tool_input\": 3}"),
                         ("stop", "\xff\xfe")):
        rc, out, _ = hook(stocked, event, stdin)
        assert (rc, out) == (0, ""), (event, stdin)
    # switched off for a session
    assert hook(stocked, "pre-tool-use", read, env={"GIT_AIDE_HOOKS": "0"})[:2] == (0, "")
    # outside any repository, an unknown event, an unknown agent, a path outside the repo
    outside = {**read, "cwd": str(tmp_path), "tool_input": {"file_path": "/etc/hosts"}}
    assert hook(tmp_path, "pre-tool-use", outside)[:2] == (0, "")
    assert hook(stocked, "pre-tool-use", {**read, "tool_input": {"file_path": "/etc/hosts"}}
                )[:2] == (0, "")
    rc, out, err = hook(stocked, "no-such-event", read)
    assert (rc, out) == (0, "") and "unknown event" in err
    assert hook(stocked, "pre-tool-use", read, agent="emacs")[:2] == (0, "")
    # and it still works after all that
    assert "rotate hourly" in context(hook(stocked, "pre-tool-use", read)[1])


def test_hooks_import_no_mcp_rich_pydantic_or_click(stocked: Path) -> None:
    event = json.dumps(claude_read(stocked, "src/auth/login.py", "imp"))
    for ev in ("pre-tool-use", "session-start", "user-prompt"):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "hook", ev],
                              cwd=stocked, env=BASE_ENV, input=event, capture_output=True,
                              text=True)
        assert proc.returncode == 0
        mods = {line.rsplit("|", 1)[1].strip().split(".")[0]
                for line in proc.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
        assert not mods & {"mcp", "rich", "pydantic", "click", "whoosh"}, (ev, mods)


def test_a_warm_pre_tool_use_hashes_nothing(stocked: Path) -> None:
    # hashlib's import alone costs a hook call ~3 ms: the session record is named by a
    # CRC-32 and the view's contents carry one, so a warm call imports no hashlib
    time.sleep(2.2)  # the index is trusted (and its view kept) once it is 2 s old
    hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py", "warm"))
    event = json.dumps(claude_read(stocked, "src/auth/login.py", "another"))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "hook",
                           "pre-tool-use"], cwd=stocked, env=BASE_ENV, input=event,
                          capture_output=True, text=True)
    assert "rotate hourly" in proc.stdout
    assert "hashlib" not in {line.rsplit("|", 1)[1].strip().split(".")[0]
                             for line in proc.stderr.splitlines()
                             if line.startswith("import time:") and "|" in line}


def test_a_damaged_session_record_counts_as_none(stocked: Path) -> None:
    from git_aide.agents.hooks.sessions import record_name

    read = claude_read(stocked, "src/auth/login.py", "damaged")
    folder = stocked / CACHE / "sessions"
    record = folder / record_name("damaged")
    hook(stocked, "pre-tool-use", read)
    assert record.is_file()  # the record the damages below stand in for
    damages: list[bytes | None] = [b'{"seen": ["', b'{"seen": [], "stops": 1e400}',
                                   b"[" * 100_000, b'{"seen": 5, "stops": "x"}', b"[1]",
                                   b"\xff\xfe", None]  # None: a folder in its place
    for damage in damages:
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        folder.mkdir(parents=True)
        if damage is None:
            record.mkdir()
        else:
            record.write_bytes(damage)
        rc, out, err = hook(stocked, "pre-tool-use", read)
        assert (rc, err) == (0, ""), damage
        assert "rotate hourly" in context(out), damage
    # the sessions folder itself a file: still injected, and the hook stays quiet
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    folder.write_text("in the way\n")
    rc, out, err = hook(stocked, "pre-tool-use", read)
    assert (rc, err) == (0, "") and "rotate hourly" in context(out)
    rc, out, err = hook(stocked, "pre-compact", read)
    assert (rc, out, err) == (0, "", "")


def test_post_tool_use_resolves_the_short_ids_of_the_servers_text(stocked: Path) -> None:
    from git_aide.agents.mcp.text import memories_text

    doc = aide(stocked, "recall", "src/db/x.py", "--json").json()
    text = memories_text(doc)  # what the MCP server puts in its text content
    assert "`" in text and not any(m["uuid"] in text for m in doc["memories"])
    ev = {"session_id": "short", "cwd": str(stocked), "hook_event_name": "PostToolUse",
          "tool_name": "mcp__git-aide__aide_recall", "tool_input": {"paths": ["src/db"]}}
    rc, out, _ = hook(stocked, "post-tool-use", {
        **ev, "tool_response": [{"type": "text", "text": text}]})
    assert (rc, out) == (0, "")
    assert hook(stocked, "pre-tool-use", claude_read(stocked, "src/db/x.py", "short"))[1] == ""
    # structured content alone (memories[].uuid) is recorded too
    auth = aide(stocked, "recall", "src/auth/login.py", "--json").json()
    rc, out, _ = hook(stocked, "post-tool-use", {
        **ev, "session_id": "structured",
        "tool_response": {"structuredContent": {"memories": [
            {"uuid": m["uuid"]} for m in auth["memories"]]}}})
    assert hook(stocked, "pre-tool-use",
                claude_read(stocked, "src/auth/login.py", "structured"))[1] == ""
    # an 8-hex token naming no memory records nothing
    hook(stocked, "post-tool-use", {**ev, "session_id": "none",
                                    "tool_response": "see `deadbeef` and 12345678"})
    assert "migrations" in context(hook(stocked, "pre-tool-use",
                                        claude_read(stocked, "src/db/x.py", "none"))[1])


def test_a_tiny_file_budget_never_prints_a_header_alone(stocked: Path) -> None:
    git(stocked, "config", "aide.hooks.fileChars", "100")
    started(stocked, "t")
    _rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py", "t"))
    text = context(out)
    assert text == "2 more: call aide_recall for src/auth/login.py"
    git(stocked, "config", "aide.hooks.fileChars", "20")
    assert hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py", "u"))[1] == ""


def test_cursor_reply_leaves_permission_to_the_user(stocked: Path) -> None:
    path = str(stocked / "src/db/store.py")
    _rc, out, _ = hook(stocked, "pre-tool-use", {
        "conversation_id": "cp", "hook_event_name": "preToolUse", "tool_name": "Read",
        "tool_input": {"file_path": path}, "workspace_roots": [str(stocked)]},
        agent="cursor")
    reply = json.loads(out)
    assert "permission" not in reply and "migrations" in reply["agent_message"]


def test_hook_outside_the_repo_finds_it_from_the_payload(stocked: Path, tmp_path: Path
                                                          ) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cursor = {"conversation_id": "ws", "hook_event_name": "preToolUse", "tool_name": "Read",
              "tool_input": {"file_path": str(stocked / "src/db/store.py")},
              "workspace_roots": [str(stocked)]}
    _rc, out, _ = hook(elsewhere, "pre-tool-use", cursor, agent="cursor")
    assert "migrations" in json.loads(out)["agent_message"]
    # from the file's folder alone (no cwd, no workspace roots)
    read = {**claude_read(stocked, "src/auth/login.py", "ws2"), "cwd": str(elsewhere)}
    assert "rotate hourly" in context(hook(elsewhere, "pre-tool-use", read)[1])
    # and where there is no repository at all: one plain line, no class names
    rc, out, err = hook(elsewhere, "session-start",
                        {"session_id": "x", "cwd": str(elsewhere)})
    assert (rc, out) == (0, "")
    assert len(err.strip().splitlines()) == 1 and "Error:" not in err, err


def test_pre_tool_use_injects_the_files_own_memories_not_notes_about_it(stocked: Path
                                                                       ) -> None:
    # recall also weighs notes scoped elsewhere that name the file (its tests, its
    # guide); the hook injects only what is scoped to the file itself
    write(stocked, "the guide mirrors src/auth/login.py line by line", "area_context",
          scope="docs/guide/**")
    git(stocked, "add", "-A")
    git(stocked, "commit", "-qm", "a note about login.py, kept with the guide")
    recalled = aide(stocked, "recall", "src/auth/login.py", "--json").json()["memories"]
    assert any("guide mirrors" in m["what"] for m in recalled)
    _rc, out, _ = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py"))
    assert "login.py must stay free" in context(out)
    assert "guide mirrors" not in context(out)


@pytest.mark.parametrize("agent", ["claude", "codex", "copilot", "cursor", "gemini", "vscode"])
def test_a_nul_in_the_events_folder_is_a_bad_payload(stocked: Path, agent: str) -> None:
    # A path with a NUL byte cannot name a folder: no context, exit 0, one word on stderr.
    read = claude_read(stocked, "src/auth/login.py", "nul")
    for event in ("session-start", "pre-tool-use", "user-prompt", "stop"):
        rc, out, err = hook(stocked, event, {**read, "cwd": "/\u0000"}, agent=agent)
        assert (rc, out) == (0, ""), (agent, event, err)
        assert "internal error" not in err and "Traceback" not in err
        assert "NUL byte" in err


def test_codex_holds_only_its_byte_budget_of_agents_md(repo: Path) -> None:
    # Codex loads the first project_doc_max_bytes (32 KiB) of its AGENTS.md files, all
    # together: a rule past that reaches it only through git-aide.
    filler = "".join(f"Background note {i}: nothing to follow here.\n" for i in range(900))
    lines = ["# Rules", "", "- Use tabs in Makefiles, never spaces at all.", "",
             *filler.splitlines(), "", "- Review every database migration twice before merging."]
    (repo / "AGENTS.md").write_text("\n".join(lines) + "\n")
    assert len((repo / "AGENTS.md").read_bytes()) > 32 * 1024
    late_line = len(lines)
    write(repo, "Use tabs in Makefiles, never spaces at all.", "guidelines",
          source="import", why="AGENTS.md:3")
    write(repo, "Review every database migration twice before merging.", "guidelines",
          source="import", why=f"AGENTS.md:{late_line}")
    write(repo, "Background note 899: nothing to follow here.", "guidelines")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    start = {"session_id": "cx", "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "startup", "transcript_path": None, "model": "gpt-5"}
    text = context(hook(repo, "session-start", start, agent="codex")[1])
    assert "migration twice" in text and "Background note 899" in text
    assert "tabs in Makefiles" not in text
    # where an imported rule came from is bookkeeping, not sent as its reason
    assert "migration twice before merging. [project]" in text and "AGENTS.md:" not in text
    # Claude loads CLAUDE.md, not AGENTS.md: all three come
    assert "tabs in Makefiles" in context(hook(repo, "session-start", start)[1])
    # a larger budget in the project's Codex config holds the whole file
    (repo / ".codex").mkdir(exist_ok=True)
    (repo / ".codex" / "config.toml").write_text("project_doc_max_bytes = 65536\n")
    rc, out, _ = hook(repo, "session-start", {**start, "session_id": "cx2"}, agent="codex")
    assert rc == 0 and "migration twice" not in out and "Background note" not in out


def test_a_restated_native_rule_is_not_sent_again(repo: Path) -> None:
    # A team memory that says in other words what the loaded CLAUDE.md says is left out;
    # one that adds a fact (a number, a name) is not a restatement.
    (repo / "CLAUDE.md").write_text(
        "# Rules\n\n- Every database migration is reviewed twice before it is merged.\n")
    write(repo, "Database migrations must be reviewed twice before merging", "guidelines")
    write(repo, "Database migrations are reviewed twice before merging, by the DBA on "
          "call (RUNBOOK-12)", "guidelines")
    write(repo, "Never merge a database migration that was not reviewed twice", "guidelines")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    start = {"session_id": "rs", "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "startup"}
    text = context(hook(repo, "session-start", start)[1])
    assert "must be reviewed twice before merging" not in text
    assert "RUNBOOK-12" in text and "Never merge" in text
    # Codex does not load CLAUDE.md: it gets all three
    text = context(hook(repo, "session-start", {**start, "session_id": "rc"}, agent="codex")[1])
    assert "must be reviewed twice before merging" in text


# -- issue 37, items 6, 7 and 10: Gemini's PreCompress and masking, the decision nudge -------

PAYLOADS = Path(__file__).resolve().parents[1] / "data" / "payloads"


def gemini_event(repo: Path, session: str, transcript: Path, name: str,
                 **fields: object) -> dict[str, object]:
    """A Gemini CLI 0.61 event (its recorded envelope)."""
    return {"session_id": session, "transcript_path": str(transcript), "cwd": str(repo),
            "hook_event_name": name, "timestamp": "2026-11-25T22:10:49.521Z", **fields}


def gemini_read(repo: Path, rel: str, session: str, transcript: Path,
                output: str | None = None) -> dict[str, object]:
    """Gemini CLI's AfterTool for read_file, the file's text as the tool gave it."""
    return gemini_event(repo, session, transcript, "AfterTool", tool_name="read_file",
                        tool_input={"file_path": rel},
                        tool_response={"llmContent": f"# {rel}\n" if output is None else output,
                                       "returnDisplay": ""})


def transcript_lines(case: int, part: str) -> str:
    """Lines of the transcript recorded with a case of gemini-pre-compact.json."""
    doc = json.loads((PAYLOADS / "gemini-pre-compact.json").read_text())
    return "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for x in doc["cases"][case]["transcript"][part])


def test_gemini_precompress_before_each_request_forgets_nothing(stocked: Path) -> None:
    """Gemini CLI 0.61 fires PreCompress (trigger auto) before every model request, before
    it decides whether to compress: a read, ten requests, an edit of the same file and a
    read of its neighbour get each memory once; the event itself does no work at all."""
    transcript = stocked.parent / "chat.jsonl"
    transcript.write_text(transcript_lines(2, "before"))
    sid = "g-many"
    hook(stocked, "session-start", gemini_event(stocked, sid, transcript, "SessionStart",
                                                source="startup"), agent="gemini")
    _rc, out, _ = hook(stocked, "pre-tool-use", gemini_read(stocked, "src/auth/login.py", sid,
                                                             transcript), agent="gemini")
    assert "login.py must stay free" in context(out) and "rotate hourly" in context(out)
    compress = gemini_event(stocked, sid, transcript, "PreCompress", trigger="auto")
    for _ in range(10):
        assert hook(stocked, "pre-compact", compress, agent="gemini") == (0, "", "")
    edit = gemini_event(stocked, sid, transcript, "AfterTool", tool_name="replace",
                        tool_input={"file_path": "src/auth/login.py", "old_string": "a",
                                    "new_string": "b"},
                        tool_response={"llmContent": "Successfully modified file: "
                                       f"{stocked}/src/auth/login.py (1 replacements)."})
    assert hook(stocked, "pre-tool-use", edit, agent="gemini")[1] == ""
    assert hook(stocked, "pre-tool-use", gemini_read(stocked, "src/auth/tokens.py", sid,
                                                     transcript), agent="gemini")[1] == ""
    # no repository opened, no git run: only the hook's own start-up
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "hook",
                           "pre-compact", "--agent", "gemini"], cwd=stocked, env=BASE_ENV,
                          input=json.dumps(compress), capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == ""
    mods = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}
    assert not {"git_aide.gitio.repo", "git_aide.gitio.spawn", "subprocess"} & mods


def test_a_compression_in_geminis_transcript_forgets_what_was_given(stocked: Path) -> None:
    """The next hook after Gemini CLI compressed (its transcript's history rewritten with
    a new summary) gives the file's memories again; the rewrites its masking makes later,
    after that compression, are no compression; a rewind is."""
    transcript = stocked.parent / "chat.jsonl"
    transcript.write_text(transcript_lines(2, "before"))
    sid = "g-compressed"
    hook(stocked, "session-start", gemini_event(stocked, sid, transcript, "SessionStart",
                                                source="startup"), agent="gemini")

    def read(rel: str = "src/auth/login.py") -> str:
        out = hook(stocked, "pre-tool-use", gemini_read(stocked, rel, sid, transcript),
                   agent="gemini")[1]
        return context(out) if out else ""

    assert "rotate hourly" in read()
    hook(stocked, "pre-compact", gemini_event(stocked, sid, transcript, "PreCompress",
                                              trigger="auto"), agent="gemini")
    assert read() == ""
    with transcript.open("a") as f:
        f.write(transcript_lines(2, "after"))  # Gemini CLI compressed
    assert "rotate hourly" in read() and read() == ""
    with transcript.open("a") as f:
        f.write(transcript_lines(1, "after"))  # then masked old tool outputs
    assert read() == "" and read("src/auth/tokens.py") == ""
    with transcript.open("a") as f:
        f.write('{"$rewindTo":"b16d72b4-6d5a-4879-bfea-cb87b495acc1"}\n')
    assert "rotate hourly" in read()


def test_a_transcript_that_shrank_forgets_what_was_given(stocked: Path) -> None:
    transcript = stocked.parent / "claude.jsonl"
    transcript.write_text('{"type":"user"}\n' * 50)
    read = {**claude_read(stocked, "src/auth/login.py", "shrunk"),
            "transcript_path": str(transcript)}
    assert "rotate hourly" in context(hook(stocked, "pre-tool-use", read)[1])
    with transcript.open("a") as f:
        f.write('{"type":"assistant"}\n')
    assert hook(stocked, "pre-tool-use", read)[1] == ""
    transcript.write_text('{"type":"summary"}\n')  # rewritten shorter
    assert "rotate hourly" in context(hook(stocked, "pre-tool-use", read)[1])


def gemini_masks(response: dict[str, object], tool: str = "read_file") -> str:
    """What Gemini CLI 0.61's ToolOutputMaskingService keeps of an old tool response,
    done as it does it (JSON.stringify(response, null, 2); over 500 characters, the first
    and last 250), for a file tool."""
    assert tool != "run_shell_command"
    content = json.dumps(response, indent=2, ensure_ascii=False)
    if len(content) <= 500:
        return content
    return f"{content[:250]}\n... [TRUNCATED] ...\n{content[-250:]}"


def gemini_output(llm: str, additional: str) -> dict[str, str]:
    """The response Gemini CLI keeps for a tool whose text is `llm`, with a hook's
    additionalContext appended (`<` and `>` as entities, in <hook_context>)."""
    text = additional.replace("<", "&lt;").replace(">", "&gt;")
    return {"output": f"{llm}\n\n<hook_context>{text}</hook_context>"}


def test_the_most_specific_memory_survives_geminis_masking(repo: Path) -> None:
    """Gemini CLI masks an old tool output to its first and last 250 characters: after a
    whole file, that is the end of the block appended to it, where the most specific
    memory is said once more, in few enough characters to stay whole."""
    write(repo, "The realtime session must never send the same audio buffer twice; the "
          "server echoes it back and the user hears their own audio twice.", "area_context",
          scope="src/agents/realtime/openai_realtime.py", why="a customer escalation")
    for i in range(5):
        write(repo, f"Agents in src/agents keep their handlers pure, rule {i}: state lives in "
              "the session object and is never read from a global.", "area_context",
              scope="src/agents/**")
    rel = "src/agents/realtime/openai_realtime.py"
    (repo / rel).parent.mkdir(parents=True)
    (repo / rel).write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    source = "".join(f"line {i}: x = compute(x, {i})  # <generated>\n" for i in range(2000))
    read = gemini_read(repo, rel, "mask", repo.parent / "none.jsonl", output=source)
    text = context(hook(repo, "pre-tool-use", read, agent="gemini")[1])
    assert len(text) <= 4000
    lines = [x for x in text.splitlines() if x.startswith("- ")]
    assert "never send the same audio buffer twice" in lines[0]  # most specific first
    masked = gemini_masks(gemini_output(source, text))
    assert "The realtime session must never send the same audio buffer twice" in masked
    assert text.splitlines()[-1].startswith("Most specific to openai_realtime.py: ")
    # a short output Gemini CLI never masks, and Claude Code, get the block alone
    write(repo, "db migrations are reviewed twice", "area_context", scope="src/db/**")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more")
    short = gemini_read(repo, "src/db/store.py", "mask", repo.parent / "none.jsonl")
    assert "Most specific" not in context(hook(repo, "pre-tool-use", short, agent="gemini")[1])
    claude = context(hook(repo, "pre-tool-use", claude_read(repo, rel, "claude-mask"))[1])
    assert "Most specific" not in claude and "audio buffer twice" in claude
    # a shell command's output keeps its last section whole: the block stays as it is
    shell = gemini_event(repo, "mask-shell", repo.parent / "none.jsonl", "AfterTool",
                         tool_name="run_shell_command", tool_input={"command": f"cat {rel}"},
                         tool_response={"llmContent": f"<untrusted_context>\nOutput: {source}"
                                        "Process Group PGID: 23865\n</untrusted_context>"})
    text = context(hook(repo, "pre-tool-use", shell, agent="gemini")[1])
    assert "audio buffer twice" in text and "Most specific" not in text


#: Prompts that state a decision or a correction: the nudge to remember it.
DECISIONS = [
    "We decided that an expired run keeps its queue slot for 30 seconds.",
    "We've decided to drop Python 3.9 support.",
    "we have decided to use ruff",
    "Let's go with the Redis lock.",
    "From now on, run the tests with -p no:xdist.",
    "The decision is to keep the old API.",
    "We agreed to squash-merge every pull request.",
    "Always use uv to install packages.",
    "Never commit generated protobuf files.",
    "No, use pnpm from now on",
    "Going forward, tag every release.",
    "We\u2019ve decided on Postgres 16.",
    "Use the logger instead of print in the workers.",
]
#: Prompts that ask, or ask for work: no nudge.
NOT_DECISIONS = [
    "decide which file to read",
    "can you decide which approach is better",
    "Can you decide whether we should use Redis?",
    "Did we decide on the lock yet?",
    "Have we agreed on a format?",
    "Should we always use uv?",
    "What did we decide about retries",
    "add a test for the parser",
    "Refactor this so it never crashes",
    "I never know where the config lives",
    "Let's use the debugger to find it",
    "we haven't decided yet, so leave it",
    "This always fails on CI, can you look?",
    "Explain the decision tree in ranker.py",
]


def test_which_prompts_state_a_decision() -> None:
    from git_aide.agents.hooks.prompts import decides

    assert [p for p in DECISIONS if not decides(p)] == []
    assert [p for p in NOT_DECISIONS if decides(p)] == []


def test_the_nudge_to_remember_a_decision_is_kept_when_memories_fill_the_budget(
        repo: Path) -> None:
    for i in range(15):
        write(repo, f"rule number {i} about the parser " + "detail " * 12, "area_context",
              scope="src/parse/**")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    git(repo, "config", "aide.hooks.fileChars", "600")
    prompt = ("Look at @src/parse/lexer.py first. We decided that a token never spans two "
              "lines. Then fix the lexer.")
    (repo / "src" / "parse").mkdir(parents=True, exist_ok=True)
    (repo / "src" / "parse" / "lexer.py").write_text("x = 1\n")
    for agent, name in (("claude", "UserPromptSubmit"), ("gemini", "BeforeAgent")):
        ev = {"session_id": f"decide-{agent}", "cwd": str(repo), "hook_event_name": name,
              "prompt": prompt}
        text = context(hook(repo, "user-prompt", ev, agent=agent)[1])
        assert len(text) <= 600
        assert "rule number" in text and "more: call aide_recall" in text
        assert text.endswith("call aide_remember (what, why, and a scope glob where it applies).")


def test_always_on_memories_come_once_by_the_first_channel(stocked: Path) -> None:
    # A client with no session start gets the always-on memories with its first file,
    # marked, once; after a session start they are not sent again with a file.
    read = claude_read(stocked, "src/auth/login.py", "no-start")
    first = context(hook(stocked, "pre-tool-use", read)[1])
    assert "the CI runs on Python 3.10" in first and "always-on" in first
    assert "rotate hourly" in first
    again = hook(stocked, "pre-tool-use", claude_read(stocked, "src/db/x.py", "no-start"))[1]
    assert "Python 3.10" not in again
    start = {"session_id": "started", "cwd": str(stocked), "hook_event_name": "SessionStart",
             "source": "startup"}
    assert "Python 3.10" in context(hook(stocked, "session-start", start)[1])
    out = hook(stocked, "pre-tool-use", claude_read(stocked, "src/auth/login.py", "started"))[1]
    assert "rotate hourly" in context(out) and "Python 3.10" not in out
