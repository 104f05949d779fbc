"""How fast `git aide mcp` answers the start of a connection (issue 20,
section 9): spawn to the `initialize` result, to the `tools/list` result, and to the
first `aide_recall` result, as an agent starts the server; the median of N runs.

    python3 bench/mcp_start.py [--runs 15] [--repo PATH] [--file PATH] [--aide 'git-aide']
                               [--after 1.0] [--json FILE]

The server is spoken to over raw pipes, line by line (no client library is timed). A
second row starts the server with a notification before `initialize`, which hands the
connection to the SDK at once: the SDK's own start-up, for comparison. Without --repo
the runs use a new repository of 50 memories in a temporary folder. With --after, a
third row asks the first `aide_recall` that many seconds after `tools/list` (an agent
that reads a file a moment after it starts), and times that call's own round trip
beside a warm one: the same server asked of another file once its work between calls
is done. Measure a regular install (`pip install .`): an editable one adds import-hook
time.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Spawn to the `initialize` result, in ms: Gemini CLI gives up at 5,000; the issue's
#: target is 500 (and under 1,000 on a quiet machine for this row).
INIT_TARGET_MS = 500.0
#: The file the first call asks about (the sample repository scopes memories to it).
FILE = "src/app/main.py"


def aide_command(given: str | None) -> list[str]:
    """The git-aide executable: --aide, else the one beside this interpreter."""
    if given:
        return given.split()
    script = Path(sys.executable).parent / "git-aide"
    return [str(script)] if script.exists() else [sys.executable, "-m", "git_aide"]


def sample_repo(aide: list[str], env: dict[str, str]) -> str:
    """A new repository with 50 memories, 10 of them scoped to FILE's folder."""
    top = tempfile.mkdtemp(prefix="aide-mcp-start-")
    run = lambda *a: subprocess.run(a, cwd=top, env=env, check=True,  # noqa: E731
                                    capture_output=True)
    run("git", "init", "-q", "-b", "main")
    run("git", "config", "user.name", "Bench")
    run("git", "config", "user.email", "bench@example.com")
    run(*aide, "init", "--no-hooks")
    Path(top, FILE).parent.mkdir(parents=True)
    Path(top, FILE).write_text("print('hi')\n")
    for i in range(50):
        scope = ["--scope", "src/app/**", "--layer", "area_context"] if i < 10 else []
        run(*aide, "remember", f"rule {i}: keep the retry budget under {i + 1} seconds",
            *scope)
    run("git", "add", "-A")
    run("git", "commit", "-qm", "memories")
    return top


class Wire:
    """One server process, spoken to over its pipes."""

    def __init__(self, cmd: list[str], cwd: str, env: dict[str, str]) -> None:
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buf = b""

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def recv(self, timeout: float = 60) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            if not select.select([fd], [], [], timeout)[0]:
                raise RuntimeError(f"no answer within {timeout} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the server exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        msg: dict[str, Any] = json.loads(line)
        if "error" in msg:
            raise RuntimeError(f"error answer: {msg['error']}")
        return msg

    def ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000.0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def one_run(cmd: list[str], repo: str, env: dict[str, str], sdk_first: bool,
            file: str = FILE) -> tuple[float, float, float]:
    """(ms to initialize, to tools/list, to the first aide_recall) of one fresh server."""
    w = Wire(cmd, repo, env)
    if sdk_first:
        w.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 0}})
    w.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    w.recv()
    init = w.ms()
    w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    w.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    w.recv()
    listed = w.ms()
    w.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "aide_recall", "arguments": {"paths": [file]}}})
    got = w.recv()
    first = w.ms()
    if got["result"].get("isError"):
        raise RuntimeError(f"aide_recall failed: {got['result']['content']}")
    w.close()
    return init, listed, first


def recall_ms(w: Wire, ident: int, path: str) -> float:
    """The round trip of one aide_recall of `path`, in ms."""
    began = time.perf_counter()
    w.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": "aide_recall", "arguments": {"paths": [path]}}})
    got = w.recv()
    if got["result"].get("isError"):
        raise RuntimeError(f"aide_recall failed: {got['result']['content']}")
    return (time.perf_counter() - began) * 1000.0


def later_run(cmd: list[str], repo: str, env: dict[str, str], file: str, after: float
              ) -> tuple[float, float]:
    """(the round trip of a first aide_recall sent `after` seconds after tools/list, that
    of a warm aide_recall of another file once the server's work between calls is done),
    in ms, of one fresh server."""
    w = Wire(cmd, repo, env)
    w.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    w.recv()
    w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    w.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    w.recv()
    time.sleep(after)
    first = recall_ms(w, 3, file)
    time.sleep(max(after, 3.0))  # the work between calls done
    warm = recall_ms(w, 4, os.path.join(os.path.dirname(file) or ".", "another_file.py"))
    w.close()
    return first, warm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--repo", help="a repository with memories (default: a new sample)")
    ap.add_argument("--aide", help="the git-aide command (default: beside this python)")
    ap.add_argument("--file", default=FILE, help="the file the first call asks about")
    ap.add_argument("--after", type=float,
                    help="also time a first aide_recall sent this many seconds after start")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    aide = aide_command(args.aide)
    repo = args.repo or sample_repo(aide, env)
    cmd = [*aide, "mcp"]
    try:
        one_run(cmd, repo, env, False, args.file)  # warm the cache and the OS's file cache
        rows = {}
        for key, sdk_first in (("git-aide mcp", False),
                               ("the SDK alone (a notification first)", True)):
            runs = [one_run(cmd, repo, env, sdk_first, args.file) for _ in range(args.runs)]
            rows[key] = [round(statistics.median(r[i] for r in runs), 1) for i in range(3)]
        later = None
        if args.after is not None:
            pairs = [later_run(cmd, repo, env, args.file, args.after)
                     for _ in range(args.runs)]
            later = [round(statistics.median(p[i] for p in pairs), 2) for i in range(2)]
    finally:
        if not args.repo:
            shutil.rmtree(repo, ignore_errors=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"MCP server start-up, median of {args.runs} runs (load average {load}; "
          f"{os.cpu_count()} CPUs)\n")
    print("| start | initialize | tools/list | first aide_recall | initialize target |")
    print("|---|---|---|---|---|")
    for key, (init, listed, first) in rows.items():
        verdict = "ok" if init <= INIT_TARGET_MS else "over"
        print(f"| {key} | {init:.0f} ms | {listed:.0f} ms | {first:.0f} ms | "
              f"{INIT_TARGET_MS:.0f} ms: {verdict} |")
    if later is not None:
        print(f"\nA first aide_recall {args.after:g} s after tools/list: {later[0]:.2f} ms "
              f"round trip; a warm one of another file: {later[1]:.2f} ms "
              f"({later[0] / later[1]:.2f}x)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": args.runs, "load": os.getloadavg(),
                                               "rows": rows, "after": later},
                                              indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
