"""What an agent pays for git-aide's MCP server (issue 37, items 11 and 12): answers that
are mostly memory in each view a client hands the model (the structured content's JSON
for Claude Code and Codex, the text for Gemini CLI), the full record on request, and a
tool list that stays small in every request. Through the real server over stdio."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, McpServer, aide_ok, git, remember

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

#: Twelve memories as a team writes them (100-200 characters, most with a reason), all
#: relevant to FILE: (what, why, scope, layer, priority).
MEMORIES = [
    ("Invoices are rounded half to even per line, never on the total, so that the refund "
     "of a single line reconciles to the cent.", "Finance found cent drift in 2024.",
     "src/billing/**", "area_context", "normal"),
    ("Currency amounts are integers of minor units (cents); never store a float amount, "
     "not even in a cache or a test fixture.", "", "src/billing/**", "technical", "normal"),
    ("The invoice number sequence is per tenant and has no gaps: allocate it inside the "
     "same transaction that inserts the invoice row.", "Auditors check that numbers are "
     "contiguous.", "src/billing/invoice.py", "area_context", "normal"),
    ("Tax rates come from the tax_rates table as of the invoice date, not today's rate; a "
     "reissued invoice keeps the rate it was first issued with.", "",
     "src/billing/invoice.py", "area_context", "normal"),
    ("Stripe webhooks can arrive twice and out of order: handlers look the event id up in "
     "processed_events first and ignore what they have seen.", "Retries after timeouts.",
     "src/billing/**", "technical", "normal"),
    ("PDF rendering runs in the worker, never in the request: the web process only queues "
     "render_invoice and returns the pending invoice.", "Rendering takes up to 8 s.",
     "src/billing/*.py", "technical", "normal"),
    ("Keep billing functions pure where possible: pass the clock and the tax table in, so "
     "the tests pin dates without monkeypatching datetime.", "", "src/**", "preferences",
     "normal"),
    ("Every change to billing needs a second reviewer from the payments team before it "
     "merges, even a one-line fix or a renamed variable.", "A compliance requirement.",
     "src/billing/**", "guidelines", "always"),
    ("Credit notes reference the invoice they correct and carry negative lines; never edit "
     "or delete an issued invoice, issue a credit note instead.", "Issued invoices are "
     "legal documents.", "src/billing/**", "area_context", "normal"),
    ("Dates in billing are stored in UTC and shown in the tenant's timezone; the invoice "
     "date is the tenant's local date at issue time.", "", "src/billing/**", "technical",
     "normal"),
    ("Discount codes apply before tax and never below zero per line; a code that would "
     "make a line negative caps at the line's amount.", "Support tickets in March.",
     "src/billing/invoice.py", "area_context", "normal"),
    ("Log invoice ids and tenant ids, never customer names, emails or addresses: billing "
     "logs are shipped to a third-party service.", "GDPR.", "src/**", "guidelines",
     "normal"),
]
FILE = "src/billing/invoice.py"


@pytest.fixture
def store(repo: Path) -> Path:
    (repo / "src" / "billing").mkdir(parents=True)
    (repo / FILE).write_text("def total():\n    return 0\n")
    for what, why, scope, layer, priority in MEMORIES:
        remember(repo, what, "--scope", scope, "--layer", layer, "--priority", priority,
                 *(("--why", why) if why else ()))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    return repo


def share(memories: list[dict[str, Any]], view: str) -> float:
    """The part of a view that is the memories' own text (what and why)."""
    return sum(len(m["what"]) + len(m.get("why") or "") for m in memories) / len(view)


def as_sent(doc: Any) -> str:
    """Structured content as Claude Code and Codex hand it to the model: compact JSON."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


async def _session(repo: Path, work: Any) -> None:
    params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                   env=BASE_ENV)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await work(s)


def test_an_answer_of_twelve_memories_is_mostly_memory_in_each_view(store: Path) -> None:
    full = {m["uuid"]: m for m in aide_ok(store, "list", "--json").json()["memories"]}

    async def work(s: ClientSession) -> None:
        for name, args in (("aide_recall", {"paths": [FILE]}), ("aide_memories", {}),
                           ("aide_search", {"keyword": "invoice billing tax line",
                                            "limit": 12})):
            res = await s.call_tool(name, args)
            assert not res.is_error, res.content[0].text
            doc = res.structured_content
            mems = doc["memories"]
            if name != "aide_search":
                assert len(mems) == 12, (name, len(mems))
            text = res.content[0].text
            for view in (as_sent(doc), text):
                assert share(mems, view) >= 0.6, (name, share(mems, view), view)
            # each memory: its short id, layer, scope (none: project-wide), what, why
            # (when it has one), and the marks: nothing of the record's bookkeeping
            for m in mems:
                (uuid,) = [u for u in full if u.startswith(m["id"])]
                rec = full[uuid]
                assert len(m["id"]) == 8 and m["layer"] == rec["layer"]
                assert m["what"] == rec["what"] and m.get("why") == (rec["why"] or None)
                assert m.get("scope") == rec["scope"]
                assert m.get("priority") == ("always" if rec["priority"] == "always"
                                             else None)
                assert set(m) <= {"id", "layer", "scope", "what", "why", "priority"}
                assert f"`{m['id']}`" in text and m["what"] in text
            assert "source" not in doc and "truncated" not in doc
        # the markdown says which memory is always on
        res = await s.call_tool("aide_recall", {"paths": [FILE]})
        assert "(always on)" in res.content[0].text

    asyncio.run(_session(store, work))


def test_the_full_record_on_request(store: Path) -> None:
    async def work(s: ClientSession) -> None:
        res = await s.call_tool("aide_recall", {"paths": [FILE], "detail": "full"})
        assert res.structured_content == aide_ok(store, "recall", FILE, "--json").json()
        short = (await s.call_tool("aide_recall", {"paths": [FILE]})).structured_content
        assert [m["uuid"][:8] for m in res.structured_content["memories"]] == \
            [m["id"] for m in short["memories"]]
        # the ids an answer shows are what aide_recall, aide_update and aide_forget take;
        # by ids, the records come whole unless told otherwise
        ids = [m["id"] for m in short["memories"][:2]]
        got = (await s.call_tool("aide_recall", {"ids": ids})).structured_content
        assert [m["uuid"][:8] for m in got["memories"]] == ids
        assert {"created_at", "contributor", "path"} <= set(got["memories"][0])
        got = (await s.call_tool("aide_recall", {"ids": ids, "detail": "compact"})
               ).structured_content
        assert [m["id"] for m in got["memories"]] == ids
        res = await s.call_tool("aide_update", {"id": ids[0], "why": "Checked in 2025."})
        assert not res.is_error, res.content[0].text
        listed = await s.call_tool("aide_memories", {"detail": "full"})
        assert listed.structured_content == aide_ok(store, "list", "--json").json()
        found = await s.call_tool("aide_search", {"keyword": "invoice", "detail": "full"})
        assert found.structured_content == aide_ok(store, "search", "invoice",
                                                   "--json").json()
        bad = await s.call_tool("aide_recall", {"paths": [FILE], "detail": "everything"})
        assert bad.is_error and "detail" in bad.content[0].text

    asyncio.run(_session(store, work))


def test_a_cut_compact_answer_says_how_to_get_the_rest(store: Path) -> None:
    git(store, "config", "aide.mcp.maxChars", "1000")

    async def work(s: ClientSession) -> None:
        res = await s.call_tool("aide_recall", {"paths": [FILE]})
        doc = res.structured_content
        assert doc["truncated"] and len(as_sent(doc)) <= 1000
        more = doc["more"]
        assert more["memories"] == 12 - len(doc["memories"])
        assert '"detail": "compact"' in more["hint"]
        rest = await s.call_tool("aide_recall", {"ids": more["ids"][:2], "detail": "compact"})
        assert [m["id"] for m in rest.structured_content["memories"]] == more["ids"][:2]
        assert f"`{more['ids'][0]}`" in res.content[0].text

    asyncio.run(_session(store, work))


def tools_listed(repo: Path) -> tuple[list[dict[str, Any]], str]:
    """The tools array exactly as `tools/list` sends it, and the instructions."""
    srv = McpServer(repo)
    init = srv.initialize()["result"]
    srv.notify("notifications/initialized")
    tools = srv.request(2, "tools/list")["result"]["tools"]
    assert srv.close() == (0, "")
    return tools, init["instructions"]


def test_the_tool_list_is_small_and_the_rest_is_a_setting_away(repo: Path) -> None:
    tools, instructions = tools_listed(repo)
    assert [t["name"] for t in tools] == ["aide_recall", "aide_search", "aide_memories",
                                          "aide_remember", "aide_update", "aide_forget"]
    assert len(json.dumps(tools)) < 3200, len(json.dumps(tools))
    assert len(instructions) < 300 and "aide_recall" in instructions
    for t in tools:  # each still says when to call it, and takes aide-memory's names
        assert 20 <= len(t["description"]) <= 200, t
    # rev, contributor and detail are taken, not listed: an agent rarely needs them;
    # nor are defaults, which a parameter left out takes anyway
    assert set(tools[0]["inputSchema"]["properties"]) == {
        "paths", "query", "layers", "limit", "ids"}
    assert "default" not in json.dumps(tools)

    git(repo, "config", "aide.mcp.tools", "all")
    every, _ = tools_listed(repo)
    assert [t["name"] for t in every] == [t["name"] for t in tools] + [
        "aide_import", "aide_diff", "aide_log"]
    git(repo, "config", "aide.mcp.tools", "default, log")
    some, _ = tools_listed(repo)
    assert [t["name"] for t in some][-1] == "aide_log" and len(some) == 7
    git(repo, "config", "aide.mcp.tools", "aide_recall aide_search")
    assert [t["name"] for t in tools_listed(repo)[0]] == ["aide_recall", "aide_search"]

    # the SDK, once it has the connection, lists the same; a word that names no tool is
    # said in the agent's log
    git(repo, "config", "aide.mcp.tools", "recall,bogus")
    srv = McpServer(repo)
    srv.initialize()
    srv.notify("notifications/initialized")
    listed = srv.request(2, "tools/list")["result"]
    assert [t["name"] for t in listed["tools"]] == ["aide_recall"]
    res = srv.request(3, "tools/call", {"name": "aide_recall", "arguments": {"paths": ["x"]}})
    assert res["result"]["isError"] is False
    assert srv.request(4, "tools/list")["result"] == listed
    status, err = srv.close()
    assert status == 0 and "aide.mcp.tools names no tool bogus" in err
