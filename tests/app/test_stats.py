"""`git aide stats` (app/stats.py): the recalls, searches and writes each front end made on
this machine, the memories agents were given most, and those they never saw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import McpServer, aide_ok, claude_read, git, hook, remember


def stats(repo: Path) -> dict[str, Any]:
    return aide_ok(repo, "stats", "--json").json()


def test_the_command_line_counts_recalls_searches_and_writes(repo: Path) -> None:
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    b = remember(repo, "billing retries use backoff", "--scope", "src/billing/**")["uuid"]
    gone = remember(repo, "an old idea about tokens")["uuid"]
    aide_ok(repo, "update", b, "--what", "billing retries use exponential backoff")
    aide_ok(repo, "forget", gone)
    status = git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored")
    for _ in range(2):
        aide_ok(repo, "recall", "src/auth/login.py")
    aide_ok(repo, "search", "billing")
    doc = stats(repo)
    calls = doc["calls"]
    assert calls["recall"] == {"cli": 2, "mcp": 0, "hook": 0}
    assert calls["search"] == {"cli": 1, "mcp": 0, "hook": 0}
    assert (calls["remember"]["cli"], calls["update"]["cli"], calls["forget"]["cli"]) == (3, 1, 1)
    assert [(m["uuid"], m["recalls"]) for m in doc["most_recalled"]][0] == (a, 2)
    # What a person's command line shows is not an agent's use.
    assert doc["used_by_agents"] == []
    assert {m["uuid"] for m in doc["never_seen"]} == {a, b}
    text = aide_ok(repo, "stats").stdout
    assert "       2  recalls (cli 2)" in text
    assert "       5  writes (remember 3, update 1, forget 1)" in text
    assert "never given to an agent: 2 of 2" in text
    # Counted in the git folder, never in the working tree: nothing to commit.
    assert (repo / ".git" / "aide" / "usage" / "log").is_file()
    assert git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored") == status


def test_hooks_and_the_mcp_server_count_what_agents_were_given(repo: Path) -> None:
    pytest.importorskip("mcp")
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    rule = remember(repo, "review every migration twice", "--layer", "guidelines")["uuid"]
    found = remember(repo, "the ledger is append only", "--scope", "src/ledger/**")["uuid"]
    unseen = remember(repo, "dashboards refresh every minute", "--scope", "ui/**")["uuid"]
    git(repo, "commit", "-qm", "memories")
    hook(repo, "session-start", {"session_id": "s", "cwd": str(repo), "source": "startup",
                                 "hook_event_name": "SessionStart"})
    _rc, out, _err = hook(repo, "pre-tool-use", claude_read(repo, "src/auth/login.py", "s"))
    assert "rotate hourly" in out
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        for mid, (tool, args) in enumerate((("aide_search", {"keyword": "ledger"}),
                                            ("aide_search", {"keyword": "ledger"}),
                                            ("aide_recall", {"paths": ["src/auth/x.py"]}))):
            res = srv.request(mid + 2, "tools/call", {"name": tool, "arguments": args})
            assert not res["result"].get("isError"), res
    finally:
        status, err = srv.close()  # the server counts once its answers are out
    assert status == 0, err
    doc = stats(repo)
    calls = doc["calls"]
    assert calls["session"]["hook"] == 1 and calls["recall"]["hook"] == 1
    # The second search was given again from what the server kept: counted all the same.
    assert calls["search"]["mcp"] == 2 and calls["recall"]["mcp"] == 1
    uses = {m["uuid"]: m["uses"] for m in doc["used_by_agents"]}
    assert uses[found] == 2 and uses[rule] == 1 and uses[a] >= 1
    assert [m["uuid"] for m in doc["never_seen"]] == [unseen]
    listed = aide_ok(repo, "list", "--never-seen", "--json").json()["memories"]
    assert [m["uuid"] for m in listed] == [unseen]
    assert "used most by agents" in aide_ok(repo, "stats").stdout
