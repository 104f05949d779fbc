"""The warm MCP server gives an identical call's answer again, and reads no config,
while nothing the answer depends on changed (warm/state.py). Each test changes one such
thing between identical calls: the next answer is the command line's for what is there
now."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import McpServer, aide_ok, git, remember

pytest.importorskip("mcp")

#: Longer than warm/gitconfig.RACY_SECONDS: a config file this old is trusted by its stat.
SETTLE = 2.2
FILE = "src/auth/login.py"


def start(repo: Path, env: dict[str, str] | None = None) -> McpServer:
    srv = McpServer(repo, env)
    srv.initialize()
    srv.notify("notifications/initialized")
    return srv


def call(srv: McpServer, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The call's structured content in full: the command's --json document."""
    res = srv.request(tool, "tools/call", {"name": tool,
                                           "arguments": {**args, "detail": "full"}})["result"]
    assert not res.get("isError"), res
    doc: dict[str, Any] = res["structuredContent"]
    return doc


def whats(doc: dict[str, Any]) -> list[str]:
    return [m["what"] for m in doc["memories"]]


def edit_by_hand(repo: Path, rel: str, what: str) -> None:
    path = repo / rel
    record = json.loads(path.read_text())
    record["what"] = what
    path.write_text(json.dumps(record, indent=2) + "\n")


def test_an_identical_call_after_a_hand_edit_sees_it(repo: Path) -> None:
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
                 "--layer", "area_context")["path"]
    b = remember(repo, "review every migration twice", "--layer", "guidelines")["path"]
    git(repo, "commit", "-qm", "memories")
    calls = [("aide_recall", {"paths": [FILE]}, ["recall", FILE]),
             ("aide_recall", {"paths": [FILE], "query": "tokens"},
              ["recall", FILE, "--query", "tokens"]),
             ("aide_search", {"keyword": "migration"}, ["search", "migration"]),
             ("aide_memories", {}, ["list"])]
    srv = start(repo)
    try:
        for step, change in (("start", None), ("again", None),
                             ("edit a", lambda: edit_by_hand(repo, a, "auth tokens rotate "
                                                             "every 30 minutes")),
                             ("again", None),
                             ("edit b", lambda: edit_by_hand(repo, b, "review every "
                                                             "migration three times")),
                             ("again", None)):
            if change is not None:
                change()
            for tool, args, argv in calls:
                got = call(srv, tool, args)
                want = aide_ok(repo, *argv, "--json").json()
                assert got == want, (step, tool)
        assert "auth tokens rotate every 30 minutes" in whats(call(srv, *calls[0][:2]))
        assert whats(call(srv, *calls[2][:2])) == ["review every migration three times"]
    finally:
        srv.close()


def test_a_checkout_is_seen_by_the_next_identical_call(repo: Path) -> None:
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    git(repo, "commit", "-qm", "main's memory")
    git(repo, "checkout", "-qb", "other")
    remember(repo, "login throttles after five tries", "--scope", "src/auth/**")
    git(repo, "commit", "-qm", "other's memory")
    git(repo, "checkout", "-q", "main")
    srv = start(repo)
    try:
        for branch in ("main", "main", "other", "other", "main"):
            git(repo, "checkout", "-q", branch)
            got = call(srv, "aide_recall", {"paths": [FILE]})
            assert got == aide_ok(repo, "recall", FILE, "--json").json(), branch
            assert ("login throttles after five tries" in whats(got)) == (branch == "other")
    finally:
        srv.close()


def test_a_config_change_is_seen_in_any_of_its_files(repo: Path, tmp_path: Path) -> None:
    # Each change is made, then left to age past the racy window, so that only the
    # stat of the file it was made in can tell the server to read the config again.
    glob = tmp_path / "global.gitconfig"
    glob.write_text("")
    more = tmp_path / "more.gitconfig"
    more.write_text("")
    env = {"GIT_CONFIG_GLOBAL": str(glob)}
    git(repo, "config", "include.path", str(more))
    for i in range(2):
        remember(repo, f"auth rule {i}", "--scope", "src/auth/**")
    for i in range(4):  # project-wide: aide.recall.projectWideLimit of them are recalled
        remember(repo, f"the auth login rule {i}")
    git(repo, "commit", "-qm", "memories")
    time.sleep(SETTLE)
    srv = start(repo, env)
    try:
        def recalled(step: str) -> int:
            got = call(srv, "aide_recall", {"paths": [FILE]})
            assert got == aide_ok(repo, "recall", FILE, "--json", env=env).json(), step
            return len(got["memories"])

        assert recalled("start") == 2 + 3
        assert recalled("again") == 2 + 3
        more.write_text('[aide "recall"]\n\tprojectWideLimit = 1\n')
        time.sleep(SETTLE)
        assert recalled("included file") == 2 + 1
        more.write_text("")
        glob.write_text('[aide "recall"]\n\tprojectWideLimit = 2\n')
        time.sleep(SETTLE)
        assert recalled("global file") == 2 + 2
        git(repo, "config", "aide.recall.projectWideLimit", "0")
        time.sleep(SETTLE)
        assert recalled("repository's file") == 2
    finally:
        srv.close()


def counted(repo: Path) -> list[tuple[str, int]]:
    """(uuid, recalls) of the most recalled memories, as `git aide stats` says."""
    top = aide_ok(repo, "stats", "--json").json()["most_recalled"]
    return [(m["uuid"], m["recalls"]) for m in top]


def test_every_recall_counts_whether_worked_out_or_given_again(repo: Path) -> None:
    uuid = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)
    try:
        for _ in range(3):
            assert whats(call(srv, "aide_recall", {"paths": [FILE]})) == [
                "auth tokens rotate hourly"]
    finally:
        status, err = srv.close()  # the counts are written once the answers are out
    assert status == 0, err
    assert counted(repo) == [(uuid, 3)]


def test_recalls_are_counted_once_the_server_is_quiet(repo: Path) -> None:
    # A burst of recalls is counted in one write of the stats, a second after the last
    # call (warm/state.IDLE_SECONDS), while the server goes on.
    uuid = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)
    try:
        for _ in range(4):
            call(srv, "aide_recall", {"paths": [FILE]})
        so_far: list[tuple[str, int]] = []
        for _ in range(50):
            time.sleep(0.2)
            so_far = counted(repo)
            if so_far:
                break
        assert so_far == [(uuid, 4)]
        call(srv, "aide_recall", {"paths": [FILE]})
    finally:
        status, err = srv.close()
    assert status == 0, err
    assert counted(repo) == [(uuid, 5)]


def test_mentions_follow_hand_edits_while_the_view_stays(repo: Path) -> None:
    # The server keeps what a search of the saved view found for a file; the files
    # that differ from the index are searched afresh each call.
    (repo / "src/auth").mkdir(parents=True)
    (repo / FILE).write_text("print('hi')\n")
    a = remember(repo, "login.py must not log passwords", "--scope", "docs/**")["path"]
    b = remember(repo, "docs are built nightly", "--scope", "docs/**")["path"]
    remember(repo, "the throttling of login retries lives in the gateway",
             "--scope", "tools/**")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    srv = start(repo)
    try:
        for step, change in (
                ("start", None), ("again", None),
                ("a no longer names it", lambda: edit_by_hand(repo, a, "passwords are "
                                                               "never logged")),
                ("b names it", lambda: edit_by_hand(repo, b, "see src/auth/login.py for "
                                                   "the retry rules")),
                ("a names it again", lambda: edit_by_hand(repo, a, "login.py must not "
                                                           "log passwords")),
                ("back as committed", lambda: git(repo, "checkout", "--", ".aide"))):
            if change is not None:
                change()
            for args, argv in (({"paths": [FILE]}, [FILE]),
                               ({"paths": ["src/auth/"]}, ["src/auth/"])):
                got = call(srv, "aide_recall", args)
                assert got == aide_ok(repo, "recall", *argv, "--json").json(), (step, args)
            names = whats(call(srv, "aide_recall", {"paths": [FILE]}))
            assert ("login.py must not log passwords" in names) == (
                step not in ("a no longer names it", "b names it")), step
            assert ("see src/auth/login.py for the retry rules" in names) == (
                step in ("b names it", "a names it again")), step
    finally:
        srv.close()


def test_an_edit_made_while_a_call_works_is_seen_by_the_same_call_next(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The answer is kept for what the call read; a file written while it worked is an
    # event the next call reads, so the next identical call works it out again.
    from helpers import in_this_process, served

    from git_aide.agents.mcp import server
    from git_aide.app import answers

    b = remember(repo, "review every migration twice", "--layer", "guidelines",
                 "--scope", "src/**")["path"]
    remember(repo, "migrations run in one transaction", "--layer", "technical")
    git(repo, "commit", "-qm", "memories")
    time.sleep(SETTLE)  # the config's files old enough to be trusted: answers are kept
    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    for tool, args, argv, work in (
            ("aide_search", {"keyword": "migration"}, ["search", "migration"],
             "search_hits"),
            ("aide_memories", {}, ["list"], "list_hits"),
            ("aide_recall", {"paths": [FILE]}, ["recall", FILE], "recall_hits")):
        served(mem, tool, args)  # warm, and the answer kept
        real = getattr(answers, work)
        edits: list[str] = []

        def working(*a: Any, real: Any = real, edits: list[str] = edits, tool: str = tool,
                    **k: Any) -> Any:
            got = real(*a, **k)
            if not edits:
                edits.append(f"review every migration {len(a)} times ({tool})")
                edit_by_hand(repo, b, edits[0])
            return got

        monkeypatch.setattr(answers, work, working)
        edit_by_hand(repo, b, f"review every migration before {tool}")
        served(mem, tool, args)  # the call during which the file changes again
        monkeypatch.setattr(answers, work, real)
        got = served(mem, tool, args)
        assert got == aide_ok(repo, *argv, "--json").json(), tool
        assert edits[0] in whats(got), tool


def test_compact_answers_follow_hand_edits_and_supersession(repo: Path) -> None:
    # A warm server makes each memory's compact item once (warm/kept_items.py): a hand
    # edit, and a newer memory that comes to supersede an older one, are in its next
    # answer, as a fresh server gives it.
    scope = ("--scope", "src/**")
    older = remember(repo, "Uploaded files are capped at 2 MiB by FILE_UPLOAD_MAX_BYTES",
                     *scope)
    time.sleep(0.01)
    newer = remember(repo, "Uploaded thumbnails are cached for a day by the CDN", *scope)
    remember(repo, "Files dropped on the canvas are uploaded once", *scope)
    git(repo, "commit", "-qm", "memories")
    args = {"name": "aide_recall", "arguments": {"paths": [FILE]}}

    def answer(srv: McpServer) -> tuple[Any, str]:
        res = srv.request("aide_recall", "tools/call", args)["result"]
        assert not res.get("isError"), res
        return res["structuredContent"], res["content"][0]["text"]

    srv = start(repo)
    try:
        first, _text = answer(srv)
        assert not any(m.get("superseded_by") for m in first["memories"])
        edit_by_hand(repo, newer["path"],
                     "Uploaded files are capped at 4 MiB by FILE_UPLOAD_MAX_BYTES")
        warm = answer(srv)
    finally:
        srv.close()
    fresh = start(repo)
    try:
        assert warm == answer(fresh)
    finally:
        fresh.close()
    by_id = {m["id"]: m for m in warm[0]["memories"]}
    assert by_id[older["uuid"][:8]]["superseded_by"] == newer["uuid"][:8]
    assert "4 MiB" in by_id[newer["uuid"][:8]]["what"] and "4 MiB" in warm[1]
