"""`git aide mcp` through the MCP SDK's own client over stdio: one server, many calls."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, aide_ok, claude_read, edit_by_hand, git, hook, remember

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

TOOLS = {"aide_recall", "aide_remember", "aide_update", "aide_forget", "aide_memories",
         "aide_search", "aide_import", "aide_diff", "aide_log"}


def cli_json(repo: Path, *args: str) -> Any:
    """What the command line prints with --json."""
    return aide_ok(repo, *args, "--json").json()


@pytest.mark.quick
def test_every_tool_over_stdio(repo: Path) -> None:
    auth = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
                    "--layer", "area_context", "--why", "the 2023 incident")
    remember(repo, "review every migration twice", "--layer", "guidelines")
    git(repo, "commit", "-qm", "memories")
    git(repo, "config", "aide.mcp.tools", "all")  # import, diff and log too

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            assert TOOLS <= names

            async def call(name: str, **args: Any) -> Any:
                return await s.call_tool(name, args)

            # recall: compact by default; with detail full exactly `recall --json`; the
            # text markdown grouped by layer
            res = await call("aide_recall", paths=["src/auth/login.py"])
            assert not res.is_error
            assert res.structured_content == {"memories": [{
                "id": auth["uuid"][:8], "layer": "area_context", "scope": "src/auth/**",
                "what": "auth tokens rotate hourly", "why": "the 2023 incident"}]}
            res = await call("aide_recall", paths=["src/auth/login.py"], detail="full")
            assert res.structured_content == cli_json(repo, "recall", "src/auth/login.py")
            # the markdown in rank order, numbered, the layer a label
            assert "1. area_context [src/auth/**] auth tokens" in res.content[0].text
            assert "auth tokens rotate hourly" in res.content[0].text

            # a memory edited by hand between two calls is seen by the next one
            edit_by_hand(repo, auth["path"], what="auth tokens rotate every 15 minutes")
            res = await call("aide_recall", paths="src/auth/login.py")
            assert [m["what"] for m in res.structured_content["memories"]][0] == \
                "auth tokens rotate every 15 minutes"

            # rev: the committed text, from the object database
            res = await call("aide_recall", paths=["src/auth/login.py"], rev="HEAD")
            assert res.structured_content["source"]["rev"] == "HEAD"
            assert res.structured_content["memories"][0]["what"] == "auth tokens rotate hourly"
            assert " at HEAD (" in res.content[0].text
            res = await call("aide_recall", paths=["src/auth/login.py"], rev="HEAD",
                             detail="full")
            assert res.structured_content["source"]["kind"] == "rev"
            assert res.structured_content == cli_json(repo, "recall", "--rev", "HEAD",
                                                      "src/auth/login.py")

            # remember, staged, the `remember --json` document
            res = await call("aide_remember", what="use pnpm, not npm", layer="technical",
                             scope="web/**", tags=["tooling"], contributor="Claude")
            assert not res.is_error, res.content[0].text
            doc = res.structured_content
            assert set(doc) == {"uuid", "path", "created", "staged", "warnings"}
            assert doc["created"] and doc["staged"]
            written = json.loads((repo / doc["path"]).read_text())
            assert written["contributor"] == "Claude" and written["tags"] == ["tooling"]
            new = doc["uuid"]

            # update by prefix, and by an aide-memory integer id (as int and as string)
            res = await call("aide_update", id=new[:6], why="the lockfile is pnpm's",
                             priority="always")
            assert not res.is_error, res.content[0].text
            assert res.structured_content == {"uuid": new, "path": doc["path"], "staged": True,
                                              "warnings": []}
            assert json.loads((repo / doc["path"]).read_text())["priority"] == "always"
            edit_by_hand(repo, doc["path"], id=42)
            res = await call("aide_update", id=42, what="use pnpm 9, not npm")
            assert not res.is_error, res.content[0].text
            res = await call("aide_recall", ids=["42"])
            assert [m["what"] for m in res.structured_content["memories"]] == \
                ["use pnpm 9, not npm"]

            # search and memories: `search --json` and `list --json`
            res = await call("aide_search", keyword="pnpm", detail="full")
            assert res.structured_content == cli_json(repo, "search", "pnpm", "--limit", "50")
            res = await call("aide_memories", layer="guidelines", detail="full")
            assert res.structured_content == cli_json(repo, "list", "--layer", "guidelines")
            res = await call("aide_memories", scope="src/auth")
            assert [m["id"] for m in res.structured_content["memories"]] == [auth["uuid"][:8]]

            # forget
            res = await call("aide_forget", id=new)
            assert res.structured_content == {"forgotten": [new], "staged": True}
            assert not (repo / doc["path"]).exists()

            # bad arguments are tool errors, and the server lives on
            for name, args, words in (
                ("aide_recall", {"layers": ["bogus"]}, "layers"),
                ("aide_update", {"id": "zz", "what": "x"}, "too short"),
                ("aide_update", {"id": auth["uuid"]}, "nothing to change"),
                ("aide_forget", {"id": "ffffffff"}, "no memory"),
                ("aide_recall", {"paths": ["x"], "rev": "no-such-branch"}, "names no commit"),
                ("aide_remember", {"what": "  ", "layer": "technical"}, "empty"),
                ("aide_remember", {"what": "x", "layer": "area_context"}, "needs a scope"),
                ("aide_recall", {"paths": ["../outside"]}, "outside the repository"),
            ):
                res = await call(name, **args)
                assert res.is_error, (name, args)
                assert words in res.content[0].text, res.content[0].text
            res = await call("aide_recall", paths=["src/auth/"])
            assert not res.is_error and res.structured_content["memories"]

            # what only git can answer: the diff and the log, as the commands give them
            res = await call("aide_diff", args=["HEAD"])
            assert not res.is_error, res.content[0].text
            assert res.structured_content == cli_json(repo, "diff", "HEAD")
            assert [c["uuid"] for c in res.structured_content["changed"]] == [auth["uuid"]]
            res = await call("aide_log")
            assert not res.is_error, res.content[0].text
            assert res.structured_content == cli_json(repo, "log")
            (commit,) = res.structured_content["commits"]
            assert {c["change"] for c in commit["changes"]} == {"added"}

            # import: rules text becomes memories, as `git aide import --json` says
            res = await call("aide_import", content="# Rules\n\n- always run the linter\n",
                             layer="guidelines")
            assert not res.is_error, res.content[0].text
            (imported,) = res.structured_content["imported"]
            assert imported["what"] == "always run the linter"
            assert imported["layer"] == "guidelines" and imported["source"] == "import"
            res = await call("aide_import", content="- always run the linter\n",
                             layer="guidelines")
            assert res.structured_content["imported"] == []
            assert [x["reason"] for x in res.structured_content["skipped"]] == ["exists"]

    asyncio.run(session())
    # nothing the server did left the repository in a state validate refuses
    aide_ok(repo, "validate", "--all")


def test_without_the_sdk_it_says_what_to_install(tmp_path: Path) -> None:
    # As if the SDK were missing from a damaged environment (every install has it): the
    # import system finds no `mcp`. The line names this interpreter, not a package name
    # the index does not have.
    code = ("import sys; sys.modules['mcp'] = None; sys.argv = ['git-aide', 'mcp']; "
            "from git_aide.__main__ import main; main()")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=BASE_ENV,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "git-aide: error: the MCP server needs the Python package mcp, missing from this "
        f"installation of git-aide: run {sys.executable} -m pip install 'mcp>=2.3,<3'"]


def test_aide_log_before_the_first_commit_agrees_with_the_cli(tmp_path: Path) -> None:
    from helpers import make_repo

    repo = make_repo(tmp_path / "unborn")
    remember(repo, "staged before any commit")

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("aide_log", {})
            assert not res.is_error, res.content
            assert res.structured_content == cli_json(repo, "log") == {"commits": []}

    asyncio.run(session())


def test_limits_left_out_follow_the_settings(repo: Path) -> None:
    # aide.recall.limit and aide.search.limit apply to agents as to the command line: a
    # call without `limit` answers what `--json` prints; a `limit` given still wins.
    for i in range(6):
        remember(repo, f"the payments queue rule number {i}", "--scope", "src/pay/**")
    git(repo, "config", "aide.recall.limit", "2")
    git(repo, "config", "aide.search.limit", "3")

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("aide_recall", {"paths": ["src/pay/q.py"]})
            assert len(res.structured_content["memories"]) == 2
            res = await s.call_tool("aide_recall", {"paths": ["src/pay/q.py"],
                                                    "detail": "full"})
            assert res.structured_content == cli_json(repo, "recall", "src/pay/q.py")
            res = await s.call_tool("aide_search", {"keyword": "payments"})
            assert len(res.structured_content["memories"]) == 3
            res = await s.call_tool("aide_search", {"keyword": "payments", "detail": "full"})
            assert res.structured_content == cli_json(repo, "search", "payments")
            res = await s.call_tool("aide_search", {"keyword": "payments", "limit": 5})
            assert len(res.structured_content["memories"]) == 5
            # an empty keyword is the caller's mistake, not "nothing matches"
            res = await s.call_tool("aide_search", {"keyword": " "})
            assert res.is_error
            assert "needs words to look for" in res.content[0].text

    asyncio.run(session())


def test_always_on_memories_reach_a_connection_once(repo: Path) -> None:
    # A client with no session-start hook gets the always-on memories with its first
    # recall, marked; not again; and not at all when a session start gave them already.
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    rule = remember(repo, "CI runs on Python 3.10", "--priority", "always")["uuid"]

    async def session(hooked: bool) -> list[list[str]]:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        got = []
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            if hooked:
                hook(repo, "session-start", {"session_id": "h", "cwd": str(repo),
                                             "hook_event_name": "SessionStart",
                                             "source": "startup"})
            for path in ("src/auth/login.py", "src/auth/other.py"):
                res = await s.call_tool("aide_recall", {"paths": [path]})
                ids = [m["id"] for m in res.structured_content["memories"]]
                if rule[:8] in ids:
                    assert res.structured_content["memories"][-1]["priority"] == "always"
                    assert "always on" in res.content[0].text
                got.append(ids)
        return got

    first, second = asyncio.run(session(False))
    assert rule[:8] in first and rule[:8] not in second
    first, second = asyncio.run(session(True))
    assert rule[:8] not in first and rule[:8] not in second


def test_an_agents_writes_are_marked_with_its_client(repo: Path) -> None:
    from mcp.types import Implementation

    person = remember(repo, "deploys happen on tuesdays")
    git(repo, "commit", "-qm", "a person's memory")
    git(repo, "config", "aide.mcp.tools", "all")
    mark = {"tool": "claude-code 2.1.197", "model": None, "author_type": "ai"}

    async def session() -> tuple[str, str]:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        client = Implementation(name="claude-code", version="2.1.197")
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=client) as s:
            await s.initialize()
            res = await s.call_tool("aide_remember", {"what": "the cache is keyed by blob id",
                                                      "layer": "technical"})
            assert not res.is_error, res.content
            made = res.structured_content["uuid"]
            res = await s.call_tool("aide_update", {"id": person["uuid"],
                                                    "why": "the release train"})
            assert not res.is_error, res.content
            res = await s.call_tool("aide_import", {"content": "- tabs, never spaces\n",
                                                    "layer": "guidelines"})
            assert not res.is_error, res.content
            return made, res.structured_content["imported"][0]["uuid"]

    made, imported = asyncio.run(session())
    for ident in (made, person["uuid"], imported):
        assert cli_json(repo, "show", ident)["memory"]["generated_by"] == mark
    assert '"tool":"claude-code 2.1.197"' in aide_ok(repo, "show", made).stdout
    # list filters by who wrote last; a person's update takes the mark away
    listed = {m["uuid"] for m in cli_json(repo, "list", "--by-agent")["memories"]}
    assert listed == {made, person["uuid"], imported}
    assert cli_json(repo, "list", "--generated-by", "claude-code")["memories"]
    assert not cli_json(repo, "list", "--generated-by", "codex")["memories"]
    aide_ok(repo, "update", person["uuid"], "--why", "checked by hand")
    assert cli_json(repo, "show", person["uuid"])["memory"]["generated_by"] is None
    assert {m["uuid"] for m in cli_json(repo, "list", "--by-person")["memories"]} == {
        person["uuid"]}
    # log's text says which changes an agent made
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "agent and person")
    text = aide_ok(repo, "log", "-n", "1").stdout
    lines = [x for x in text.splitlines() if x.strip().startswith(("added", "changed"))]
    assert any(made[:8] in x and "(by claude-code)" in x for x in lines), text
    assert any(person["uuid"][:8] in x and "(by " not in x for x in lines), text


def test_a_compact_answer_leaves_out_what_the_session_holds(repo: Path) -> None:
    # What the session's hooks gave, and what the client's own rules files hold, is not
    # sent again: the answer names it instead; a full answer stays the command's.
    from mcp.types import Implementation

    (repo / "CLAUDE.md").write_text("# Rules\n\n- Review every database migration twice.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    aide_ok(repo, "import", "CLAUDE.md")
    rule = next(m["uuid"] for m in cli_json(repo, "list")["memories"])
    hooked = remember(repo, "billing migrations lock the ledger table", "--layer",
                      "guidelines")["uuid"]
    scoped = remember(repo, "migrations in src/db run in a transaction", "--scope",
                      "src/db/**")["uuid"]

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        me = Implementation(name="claude-code", version="2.1.197")
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=me) as s:
            await s.initialize()
            out = hook(repo, "session-start", {"session_id": "cc", "cwd": str(repo),
                                               "hook_event_name": "SessionStart",
                                               "source": "startup"})[1]
            assert "ledger table" in out and "twice" not in out  # CLAUDE.md holds it
            res = await s.call_tool("aide_search", {"keyword": "migrations"})
            doc = res.structured_content
            assert [m["id"] for m in doc["memories"]] == [scoped[:8]]
            assert set(doc["given"]) == {hooked[:8], rule[:8]}
            assert "Already in your context" in res.content[0].text
            res = await s.call_tool("aide_search", {"keyword": "migrations", "detail": "full"})
            assert res.structured_content == cli_json(repo, "search", "migrations")

    asyncio.run(session())


def test_rules_claude_loaded_on_opening_a_file_are_not_sent_again(repo: Path) -> None:
    # Claude Code loads packages/core/CLAUDE.md when it opens a file under packages/core:
    # after its hook saw that read, the server's answers leave that file's rules out.
    from mcp.types import Implementation

    (repo / "packages" / "core").mkdir(parents=True)
    (repo / "packages" / "core" / "CLAUDE.md").write_text(
        "# Core\n\n- Core migrations never drop a column in the same release.\n")
    (repo / "packages" / "core" / "db.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "nested rules")
    aide_ok(repo, "import", "packages/core/CLAUDE.md")
    rule = next(m["uuid"] for m in cli_json(repo, "list")["memories"])

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        me = Implementation(name="claude-code", version="2.1.197")
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=me) as s:
            await s.initialize()
            hook(repo, "session-start", {"session_id": "cc", "cwd": str(repo),
                                         "hook_event_name": "SessionStart", "source": "startup"})
            res = await s.call_tool("aide_search", {"keyword": "migrations"})
            assert [m["id"] for m in res.structured_content["memories"]] == [rule[:8]]
            hook(repo, "pre-tool-use", claude_read(repo, "packages/core/db.py", session="cc"))
            res = await s.call_tool("aide_search", {"keyword": "migrations"})
            assert res.structured_content["memories"] == []
            assert res.structured_content["given"] == [rule[:8]]

    asyncio.run(session())


def test_a_session_started_after_the_first_call_is_seen_by_the_next(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server keeps the sessions it read while their folder is unchanged: a session
    start after its first call (a record written in that folder) is read by the next
    call, whose compact answer then names what that session holds."""
    import os
    import time

    from helpers import in_this_process, served

    from git_aide.agents.mcp.server import ready_state

    held = remember(repo, "billing migrations lock the ledger table", "--layer",
                    "guidelines")["uuid"]
    in_this_process(repo, monkeypatch)
    mem = ready_state("claude-code 2.1.197")
    os.makedirs(os.path.join(mem.repo().cache_dir, "sessions"), exist_ok=True)
    time.sleep(0.3)  # older than a racy folder
    first = served(mem, "aide_search", {"keyword": "ledger", "detail": "compact"})
    assert [m["id"] for m in first["memories"]] == [held[:8]]
    assert mem.sessions_seen is not None  # kept
    out = hook(repo, "session-start", {"session_id": "cc", "cwd": str(repo),
                                       "hook_event_name": "SessionStart",
                                       "source": "startup"},
               env={"GIT_AIDE_SERVER": "0"})[1]
    assert "ledger table" in out
    again = served(mem, "aide_search", {"keyword": "ledger", "detail": "compact"})
    assert again["memories"] == [] and again["given"] == [held[:8]]
    mem.worked(20)
