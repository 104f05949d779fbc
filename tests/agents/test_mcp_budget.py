"""What an agent receives from the MCP tools stays within its budget (issue 20, item 11):
a 1,000-memory store, one commit that added 500 of them, through the SDK's own client.

Both halves of a result count: Claude Code and Codex give the model the structured
content (as JSON), Gemini CLI the text.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, aide, aide_ok, git, make_repo, remember

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from git_aide.core import memory  # noqa: E402

#: The default budget of one answer, in characters (aide.mcp.maxChars).
BUDGET = 8000
WORDS = ("cache index query request response handler middleware router schema model "
         "database table column transaction retry timeout backoff queue worker session "
         "token cursor batch stream buffer event scheduler").split()

Call = Callable[..., Awaitable[Any]]


def received(res: Any) -> tuple[str, str]:
    """What an agent can be given: the text, and the structured content as JSON."""
    text = "".join(c.text for c in res.content if getattr(c, "text", None) is not None)
    return text, json.dumps(res.structured_content, ensure_ascii=False, separators=(",", ":"))


def within(res: Any, budget: int = BUDGET) -> dict[str, Any]:
    """The structured content, once both halves are checked against the budget."""
    assert not res.is_error, res.content[0].text
    text, doc = received(res)
    assert len(text) <= budget, (len(text), text[-300:])
    assert len(doc) <= budget, (len(doc), doc[-300:])
    return res.structured_content


def write_memories(repo: Path, n: int, seed: int) -> list[str]:
    """`n` memory files written as a person or a script would, staged."""
    rnd = random.Random(seed)
    made = []
    for i in range(n):
        words = " ".join(rnd.choice(WORDS) for _ in range(25))
        layer = rnd.choice(memory.LAYERS)
        scope = ("src/app/**" if i % 2 else f"src/mod{i % 7}/**") \
            if layer == "area_context" or i % 3 == 0 else None
        record = memory.new(f"rule {seed}-{i}: always {words}", layer=layer, scope=scope,
                            contributor="Bulk Loader", why=f"decided in review {i}")
        path = repo / memory.relpath(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(memory.canonical(record))
        made.append(record["uuid"])
    git(repo, "add", "-A")
    return made


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,000 memories: 500 in a first commit, 500 more added by one commit on top."""
    repo = make_repo(tmp_path_factory.mktemp("budget") / "repo")
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "src" / "app" / "main.py").write_text("print('hi')\n")
    write_memories(repo, 500, seed=1)
    git(repo, "commit", "-qm", "the first 500")
    write_memories(repo, 500, seed=2)
    git(repo, "commit", "-qm", "import 500 rules")
    return repo


def cli(repo: Path, *args: str) -> Any:
    return aide_ok(repo, *args, "--json").json()


def session(repo: Path, work: Callable[[Call], Awaitable[None]]) -> None:
    """Run `work` with a call function on one server, as an agent would."""
    async def run() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"],
                                       cwd=str(repo), env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()

            async def call(name: str, **args: Any) -> Any:
                return await s.call_tool(name, args)

            await work(call)

    asyncio.run(run())


def test_reading_tools_stay_within_the_budget_and_say_how_to_get_the_rest(
        store: Path) -> None:
    listing = [m["uuid"] for m in cli(store, "list")["memories"]]
    ranked = [m["uuid"] for m in cli(store, "recall", "src/app/main.py", "--limit",
                                     "1000")["memories"]]
    found = [m["uuid"] for m in cli(store, "search", "cache", "--limit", "1000")["memories"]]
    assert len(listing) == 1000 and len(ranked) > 100 and len(found) > 100

    def ids(doc: dict[str, Any]) -> list[str]:
        """The short ids of an answer's memories, compact or full."""
        return [m.get("id") or m["uuid"][:8] for m in doc["memories"]]

    async def work(call: Call) -> None:
        for detail in ("compact", "full"):
            # every memory: the first that fit, in list order, and the call that continues
            doc = within(await call("aide_memories", limit=1000, detail=detail))
            shown = ids(doc)
            assert doc["truncated"] is True and shown == [u[:8] for u in listing[:len(shown)]]
            assert doc["more"]["memories"] == 1000 - len(shown)
            assert doc["more"]["ids"] == [u[:8] for u in
                                          listing[len(shown):][:len(doc["more"]["ids"])]]
            assert f'"offset": {len(shown)}' in doc["more"]["hint"]
            page = within(await call("aide_memories", limit=1000, offset=len(shown),
                                     detail=detail))
            assert ids(page)[0] == listing[len(shown)][:8]
            text = (await call("aide_memories", limit=1000, detail=detail)).content[0].text
            assert text.startswith(f"{len(shown)} of 1000 memories")
            assert f"{1000 - len(shown)} more memories not shown: " \
                   f"`{listing[len(shown)][:8]}`" in text

            # a path recall asked for everything: recall's own order, then ids to fetch
            doc = within(await call("aide_recall", paths=["src/app/main.py"], limit=1000,
                                    detail=detail))
            shown = ids(doc)
            assert shown == [u[:8] for u in ranked[:len(shown)]]
            assert doc["more"]["memories"] == len(ranked) - len(shown)
            more = doc["more"]["ids"]
            assert "aide_recall" in doc["more"]["hint"] and "ids" in doc["more"]["hint"]
            asked = {"detail": "compact"} if '"detail": "compact"' in doc["more"]["hint"] \
                else {}
            assert bool(asked) == (detail == "compact")
            fetched = within(await call("aide_recall", ids=more, **asked))
            got = ids(fetched)
            rest = ranked[len(shown):len(shown) + len(got)]
            assert got == [u[:8] for u in rest] == more[:len(got)]

            # the default recall of one file, and a search for a common word
            within(await call("aide_recall", paths=["src/app/main.py"], detail=detail))
            doc = within(await call("aide_search", keyword="cache", limit=1000,
                                    detail=detail))
            shown = ids(doc)
            assert shown == [u[:8] for u in found[:len(shown)]] and doc["truncated"]
            page = within(await call("aide_search", keyword="cache", limit=1000,
                                     offset=len(shown), detail=detail))
            assert ids(page)[0] == found[len(shown)][:8]

    session(store, work)


def test_log_and_diff_of_a_500_memory_commit_stay_within_the_budget(store: Path) -> None:
    added = {c["uuid"] for c in cli(store, "log", "-n", "1")["commits"][0]["changes"]}
    assert len(added) == 500

    async def work(call: Call) -> None:
        doc = within(await call("aide_log", limit=3))
        assert [c["subject"] for c in doc["commits"]] == ["import 500 rules", "the first 500"]
        big = doc["commits"][0]
        assert big["more"]["changes"] == 500 - len(big["changes"])
        assert {c["uuid"] for c in big["changes"]} <= added
        assert all(i in {u[:8] for u in added} for i in big["more"]["ids"])
        text = (await call("aide_log", limit=3)).content[0].text
        assert f"import 500 rules (500 changes, {len(big['changes'])} shown)" in text

        # one commit at a time, and the hint continues the walk
        doc = within(await call("aide_log", limit=1))
        assert [c["subject"] for c in doc["commits"]] == ["import 500 rules"]
        doc = within(await call("aide_log", limit=1, skip=1))
        assert [c["subject"] for c in doc["commits"]] == ["the first 500"]

        doc = within(await call("aide_diff", args=["HEAD~1", "HEAD"]))
        assert doc["more"]["added"] == 500 - len(doc["added"])
        assert {m["uuid"] for m in doc["added"]} <= added
        text = (await call("aide_diff", args=["HEAD~1", "HEAD"])).content[0].text
        assert f"{500 - len(doc['added'])} more changes ({500 - len(doc['added'])} added) " \
               "not shown" in text

    session(store, work)


def test_import_names_the_ids_it_made_within_the_budget(repo: Path) -> None:
    rules = "".join(f"- rule {i}: {' '.join(random.Random(i).choice(WORDS) for _ in range(20))}\n"
                    for i in range(150))

    async def work(call: Call) -> None:
        res = await call("aide_import", content=rules, layer="guidelines")
        doc = within(res)
        text = res.content[0].text
        assert text.splitlines()[0].startswith("Imported 150 memories")
        shown = doc["imported"]
        assert doc["truncated"] and doc["more"]["imported"] == 150 - len(shown)
        # each memory named by an id the agent can give back
        for m in shown:
            assert f"`{m['uuid'][:8]}`" in text
        fetched = within(await call("aide_recall", ids=doc["more"]["ids"][:3]))
        assert [m["uuid"][:8] for m in fetched["memories"]] == doc["more"]["ids"][:3]
        # a small import stays the `import --json` document, ids in the text
        res = await call("aide_import", content="- always run the linter\n", layer="technical")
        small = within(res)
        assert {"imported", "skipped", "dry_run", "warnings"} <= set(small)
        assert "truncated" not in small and "more" not in small
        (m,) = small["imported"]
        assert f"`{m['uuid'][:8]}`" in res.content[0].text

    session(repo, work)


def test_a_memory_larger_than_the_budget_is_clipped_and_says_so(repo: Path) -> None:
    git(repo, "config", "aide.mcp.maxChars", "1000")
    long = remember(repo, "quote \"" + "x" * 3000 + "\" end", "--layer", "technical",
                    "--why", "y" * 900)
    small = remember(repo, "a short one", "--layer", "technical")

    async def work(call: Call) -> None:
        doc = within(await call("aide_recall", ids=[long["uuid"]]), budget=1000)
        (m,) = doc["memories"]
        assert m["clipped"] is True and m["uuid"] == long["uuid"]
        assert m["what"].startswith("quote \"xxx") and m["what"].endswith("…")
        doc = within(await call("aide_memories"), budget=1000)
        assert doc["truncated"] and doc["more"]["memories"] >= 1
        # an answer that fits is the command's --json document, unchanged
        res = await call("aide_search", keyword="short", detail="full")
        assert within(res, budget=1000) == cli(repo, "search", "short", "--limit", "50")
        assert [m["uuid"] for m in res.structured_content["memories"]] == [small["uuid"]]

    session(repo, work)
    # a budget below the least is the least
    git(repo, "config", "aide.mcp.maxChars", "10")

    async def tiny(call: Call) -> None:
        within(await call("aide_memories"), budget=1000)

    session(repo, tiny)


def test_a_memory_whose_tags_alone_outgrow_the_budget_is_an_answer_not_a_hang(
        repo: Path) -> None:
    # Its texts cut to the least leave it over the budget: clipping gives up (it used
    # to cut the same 41 characters to 41 again, for ever) and the answer names it.
    git(repo, "config", "aide.mcp.maxChars", "1000")
    tags = [arg for i in range(150) for arg in ("--tag", f"tag-number-{i:04d}")]
    many = remember(repo, "w" * 60, "--layer", "technical", "--why", "y" * 60, *tags)

    async def work(call: Call) -> None:
        doc = within(await asyncio.wait_for(call("aide_recall", ids=[many["uuid"]]), 20),
                     budget=1000)
        assert doc["memories"] == [] and doc["truncated"] is True
        assert doc["more"]["ids"] == [many["uuid"][:8]]

    session(repo, work)


def test_schemas_carry_enums_and_errors_speak_the_tools_parameters(repo: Path) -> None:
    remember(repo, "review every migration twice", "--layer", "guidelines")
    git(repo, "config", "aide.mcp.tools", "all")

    async def run() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"],
                                       cwd=str(repo), env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name: t.input_schema for t in (await s.list_tools()).tools}
            layers = list(memory.LAYERS)
            assert tools["aide_remember"]["properties"]["layer"]["enum"] == layers
            assert tools["aide_search"]["properties"]["layer"]["enum"] == layers
            assert tools["aide_memories"]["properties"]["layer"]["enum"] == layers
            assert tools["aide_import"]["properties"]["layer"]["enum"] == layers
            assert tools["aide_recall"]["properties"]["layers"]["items"]["enum"] == layers
            assert tools["aide_remember"]["properties"]["priority"]["enum"] == ["normal",
                                                                              "always"]
            assert tools["aide_update"]["properties"]["priority"]["enum"] == ["normal",
                                                                            "always"]
            # source is taken, not listed; a wrong one is still refused by name
            assert "source" not in tools["aide_remember"]["properties"]
            # plain schemas: no anyOf or $defs, which some model APIs refuse
            assert "anyOf" not in json.dumps(tools) and "$defs" not in json.dumps(tools)

            for name, args, says in (
                ("aide_search", {"keyword": "x", "layer": "bogus"},
                 'layer: "bogus" is not one of area_context, technical, preferences, '
                 "guidelines"),
                ("aide_recall", {"layers": ["technical", "bogus"]},
                 'layers[1]: "bogus" is not one of'),
                ("aide_recall", {"limit": "many"}, 'limit: expected a whole number, got "many"'),
                ("aide_recall", {"limit": 5000}, "limit: 5000 is more than 1000"),
                ("aide_recall", {"layer": "technical"},
                 "unknown parameter \"layer\": aide_recall takes paths, query, layers"),
                ("aide_remember", {"what": "x"}, "layer is required (one of area_context"),
                ("aide_remember", {"what": "x", "layer": "technical", "source": "bogus"},
                 'source: "bogus" is not one of'),
                ("aide_remember", {"what": "x", "layer": "area_context"},
                 "needs a scope (give scope, a glob"),
                ("aide_remember", {"what": "x", "layer": "technical", "shared": "maybe"},
                 'shared: expected true or false, got "maybe"'),
                ("aide_diff", {"args": ["HEAD~1..HEAD"], "cached": True},
                 "cached=true compares a commit with the index"),
            ):
                res = await s.call_tool(name, args)
                assert res.is_error, (name, args)
                text = res.content[0].text
                assert says in text, text
                assert "\n" not in text and "--" not in text
                assert "pydantic" not in text and "http" not in text, text
            # the obvious spellings a model may send are taken as meant
            res = await s.call_tool("aide_memories", {"limit": "5", "layer": "guidelines"})
            assert not res.is_error and len(res.structured_content["memories"]) == 1

    asyncio.run(run())


def test_memories_a_cut_answer_left_out_are_still_injected_by_the_hooks(repo: Path) -> None:
    """The post-tool-use hook records what the agent fetched; the ids a cut answer only
    names (its `more`) were not shown, so the pre-tool-use hook still injects them."""
    git(repo, "config", "aide.mcp.maxChars", "1000")
    made = [remember(repo, f"payments rule {i}: " + "keep the ledger balanced " * 6,
                     "--scope", "src/pay/**", "--layer", "area_context")["uuid"]
            for i in range(6)]
    got: dict[str, Any] = {}

    async def work(call: Call) -> None:
        res = await call("aide_recall", paths=["src/pay/api.py"])
        got["text"] = res.content[0].text
        got["doc"] = within(res, budget=1000)

    session(repo, work)
    doc = got["doc"]
    shown = {m["id"] for m in doc["memories"]}
    left = [u for u in made if u[:8] not in shown]
    assert doc["truncated"] and left and {u[:8] for u in left} == set(doc["more"]["ids"])
    for n, response in enumerate(([{"type": "text", "text": got["text"]}],
                                  {"content": [{"type": "text", "text": got["text"]}],
                                   "structuredContent": doc},
                                  [{"type": "text", "text": json.dumps(doc)}])):
        sid = f"s-{n}"
        event = {"session_id": sid, "cwd": str(repo), "hook_event_name": "PostToolUse",
                 "tool_name": "mcp__git-aide__aide_recall",
                 "tool_input": {"paths": ["src/pay/api.py"]}, "tool_response": response}
        r = aide(repo, "hook", "post-tool-use", "--agent", "claude", input=json.dumps(event))
        assert (r.returncode, r.stdout) == (0, ""), r.stderr
        read = {"session_id": sid, "cwd": str(repo), "hook_event_name": "PreToolUse",
                "tool_name": "Read", "tool_input": {"file_path": str(repo / "src/pay/api.py")}}
        r = aide(repo, "hook", "pre-tool-use", "--agent", "claude", input=json.dumps(read))
        assert r.returncode == 0 and r.stdout, f"nothing injected in session {n}: {r.stderr}"
        context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert doc["more"]["ids"][0] in context, (n, context)
        assert not any(i in context for i in shown), (n, context)
