"""The user's own store through an agent's front ends: the MCP server's tools (writing it
with `user: true`, reaching its memories by id, an answer given again only while the
store is the same) and the hooks (a session start carries its preferences, a file its
scoped memories, each once a session)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    McpServer,
    aide_ok,
    claude_read,
    commit,
    commit_for_a_view,
    hook,
    hook_context,
    remember,
)

from git_aide.cache.folder import RACY_SECONDS

FILE = "src/auth/login.py"


def start(repo: Path, env: dict[str, str]) -> McpServer:
    srv = McpServer(repo, env)
    srv.initialize()
    srv.notify("notifications/initialized")
    return srv


def call(srv: McpServer, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The call's result (its structured content and its text)."""
    res: dict[str, Any] = srv.request(tool, "tools/call",
                                      {"name": tool, "arguments": args})["result"]
    assert not res.get("isError"), res
    return res


def test_an_agent_writes_reads_and_forgets_a_user_memory(repo: Path,
                                                         user_store: dict[str, str]) -> None:
    pytest.importorskip("mcp")
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    commit(repo)
    srv = start(repo, user_store)
    try:
        made = call(srv, "aide_remember", {"what": "The user likes terse answers about auth",
                                           "layer": "preferences", "user": True})
        doc = made["structuredContent"]
        assert doc["store"] == "user" and doc["committed"] and not doc["staged"]
        short = doc["uuid"][:8]
        # in the user's store, marked as an agent's; not in the project
        listed = aide_ok(repo, "list", "--user", "--json", env=user_store).json()
        assert listed["memories"][0]["generated_by"]["tool"] == "test-client 1.0"
        assert aide_ok(repo, "list", "--json", "--cached", env=user_store).json()[
            "memories"][0]["what"] == "auth tokens rotate hourly"
        # a compact recall marks it, and so does its text
        res = call(srv, "aide_recall", {"paths": [FILE]})
        item = next(m for m in res["structuredContent"]["memories"] if m["id"] == short)
        assert item["store"] == "user"
        assert "yours, in every repository" in res["content"][0]["text"]
        # the full answer is the command line's
        full = call(srv, "aide_recall", {"paths": [FILE], "detail": "full"})
        assert full["structuredContent"] == aide_ok(repo, "recall", FILE, "--json",
                                                    env=user_store).json()
        # by id: updated and forgotten in the user's store
        call(srv, "aide_update", {"id": short, "what": "The user likes short answers"})
        assert aide_ok(repo, "list", "--user", "--json", env=user_store).json()[
            "memories"][0]["what"] == "The user likes short answers"
        gone = call(srv, "aide_forget", {"id": short})["structuredContent"]
        assert gone["forgotten"] == [doc["uuid"]] and gone["store"] == "user"
        assert aide_ok(repo, "list", "--user", "--json", env=user_store).json()[
            "memories"] == []
        # shared=false with user=true is two places at once
        res = srv.request("bad", "tools/call", {"name": "aide_remember", "arguments": {
            "what": "x y z", "layer": "preferences", "user": True, "shared": False}})
        assert res["result"]["isError"]
    finally:
        srv.close()


def test_an_answer_is_given_again_only_while_the_store_is_the_same(
        repo: Path, user_store: dict[str, str]) -> None:
    """The server gives an identical call's answer again while nothing it depends on
    changed: a memory remembered in the user store by another process is such a
    change."""
    pytest.importorskip("mcp")
    aide_ok(repo, "remember", "prefer pathlib", "--user", "--scope", "**/*.py",
            env=user_store)
    commit_for_a_view(repo)  # and the store's file old enough for its stat to vouch
    srv = start(repo, user_store)
    try:
        args = {"paths": [FILE]}

        def whats() -> list[str]:
            return [m["what"] for m in call(srv, "aide_recall", args)[
                "structuredContent"]["memories"]]

        assert whats() == ["prefer pathlib"]
        assert whats() == ["prefer pathlib"]  # given again
        aide_ok(repo, "remember", "type every python function", "--user", "--scope",
                "**/*.py", env=user_store)
        time.sleep(RACY_SECONDS + 0.2)  # its stat vouches for it: the store's own change
        assert sorted(whats()) == ["prefer pathlib", "type every python function"]
    finally:
        srv.close()


def test_hooks_carry_the_users_memories_once_a_session(repo: Path,
                                                       user_store: dict[str, str]) -> None:
    remember(repo, "review every migration twice", "--layer", "guidelines")
    aide_ok(repo, "remember", "The user likes terse answers", "--user", env=user_store)
    py = aide_ok(repo, "remember", "prefer pathlib", "--user", "--scope", "**/*.py",
                 "--json", env=user_store).json()
    commit(repo)
    start = {"session_id": "s-1", "cwd": str(repo), "source": "startup",
             "hook_event_name": "SessionStart"}
    _rc, out, _err = hook(repo, "session-start", start, env=user_store)
    context = hook_context(out)
    assert "review every migration twice" in context
    assert "The user likes terse answers [project, yours]" in context
    assert f"prefer pathlib [**/*.py, yours] id:{py['uuid'][:8]}" in context
    # given once: the file it applies to does not bring it again
    _rc, out, _err = hook(repo, "pre-tool-use", claude_read(repo, FILE), env=user_store)
    assert "prefer pathlib" not in out
    # a session that had no start gets it with a file it applies to, and not with another
    _rc, out, _err = hook(repo, "pre-tool-use",
                          claude_read(repo, "docs/notes.md", session="s-2"), env=user_store)
    assert "prefer pathlib" not in out
    _rc, out, _err = hook(repo, "pre-tool-use", claude_read(repo, FILE, session="s-2"),
                          env=user_store)
    assert f"prefer pathlib [**/*.py, yours] id:{py['uuid'][:8]}" in hook_context(out)
