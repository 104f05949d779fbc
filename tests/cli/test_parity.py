"""The command line and the MCP tools take the same things (docs/commands.md): each
filter, change and id through the real command on a real repository, and the same
through `git aide mcp` as an agent starts it, with the same answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import McpServer, aide, aide_ok, edit_by_hand, git, remember, uuids

pytest.importorskip("mcp")


@pytest.fixture
def store(repo: Path) -> dict[str, dict[str, Any]]:
    """Six memories, each with the word "note": scopes at, under, beside and above
    src/auth, tags, two contributors, one always-on, one with aide-memory's id 7."""
    made = {
        "tokens": remember(repo, "note: auth tokens rotate hourly", "--layer", "area_context",
                           "--scope", "src/auth/**", "--tag", "security"),
        "login": remember(repo, "note: the login form debounces", "--scope",
                          "src/auth/login.py", "--tag", "ui", "--contributor", "Bob"),
        "tabs": remember(repo, "note: all of src uses tabs", "--scope", "src/**",
                         "--tag", "style"),
        "authz": remember(repo, "note: authz checks roles", "--scope", "src/authz/**"),
        "review": remember(repo, "note: review migrations twice", "--layer", "guidelines",
                           "--tag", "security", "--priority", "always"),
        "api": remember(repo, "note: api handlers are async", "--scope", "src/web/api/**"),
    }
    edit_by_hand(repo, made["api"]["path"], id=7)
    git(repo, "add", "-A", ".aide")
    git(repo, "commit", "-qm", "memories")
    return made


@pytest.fixture
def mcp(repo: Path) -> Iterator[McpServer]:
    """`git aide mcp` in the repository, initialized."""
    srv = McpServer(repo)
    srv.initialize()
    srv.notify("notifications/initialized")
    yield srv
    assert srv.close()[0] == 0


def tool(srv: McpServer, name: str, **args: Any) -> dict[str, Any]:
    """A tool call's structured content (a read tool's in full: the command's --json
    document), insisting that it succeeded."""
    if name in ("aide_recall", "aide_search", "aide_memories"):
        args = {"detail": "full", **args}
    res = srv.request(name, "tools/call", {"name": name, "arguments": args})["result"]
    assert not res.get("isError"), res
    doc: dict[str, Any] = res["structuredContent"]
    return doc


def tool_error(srv: McpServer, name: str, **args: Any) -> str:
    res = srv.request(name, "tools/call", {"name": name, "arguments": args})["result"]
    assert res.get("isError"), res
    text: str = res["content"][0]["text"]
    return text


def listed(repo: Path, *args: str) -> set[str]:
    return set(uuids(aide_ok(repo, *args, "--json")))


def ids(doc: dict[str, Any]) -> set[str]:
    return {m["uuid"] for m in doc["memories"]}


def test_list_scope_keeps_what_lies_at_or_under_a_place(
        repo: Path, store: dict[str, dict[str, Any]], mcp: McpServer) -> None:
    u = {k: v["uuid"] for k, v in store.items()}
    for place, want in (("src/auth", {u["tokens"], u["login"]}),  # not src/authz, not src/**
                        ("src/auth/**", {u["tokens"], u["login"]}),
                        ("src/auth/login.py", {u["login"]}),
                        ("src/*/api", {u["api"]}),
                        ("src", {u["tokens"], u["login"], u["tabs"], u["authz"], u["api"]}),
                        ("project", {u["review"]}),
                        ("docs", set())):
        assert listed(repo, "list", "--scope", place) == want, place
        assert ids(tool(mcp, "aide_memories", scope=place)) == want, place
    # with the other filters, on both sides
    assert listed(repo, "list", "--scope", "src/auth", "--layer", "technical") == {u["login"]}
    assert ids(tool(mcp, "aide_memories", scope="src/auth", layer="technical")) == {u["login"]}
    bad = aide(repo, "list", "--scope", "/etc/**")
    assert bad.returncode == 2 and "absolute" in bad.stderr
    assert "absolute" in tool_error(mcp, "aide_memories", scope="/etc/**")


def test_tag_contributor_and_priority_filters_on_both_sides(
        repo: Path, store: dict[str, dict[str, Any]], mcp: McpServer) -> None:
    u = {k: v["uuid"] for k, v in store.items()}
    security = {u["tokens"], u["review"]}
    # list / aide_memories
    assert listed(repo, "list", "--tag", "security") == security
    assert ids(tool(mcp, "aide_memories", tags=["security"])) == security
    assert listed(repo, "list", "--priority", "always") == {u["review"]}
    assert ids(tool(mcp, "aide_memories", priority="always")) == {u["review"]}
    # search / aide_search: --tag and --contributor narrow what the words find
    assert len(listed(repo, "search", "note")) == 6
    assert listed(repo, "search", "note", "--tag", "security") == security
    assert ids(tool(mcp, "aide_search", keyword="note", tags=["security"])) == security
    assert listed(repo, "search", "note", "--contributor", "bob") == {u["login"]}
    assert ids(tool(mcp, "aide_search", keyword="note", contributor="bob")) == {u["login"]}
    assert listed(repo, "search", "note", "--tag", "security", "--layer", "guidelines") == \
        {u["review"]}
    # keyword mode and the plain (click-free) parser give the same
    assert listed(repo, "search", "note", "--mode", "keyword", "--tag", "ui") == {u["login"]}
    # recall / aide_recall
    path = "src/auth/login.py"
    assert listed(repo, "recall", path, "--tag", "security") == security
    assert ids(tool(mcp, "aide_recall", paths=[path], tags=["security"])) == security
    assert listed(repo, "recall", path, "--contributor", "Bob") == {u["login"]}


def test_remember_takes_a_contributor(repo: Path, store: dict[str, dict[str, Any]],
                                      mcp: McpServer) -> None:
    shown = aide_ok(repo, "show", store["login"]["uuid"], "--json").json()["memory"]
    assert shown["contributor"] == "Bob"
    made = tool(mcp, "aide_remember", what="use pnpm", layer="technical", contributor="Bob")
    assert json.loads((repo / made["path"]).read_text())["contributor"] == "Bob"
    assert listed(repo, "list", "--contributor", "Bob") == {store["login"]["uuid"],
                                                            made["uuid"]}
    # who wrote it last: the agent (this client) or a person, on both sides
    assert listed(repo, "list", "--by-agent") == {made["uuid"]}
    assert ids(tool(mcp, "aide_memories", by="agent")) == {made["uuid"]}
    assert listed(repo, "list", "--generated-by", "test-client") == {made["uuid"]}
    assert ids(tool(mcp, "aide_memories", generated_by="test-client")) == {made["uuid"]}
    people = {m["uuid"] for m in store.values()}
    assert listed(repo, "list", "--by-person") == people
    assert ids(tool(mcp, "aide_memories", by="person")) == people


def test_show_update_and_forget_take_aide_memorys_id(
        repo: Path, store: dict[str, dict[str, Any]], mcp: McpServer) -> None:
    api = store["api"]
    shown = aide_ok(repo, "show", "7", "--json").json()["memory"]
    assert shown["uuid"] == api["uuid"] and shown["id"] == 7
    assert tool(mcp, "aide_recall", ids=["7"])["memories"][0]["uuid"] == api["uuid"]
    assert "Tool" not in aide_ok(repo, "show", "7").stdout
    missing = aide(repo, "show", "8")
    assert missing.returncode == 1 and "no memory with id '8'" in missing.stderr
    assert "no memory with id" in tool_error(mcp, "aide_forget", id=8)

    aide_ok(repo, "update", "7", "--what", "note: api handlers are async, always")
    assert json.loads((repo / api["path"]).read_text())["what"].endswith("always")
    assert tool(mcp, "aide_update", id=7, why="the event loop")["uuid"] == api["uuid"]
    gone = aide_ok(repo, "forget", "7", "--json").json()
    assert gone["forgotten"] == [api["uuid"]]
    assert not (repo / api["path"]).exists()


def test_update_changes_tags_and_layer_on_both_sides(
        repo: Path, store: dict[str, dict[str, Any]], mcp: McpServer) -> None:
    tokens, tabs = store["tokens"], store["tabs"]
    aide_ok(repo, "update", tokens["uuid"], "--tag", "auth", "--untag", "security")
    by_cli = aide_ok(repo, "show", tokens["uuid"], "--json").json()["memory"]
    assert by_cli["tags"] == ["auth"]
    done = tool(mcp, "aide_update", id=tabs["uuid"][:8], add_tags=["auth"],
                remove_tags=["style"], layer="guidelines")
    by_mcp = aide_ok(repo, "show", tabs["uuid"], "--json").json()["memory"]
    assert by_mcp["tags"] == ["auth"] and by_mcp["layer"] == "guidelines"
    assert done["path"].startswith(".aide/memories/guidelines/")
    assert listed(repo, "list", "--tag", "auth") == {tokens["uuid"], tabs["uuid"]}
    # an empty change is refused on both sides, naming what may be given
    assert "add_tags" in tool_error(mcp, "aide_update", id=tabs["uuid"], add_tags=[])
    assert "--untag" in aide(repo, "update", tabs["uuid"]).stderr
