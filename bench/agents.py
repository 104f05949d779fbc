"""The agents' rows of the benchmark (docs/architecture.md, the performance budget): the MCP
server measured with
the SDK's own client, and the pre-tool-use hook against `recall FILE`.

Used by run.py; skipped (with a line on stderr) when the `mcp` package is absent.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import time
from typing import Any

#: A warm aide_recall costs at most this share of `git grep` on the same tree.
MCP_GREP_RATIO = 0.5
#: A pre-tool-use hook costs no more than `recall FILE`.
HOOK_RECALL_RATIO = 1.0


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 2)


def _timed(cmd: list[str], cwd: str, env: dict[str, str], stdin: bytes | None = None,
           ok: tuple[int, ...] = (0, 1)) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True)
    ms = _ms(start)
    if proc.returncode not in ok or b"Traceback" in proc.stderr:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed: {proc.stderr.decode()[:200]}")
    return ms


def _edit(path: str, nonce: str) -> None:
    """Change a memory by hand, as a person in an editor would."""
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    record["what"] = record["what"].split(" [bench ")[0] + f" [bench {nonce}]"
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def rows(repo: str, meta: dict[str, Any], aide: list[str], runs: int, slow: int,
         env: dict[str, str], grep: list[str], row_type: Any) -> list[Any]:
    """The MCP start-up, warm aide_recall and pre-tool-use hook rows."""
    out = []
    if importlib.util.find_spec("mcp") is None:
        return out
    out.extend(asyncio.run(_mcp_rows(repo, meta, aide, runs, slow, env, grep, row_type)))
    out.append(_hook_row(repo, meta, aide, runs, env, row_type))
    return out


async def _mcp_rows(repo: str, meta: dict[str, Any], aide: list[str], runs: int, slow: int,
                    env: dict[str, str], grep: list[str], row_type: Any) -> list[Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=aide[0], args=[*aide[1:], "mcp"], cwd=repo, env=env)
    deep = meta["deep_file"]
    start_row = row_type("mcp_startup", "MCP server start-up (spawn to first `aide_recall`)",
                         [*aide, "mcp"])
    for _ in range(slow):
        t0 = time.perf_counter()
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            await s.call_tool("aide_recall", {"paths": [deep]})
            start_row.runs_ms.append(_ms(t0))
    start_row.median_ms = round(statistics.median(start_row.runs_ms), 2)

    recall_row = row_type("mcp_recall", "warm `aide_recall FILE` (MCP), a memory edited "
                          "by hand before each call", [*aide, "mcp"],
                          baseline_key="grep_worktree", max_ratio=MCP_GREP_RATIO)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        first = await s.call_tool("aide_recall", {"paths": [deep]})
        victim = os.path.join(repo, first.structured_content["memories"][0]["path"])
        try:
            for i in range(-1, runs):
                nonce = f"{time.time_ns()}-{i}"
                _edit(victim, nonce)
                base = _timed(grep, repo, env)
                t0 = time.perf_counter()
                res = await s.call_tool("aide_recall", {"paths": [deep]})
                ms = _ms(t0)
                seen = any(nonce in m["what"] for m in res.structured_content["memories"])
                if res.is_error or not seen:
                    recall_row.error = "the edit was not seen" if not seen else "tool error"
                    return [start_row, recall_row]
                if i >= 0:
                    recall_row.runs_ms.append(ms)
                    recall_row.baseline_runs_ms.append(base)
        finally:
            subprocess.run(["git", "checkout", "-q", "--", victim], cwd=repo, env=env)
    recall_row.median_ms = round(statistics.median(recall_row.runs_ms), 2)
    return [start_row, recall_row]


def _hook_row(repo: str, meta: dict[str, Any], aide: list[str], runs: int,
              env: dict[str, str], row_type: Any) -> Any:
    deep = meta["deep_file"]
    row = row_type("hook_pre_tool_use", "`hook pre-tool-use` on FILE (baseline: `recall FILE`)",
                   [*aide, "hook", "pre-tool-use"], baseline_key="recall_file",
                   max_ratio=HOOK_RECALL_RATIO)
    recall = [*aide, "recall", deep, "--json"]
    # The MCP rows put the edited memory back with `git checkout`, which rewrites the
    # index: for 2 s no view is trusted (racy git) and both sides would rebuild it.
    time.sleep(2.2)
    for i in range(-1, runs):
        event = json.dumps({"session_id": f"bench-{time.time_ns()}", "cwd": repo,
                            "hook_event_name": "PreToolUse", "tool_name": "Read",
                            "tool_input": {"file_path": os.path.join(repo, deep)}}).encode()
        base = _timed(recall, repo, env, ok=(0,))
        ms = _timed(row.command, repo, env, stdin=event, ok=(0,))
        if i >= 0:
            row.runs_ms.append(ms)
            row.baseline_runs_ms.append(base)
    row.median_ms = round(statistics.median(row.runs_ms), 2)
    return row
