"""Time hooks and reading commands answered by a warm server (`git aide daemon`) against the
same commands run alone and against `git grep`, on one repository, every run alternated.

    python3 bench/served.py --repo /tmp/b10k --file packages/web/x.tsx --word timeout

The agent's side is timed: the process it starts (`git-aide hook pre-tool-use` with an
event on stdin, `git-aide recall FILE --json`), from spawn to exit. Each hook is a new
session, so that it gives the file's memories (a session gets each memory once). The
bars of issue 39: a hook with the server at most 25 ms at 10,000 memories and at most
0.5x of the hook alone; `recall FILE` with the server at most 0.5x of `git grep`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], cwd: str, env: dict[str, str], stdin: bytes | None = None) -> float:
    """Run `cmd` and return its wall time in ms (it must succeed, and say no traceback)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True)
    ms = (time.perf_counter() - start) * 1000.0
    if proc.returncode not in (0, 1) or b"Traceback" in proc.stderr:
        raise SystemExit(f"{' '.join(cmd[:3])} failed: {proc.stderr.decode()[:300]}")
    return ms


def main() -> None:
    """Time the rows and print them as a markdown table (and JSON with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a repository with memories")
    ap.add_argument("--file", required=True, help="a file with memories (repo-relative)")
    ap.add_argument("--word", required=True, help="a word for search and git grep")
    ap.add_argument("--aide", default="git-aide", help="the git-aide executable")
    ap.add_argument("--runs", type=int, default=21, help="alternated runs per row")
    ap.add_argument("--json", dest="json_out", help="write the figures here")
    args = ap.parse_args()
    repo, aide = os.path.abspath(args.repo), args.aide
    env = {k: v for k, v in os.environ.items() if k != "GIT_AIDE_SERVER"}
    alone = {**env, "GIT_AIDE_SERVER": "0"}
    subprocess.run([aide, "daemon", "start"], cwd=repo, env=env, check=True,
                   capture_output=True)
    try:
        rows = run_rows(repo, aide, args, env, alone)
    finally:
        subprocess.run([aide, "daemon", "stop"], cwd=repo, env=env, capture_output=True)
    print("| row | median ms | range |")
    print("|---|---:|---|")
    for key, runs in rows.items():
        print(f"| {key} | {statistics.median(runs):.1f} | {min(runs):.1f}-{max(runs):.1f} |")
    med = {k: statistics.median(v) for k, v in rows.items()}
    print()
    print(f"hook served / hook alone: {med['hook served'] / med['hook alone']:.2f}")
    print(f"recall served / git grep: {med['recall served'] / med['git grep']:.2f}")
    print(f"recall alone / git grep: {med['recall alone'] / med['git grep']:.2f}")
    print(f"search served / git grep: {med['search served'] / med['git grep']:.2f}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


def run_rows(repo: str, aide: str, args: argparse.Namespace, env: dict[str, str],
             alone: dict[str, str]) -> dict[str, list[float]]:
    """Time each row `args.runs` times, one run of each in turn (after one untimed round)."""
    grep = ["git", "grep", "-i", "-l", args.word, "--", ".aide/memories"]
    recall = [aide, "recall", args.file, "--json"]
    search = [aide, "search", args.word, "--json"]
    hook = [aide, "hook", "pre-tool-use"]

    def event() -> bytes:
        return json.dumps({"session_id": f"bench-{time.time_ns()}", "cwd": repo,
                           "hook_event_name": "PreToolUse", "tool_name": "Read",
                           "tool_input": {"file_path": os.path.join(repo, args.file)}}).encode()

    plan = [("git grep", lambda: timed(grep, repo, env)),
            ("recall served", lambda: timed(recall, repo, env)),
            ("recall alone", lambda: timed(recall, repo, alone)),
            ("search served", lambda: timed(search, repo, env)),
            ("search alone", lambda: timed(search, repo, alone)),
            ("hook served", lambda: timed(hook, repo, env, event())),
            ("hook alone", lambda: timed(hook, repo, alone, event()))]
    rows: dict[str, list[float]] = {key: [] for key, _ in plan}
    for i in range(-1, args.runs):
        for key, run in plan:
            ms = run()
            if i >= 0:
                rows[key].append(ms)
        print(f"run {i + 1}/{args.runs}", file=sys.stderr, end="\r")
    return rows


if __name__ == "__main__":
    main()
