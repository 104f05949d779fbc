"""`git aide mcp` after a regular install, and the start of a connection (issue 20,
items 1 and 2): the server answers `initialize` and `tools/list` without loading the
SDK, hands the connection to the SDK at the first tool call, and its first answers are
the SDK's own. Raw JSON-RPC over the server's pipes, as an agent speaks it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import BASE_ENV, ROOT, aide_ok, git, remember
from helpers import McpServer as Server

from git_aide.warm.state import ServerState

pytest.importorskip("mcp")

#: The tools listed by default (aide.mcp.tools: aide_import, aide_diff and aide_log too).
TOOLS = {"aide_recall", "aide_remember", "aide_update", "aide_forget", "aide_memories",
         "aide_search"}


def test_a_regular_install_has_the_server() -> None:
    # README installs git-aide without extras: the SDK must come with it, and the old
    # extra must still install (as nothing more).
    import tomlkit

    project = tomlkit.parse((ROOT / "pyproject.toml").read_text())["project"]
    assert "mcp>=2.3,<3" in project["dependencies"]
    assert list(project["optional-dependencies"]["mcp"]) == []


def test_the_start_of_a_connection_needs_no_sdk(repo: Path, tmp_path: Path) -> None:
    """initialize, ping, tools/list and the tool calls are answered without the SDK:
    with an SDK that cannot even be imported, they still are; the first message that
    needs the SDK then gets an error of one line, and so does the agent's log."""
    fake = tmp_path / "broken" / "mcp"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('this SDK is broken')\n")
    srv = Server(repo, env={"PYTHONPATH": str(fake.parent)})
    init = srv.initialize()
    assert init["id"] == 1 and init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["serverInfo"]["name"] == "git-aide"
    assert "aide_recall" in init["result"]["instructions"]
    srv.notify("notifications/initialized")
    assert srv.request(2, "ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}
    tools = srv.request(3, "tools/list")["result"]["tools"]
    assert {t["name"] for t in tools} == TOOLS
    called = srv.request(4, "tools/call", {"name": "aide_memories", "arguments": {}})
    assert called["id"] == 4 and called["result"]["isError"] is False
    failed = srv.request(5, "resources/list")
    assert failed["id"] == 5 and failed["error"]["code"] == -32603
    assert "the MCP SDK cannot be loaded: ImportError: this SDK is broken" in \
        failed["error"]["message"]
    status, err = srv.close()
    assert status == 1
    assert err.splitlines() == ["git-aide: error: the MCP SDK cannot be loaded: "
                                "ImportError: this SDK is broken"]


def _session(repo: Path, version: str, sdk_first: bool) -> list[dict[str, Any]]:
    """initialize, tools/list, ping and tool calls (an answer, an error, a tool refused
    for its arguments); `sdk_first`: a notification before initialize, which this server
    leaves to the SDK, so that the SDK itself answers them all."""
    srv = Server(repo)
    if sdk_first:
        srv.notify("notifications/cancelled", {"requestId": 99})
    got = [srv.initialize(version)]
    srv.notify("notifications/initialized")
    got.append(srv.request(2, "tools/list"))
    got.append(srv.request(3, "ping"))
    if "result" in got[0]:
        got.append(srv.request(4, "tools/call", {"name": "aide_recall",
                                                 "arguments": {"paths": ["src/a.py"]}}))
        got.append(srv.request(5, "tools/call", {"name": "aide_search",
                                                 "arguments": {"keyword": "rotate"}}))
        got.append(srv.request(6, "tools/call", {"name": "aide_forget", "arguments": {}}))
        got.append(srv.request(7, "tools/call", {"name": "aide_recall",
                                                 "arguments": {"paths": ["src/a.py"]},
                                                 "_meta": {"progressToken": 7}}))
    assert srv.close() == (0, "")
    return got


def test_the_first_answers_are_the_sdks_own(repo: Path) -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION

    from git_aide.agents.mcp.handshake import HANDSHAKE_VERSIONS

    remember(repo, "auth tokens rotate hourly", "--scope", "src/**")
    git(repo, "commit", "-qm", "one")

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    # every version answered here, one answered by the SDK alone, one nobody knows
    for version in (*HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION, "1999-01-01"):
        assert _session(repo, version, sdk_first=False) == \
            _session(repo, version, sdk_first=True), version


def test_the_session_goes_on_after_the_handover(repo: Path) -> None:
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
             "--layer", "area_context")
    git(repo, "commit", "-qm", "one")
    srv = Server(repo)
    assert "result" in srv.initialize(mid=1)
    srv.notify("notifications/initialized")
    listed = srv.request(2, "tools/list")["result"]
    # the first call reuses the id of initialize: its answer is the call's, not the
    # SDK's answer to the replayed initialize
    res = srv.request(1, "tools/call", {"name": "aide_recall",
                                        "arguments": {"paths": ["src/auth/login.py"],
                                                      "detail": "full"}})
    assert res["id"] == 1, res
    doc = aide_ok(repo, "recall", "src/auth/login.py", "--json").json()
    assert res["result"]["structuredContent"] == doc
    assert res["result"]["isError"] is False
    # from here the SDK answers: the same tools, pings, and errors of its own
    assert srv.request("x", "tools/list")["result"] == listed
    assert srv.request(5, "ping")["result"] == {}
    unknown = srv.request(6, "tools/call", {"name": "aide_nothing", "arguments": {}})
    assert unknown["error"]["code"] == -32602 and "aide_nothing" in unknown["error"]["message"]
    assert "error" in srv.request(7, "no/such/method")
    res = srv.request(8, "tools/call", {"name": "aide_search", "arguments": {"keyword": "tokens"}})
    assert [m["what"] for m in res["result"]["structuredContent"]["memories"]] == \
        ["auth tokens rotate hourly"]
    assert srv.close() == (0, "")


def test_a_client_that_lists_and_leaves_is_not_kept_waiting(repo: Path) -> None:
    # As `claude mcp list` or `gemini mcp list`: initialize, the tools, then gone.
    srv = Server(repo)
    assert "result" in srv.initialize()
    srv.notify("notifications/initialized")
    assert len(srv.request(2, "tools/list")["result"]["tools"]) == len(TOOLS)
    assert srv.close() == (0, "")


def _imported(cwd: Path, *args: str, stdin: str | None = None) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", *args],
                          cwd=cwd, env=BASE_ENV, capture_output=True, text=True, input=stdin)
    assert proc.returncode == 0, proc.stderr
    return {line.rsplit("|", 1)[1].strip().split(".")[0]
            for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_the_sdk_is_installed_but_never_loaded_by_the_cli_or_the_hooks(repo: Path) -> None:
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
             "--layer", "area_context")
    sdk = {"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette"}
    for args, stdin in ((("--version",), None), (("recall", "src/auth/x.py"), None),
                        (("list",), None),
                        (("hook", "session-start", "--agent", "claude"),
                         json.dumps({"session_id": "s", "cwd": str(repo),
                                     "hook_event_name": "SessionStart"}))):
        assert not _imported(repo, *args, stdin=stdin) & sdk, args


def billing_server(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ServerState, Path]:
    """Make, in this process, the state a server makes before its first call, on two
    committed billing memories: (the state, the file of the first memory)."""
    from helpers import commit_for_a_view, in_this_process, write_memory

    from git_aide.agents.mcp.server import ready_state
    from git_aide.core.memory import relpath

    kept = write_memory(repo, "refunds retry three times", scope="src/billing/**")
    write_memory(repo, "invoices keep their number", scope="src/billing/**")
    commit_for_a_view(repo)
    in_this_process(repo, monkeypatch)
    return ready_state("bench/1"), repo / relpath(kept)


def test_a_server_ready_before_its_first_call_still_sees_a_hand_edit(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state a server makes before its first call (server.ready_state: the view read,
    the work between calls started, the watch of the memory folders first) answers that
    call as the command line does, with a file edited by hand after it was made, whether
    the watch is made yet or not (a call until then asks git)."""
    from helpers import served

    mem, path = billing_server(repo, monkeypatch)
    assert mem.held.views and mem.calls == 0  # the view read; no call counted
    path.write_text(path.read_text().replace("three times", "five times"))
    got = served(mem, "aide_recall", {"paths": ["src/billing/refund.py"]})
    assert got == aide_ok(repo, "recall", "src/billing/refund.py", "--json").json()
    assert "refunds retry five times" in [m["what"] for m in got["memories"]]
    mem.worked(20)


def test_a_server_whose_watch_is_made_between_calls_sees_a_hand_edit_without_git(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch a server makes between its calls, before or after the first, vouches
    for the next call's files (git is not asked), and that call sees a hand edit made
    once it was made."""
    from helpers import served

    mem, path = billing_server(repo, monkeypatch)
    assert mem.worked(20)
    path.write_text(path.read_text().replace("three times", "five times"))
    got = served(mem, "aide_recall", {"paths": ["src/billing/refund.py"]})
    assert mem.changes.vouched  # the watch answered, not git
    assert got == aide_ok(repo, "recall", "src/billing/refund.py", "--json").json()
    assert "refunds retry five times" in [m["what"] for m in got["memories"]]
    mem.worked(20)


def test_the_first_recall_worked_out_ahead_gives_the_same_answer_and_counts_nothing(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server works out a first recall ahead, between calls (readtools.rehearse: what
    any first recall works out for itself is then kept), and drops it: its first call
    brings the always-on memories all the same, edited by hand since, and answers as a
    server that worked nothing out ahead; nothing was counted for the recall ahead."""
    from helpers import write_memory

    from git_aide.agents.mcp import server
    from git_aide.core.memory import relpath

    always = write_memory(repo, "run the linter before pushing", priority="always")
    mem, _path = billing_server(repo, monkeypatch)
    assert mem.worked(20)
    assert mem.compact_items._by_key  # the items of a recall were made ahead
    assert not mem.always_given and not mem.uncounted and mem.counted is None
    edited = repo / relpath(always)
    edited.write_text(edited.read_text().replace("the linter", "the formatter"))

    def first(mem: server.ServerState) -> tuple[str, object]:
        text, doc, failed = server.call(mem, "aide_recall",
                                        {"paths": ["src/billing/refund.py"]})
        assert not failed, text
        return text, doc

    got = first(mem)
    assert [c[1] for c in mem.uncounted] == ["recall"]  # the call's own, once
    assert "run the formatter before pushing" in got[0]
    assert "run the linter" not in got[0]
    assert got == first(server.ServerState())  # worked out by the call itself


def test_the_work_between_calls_turns_the_garbage_collector_on_again_once_done(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The work between calls runs without the cyclic garbage collector (the heap it
    grows set off full collections, pauses a call waited for), and turns it on again
    once done; a call meanwhile answers as the command line does."""
    import gc

    from helpers import served

    mem, _path = billing_server(repo, monkeypatch)
    got = served(mem, "aide_recall", {"paths": ["src/billing/refund.py"]})
    assert got == aide_ok(repo, "recall", "src/billing/refund.py", "--json").json()
    assert mem.worked(20)
    assert gc.isenabled()
