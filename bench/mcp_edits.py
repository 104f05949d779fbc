"""How long a warm MCP server's `aide_search WORD` takes after a hand edit, many calls in a
row, in the server (agents/mcp/server.call on a warm ServerState, as bench/mcp_warm.py's
in-process rows): each call follows an edit of the memory it finds first (the edit is
untimed; the answer must show it). Steadier than mcp_warm.py's 15 calls on a busy
machine: run it alternately on two versions (PYTHONPATH) and compare the medians.

    python3 bench/mcp_edits.py --repo PATH [--calls 200]

PATH is a repository bench/generate.py made (its .git/aide-bench.json names WORD); the
memory edited is put back at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a repository bench/generate.py made")
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    word = json.loads(Path(repo, ".git", "aide-bench.json").read_text())["word"]
    os.chdir(repo)
    from git_aide.agents.mcp import server

    mem = server.ready_state()

    def ask(detail: str = "compact") -> list[dict[str, str]]:
        text, doc, failed = server.call(mem, "aide_search", {"keyword": word, "detail": detail})
        if failed or doc is None:
            raise RuntimeError(text)
        found: list[dict[str, str]] = doc["memories"]
        return found

    path = Path(repo, ask("full")[0]["path"])
    original = path.read_bytes()
    ask()
    mem.worked(600)  # the work between calls the first ones asked for
    time.sleep(2.0)  # and the idle work after them
    times = []
    try:
        for n in range(args.calls):
            record = json.loads(original)
            record["what"] = f"{record['what']} (edit {n} {time.time_ns()})"
            path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
            start = time.perf_counter()
            found = ask()
            times.append((time.perf_counter() - start) * 1000.0)
            if record["what"] not in [m["what"] for m in found]:
                raise RuntimeError("an answer did not show the edit just made")
    finally:
        path.write_bytes(original)
    q1, q2, q3 = statistics.quantiles(times)
    print(f"aide_search after a hand edit, {args.calls} calls: median {q2:.2f} ms "
          f"(quartiles {q1:.2f}-{q3:.2f}; load average {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
