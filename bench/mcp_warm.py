"""How long a warm `git aide mcp` takes per tool call (issue 23): `aide_search WORD` and
`aide_recall FILE`, each asked again with nothing changed, and after a hand edit of a
memory the answer holds (the edit is untimed; the answer must show it); and
`aide_search` of a word not asked before, of a question not asked before (several words:
with a model configured, aide.semantic.model, a search by meaning, whose bar is
SEMANTIC_BAR), and `aide_recall` of a file not asked before, each call another. Each
row starts after two seconds without a call (QUIET), as an agent's turn leaves between
its bursts of calls. Each is timed two ways:
the round trip of one client over the server's pipes (spawned as an agent spawns it),
and then, that server closed, the same calls in this process (agents/mcp/server.call on a
warm ServerState), which is the time spent in the server. Both servers first finish the work
their first calls ask for between calls (read/later.py), which the table's heading
times. `git grep -i -l WORD` over the same tree is timed in the same run, for scale.

    python3 bench/mcp_warm.py --repo PATH [--runs 30] [--aide 'git-aide'] [--json FILE]

PATH is a repository bench/generate.py made (its .git/aide-bench.json names FILE and
WORD); the memories it edits are put back at the end. Run it with the interpreter of the
install to time (the in-process rows import git_aide from it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_start import Wire, aide_command  # noqa: E402

#: The issue's bars in ms spent in the server per call: at 10,000 memories, at 100,000.
BARS = {10_000: {"aide_search": 1.5, "aide_recall": 5.0},
        100_000: {"aide_search": 5.0, "aide_recall": 20.0}}
#: The bar of a search by meaning (a new question each call, a model configured), in ms
#: spent in the server, at 10,000 memories (issue 39: the model alone takes ~3 ms).
SEMANTIC_BAR = {10_000: 6.0}
#: Questions asked one per call (bench/semantic.py's topics).
TOPICS = ("database schema", "user sessions", "payment retries", "build cache",
          "feature flags", "error pages", "api tokens", "log rotation", "image uploads",
          "search ranking", "email templates", "cron jobs", "rate limits", "dark mode",
          "test fixtures", "docker images", "locale files", "audit trail",
          "websocket reconnects", "csv exports")
#: Seconds without a call before each row, as an agent's turn leaves between bursts of
#: calls: what a server does when idle (writing edited memories into the index,
#: counting recalls, listing a view's words) is done then, not inside a timed call.
QUIET = 2.0
#: Words of the generated memories (bench/generate.WORDS) asked one per call: past the
#: filler words, so that each matches some memories.
NEW_WORDS = 20


class Client:
    """One `git aide mcp`, initialized, spoken to over its pipes."""

    def __init__(self, cmd: list[str], repo: str, env: dict[str, str]) -> None:
        self.wire = Wire(cmd, repo, env)
        self.n = 1
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
        self.wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        self.wire.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        return self.wire.recv()

    def tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        res: dict[str, Any] = self.ask("tools/call", {"name": name, "arguments": args})["result"]
        if res.get("isError"):
            raise RuntimeError(f"{name} failed: {res['content']}")
        doc: dict[str, Any] = res["structuredContent"]
        return doc


class Editor:
    """Edits one memory file by hand, a new text each time; puts it back at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.original = path.read_bytes()
        self.n = 0

    def edit(self) -> str:
        self.n += 1
        record = json.loads(self.original)
        record["what"] = f"{record['what']} (edit {self.n} {time.time_ns()})"
        self.path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return str(record["what"])

    def restore(self) -> None:
        self.path.write_bytes(self.original)


def timed(runs: int, before: Callable[[], str | None], call: Callable[[], dict[str, Any]]
          ) -> list[float]:
    """`runs` timings of call(), in ms, after QUIET seconds without a call; before()
    (untimed) gives the text the answer must hold, or None."""
    time.sleep(QUIET)
    out = []
    for _ in range(runs):
        want = before()
        t0 = time.perf_counter()
        doc = call()
        out.append((time.perf_counter() - t0) * 1000.0)
        if want is not None and want not in [m["what"] for m in doc["memories"]]:
            raise RuntimeError("an answer did not show the edit just made")
    return out


def grep_ms(repo: str, word: str, env: dict[str, str]) -> float:
    """One `git grep -i -l WORD` over the memories of the working tree, in ms."""
    import subprocess

    t0 = time.perf_counter()
    subprocess.run(["git", "grep", "-i", "-l", word, "--", ".aide/memories"], cwd=repo,
                   env=env, capture_output=True, check=False)
    return (time.perf_counter() - t0) * 1000.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a repository bench/generate.py made")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--aide", help="the git-aide command (default: beside this python)")
    ap.add_argument("--json", help="also write every timing to this file")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    info = json.loads(Path(repo, ".git", "aide-bench.json").read_text())
    file, word = info["deep_file"], info["word"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    calls = {"aide_search": {"keyword": word}, "aide_recall": {"paths": [file]}}
    from generate import WORDS

    fresh = iter([w for w in WORDS[NEW_WORDS:] if w != word] * 4)
    questions = iter([f"how do we handle {t} {i}" for i in range(2 * args.runs)
                      for t in TOPICS])
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, env=env, check=True,
                            capture_output=True).stdout.decode().split("\0")
    code = [f for f in listed if f and not f.startswith(".aide/") and f != file]
    # Files spread over the tree, each asked once (every 97th: other folders each time).
    others = iter(code[::97] * 2)

    os.chdir(repo)
    from git_aide.agents.mcp import server

    mem = server.ready_state()

    def local_args(name: str, a: dict[str, Any]) -> dict[str, Any]:
        text, doc, failed = server.call(mem, name, a)
        if failed or doc is None:
            raise RuntimeError(f"{name} failed: {text}")
        return doc

    # The server does work between calls once the first ones asked for it (decoding
    # its view, the view's words, what supersession compares: read/later.py). It is
    # timed here, in this process; the client's server is then given as long to do
    # the same before its rows start.
    started = time.perf_counter()
    for name in calls:
        local_args(name, calls[name])
    if not mem.worked(600):
        raise RuntimeError("the work between calls took more than ten minutes")
    between = time.perf_counter() - started
    client = Client([*aide_command(args.aide), "mcp"], repo, env)
    editors = {}
    for name in calls:
        first = client.tool(name, {**calls[name], "detail": "full"})["memories"]
        editors[name] = Editor(Path(repo, first[0]["path"]))
    time.sleep(between + 1)
    rows: dict[str, dict[str, list[float]]] = {}
    # The client's rows first, then the server is closed (its idle work, writing the
    # edited memories into the index, done), then the same rows in this process: a
    # server that writes the shared index while the other is timed would time that.
    ways = (("round trip", lambda n, a: client.tool(n, a)),
            ("in process", local_args))
    try:
        for where, ask in ways:
            if where == "in process":
                client.wire.close()
            for name in calls:
                ed = editors[name]
                for how, before in (("again", lambda: None), ("after a hand edit", ed.edit)):
                    row = rows.setdefault(f"{name} ({how})", {})
                    call = lambda n=name, ask=ask: ask(n, calls[n])  # noqa: E731
                    call()  # warm: the first call after a switch reads the edit
                    row[where] = timed(args.runs, before, call)
                    ed.restore()
            row = rows.setdefault("aide_search (a new word each call)", {})
            row[where] = timed(args.runs, lambda: None,
                               lambda ask=ask: ask("aide_search", {"keyword": next(fresh)}))
            row = rows.setdefault("aide_search (a new question each call)", {})
            row[where] = timed(args.runs, lambda: None,
                               lambda ask=ask: ask("aide_search", {"keyword": next(questions)}))
            row = rows.setdefault("aide_recall (a new file each call)", {})
            row[where] = timed(args.runs, lambda: None,
                               lambda ask=ask: ask("aide_recall", {"paths": [next(others)]}))
        greps = [grep_ms(repo, word, env) for _ in range(args.runs)]
    finally:
        for ed in editors.values():
            ed.restore()
        client.wire.close()
    model = subprocess.run(["git", "config", "aide.semantic.model"], cwd=repo, env=env,
                           capture_output=True, text=True).stdout.strip()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    grep = statistics.median(greps)
    print(f"Warm MCP calls, {info['memories']} memories, median of {args.runs} "
          f"(load average {load}; {os.cpu_count()} CPUs); `git grep -i -l {word}` "
          f"{grep:.1f} ms; the work between calls after the first ones took {between:.1f} s"
          f"; {'model ' + model if model else 'no model'}\n")
    print("| call | round trip | x git grep | in process | bar (in process) |")
    print("|---|---:|---:|---:|---|")
    bars = BARS.get(info["memories"], {})
    for key, row in rows.items():
        rt, ip = (statistics.median(row[w]) for w in ("round trip", "in process"))
        bar = bars.get(key.split()[0])
        if model and "question" in key:
            bar = SEMANTIC_BAR.get(info["memories"])
        verdict = "-" if bar is None else f"{bar} ms: {'ok' if ip <= bar else 'over'}"
        print(f"| {key} | {rt:.2f} ms | {rt / grep:.2f} | {ip:.2f} ms | {verdict} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": args.runs, "load": os.getloadavg(),
                                               "memories": info["memories"],
                                               "git_grep": greps, "between_calls_s": between,
                                               "rows": rows},
                                              indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
