"""What git-aide adds to a real agent's context, measured on the wire (issue 37).

Installs Claude Code, Codex CLI and Gemini CLI from npm into a scratch folder (reused
with CLIENTS_DIR), a regular copy of this checkout into a scratch virtual environment,
and runs each client non-interactively through one scripted session against a local
stand-in for its model API (standin.py, 127.0.0.1 only) that logs every request body.
The logs are then read for what git-aide added (analyze.py): characters by channel,
the share of them that is memory text, memories sent twice, and whether the memories of
each file read arrived before the model's next turn and were still there at the end.

    python3 bench/context/run.py [--clients claude,codex,gemini] [--keep] [--json out.json]

Nothing is written into this checkout or the user's home: each client gets a home of
its own (HOME, CODEX_HOME) in the scratch folder. Every client run has a timeout; the
stand-ins stop with it. stdout gets one markdown table per measure; progress goes to
stderr. See README.md in this folder for the method.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import analyze  # noqa: E402
import repo as testrepo  # noqa: E402
from standin import Script, StandIn  # noqa: E402

CHECKOUT = HERE.parents[1]
CLIENTS = ("claude", "codex", "gemini")
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex",
            "gemini": "@google/gemini-cli"}
DIALECT = {"claude": "anthropic", "codex": "responses", "gemini": "gemini"}
#: `--codex-model`: None runs Codex's own default model.
CODEX_MODEL: str | None = None
#: `--lines`: the length of each generated source file.
LINES = testrepo.LINES

#: Put first on the clients' PATH: git-aide, keeping what each hook was given and
#: answered (one folder per call), so the analysis knows every hook's exact text, and
#: what `daemon status` said before and after it (whether the agent's MCP server
#: answered it: docs/server.md).
SHIM = """#!/bin/sh
if [ "$1" = hook ]; then
    d=$(mktemp -d "{log}/hook.XXXXXXXX") || exec "{real}" "$@"
    date +%s.%N >"$d/t0"
    printf '%s\\n' "$@" >"$d/args"
    cat >"$d/in"
    "{real}" daemon status >"$d/before" 2>/dev/null
    "{real}" "$@" <"$d/in" >"$d/out" 2>"$d/err"
    rc=$?
    "{real}" daemon status >"$d/after" 2>/dev/null
    echo "$rc" >"$d/rc"
    cat "$d/out"
    exit "$rc"
fi
exec "{real}" "$@"
"""

#: The prompt: one file named with `@path`, one decision.
PROMPT_FILE = "internal-packages/run-engine/src/engine/systems/ttlSystem.ts"
PROMPT = (f"Look at @{PROMPT_FILE} first. We decided that an expired run keeps its queue "
          "slot for 30 seconds before the slot is released. Check how the webapp, the run "
          "engine, the core schemas, the supervisor and the SDK handle run TTLs, then raise "
          "the trigger service's default max attempts to 5.")
READS = [
    "apps/webapp/app/services/triggerTask.server.ts",
    "internal-packages/run-engine/src/engine/index.ts",
    "packages/core/src/v3/schemas/api.ts",
    "apps/supervisor/src/workloadManager/kubernetes.ts",
    "packages/trigger-sdk/src/v3/tasks.ts",
]
EDIT = ("apps/webapp/app/services/triggerTask.server.ts", "const DEFAULT_MAX_ATTEMPTS = 3;",
        "const DEFAULT_MAX_ATTEMPTS = 5;")
SHELL_FILE = "internal-packages/database/prisma/schema.prisma"
RECALL_PATHS = ["packages/redis-worker/src/worker.ts"]
RECALL_QUERY = "how do we keep a background job from being enqueued twice?"
SEARCH_KEYWORD = "queue"
FINAL = ("Done: the trigger service now defaults to 5 attempts; TTL expiry stays in "
         "ttlSystem and the 30 second slot hold is noted.")


def script(root: Path) -> Script:
    steps: list[dict[str, Any]] = [{"kind": "read", "path": p} for p in READS]
    steps.append({"kind": "edit", "path": EDIT[0], "old": EDIT[1], "new": EDIT[2]})
    steps.append({"kind": "shell", "path": SHELL_FILE, "command": f"sed -n 1,20p {SHELL_FILE}"})
    steps.append({"kind": "recall", "paths": RECALL_PATHS, "query": RECALL_QUERY})
    steps.append({"kind": "search", "keyword": SEARCH_KEYWORD})
    steps.append({"kind": "final", "text": FINAL})
    return Script.from_json({"root": str(root), "steps": steps})


def say(*args: Any) -> None:
    print(*args, file=sys.stderr, flush=True)


def run(cmd: list[str], log: Path, **kw: Any) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    log.write_text(r.stdout + r.stderr)
    if r.returncode:
        sys.exit(f"{' '.join(cmd[:4])}... failed:\n{(r.stdout + r.stderr)[-3000:]}")
    return r


# -- installs -------------------------------------------------------------------------------


def install_clients(npm_dir: Path, clients: list[str], scratch: Path) -> Path:
    bin_dir = npm_dir / "node_modules" / ".bin"
    missing = [PACKAGES[c] for c in clients if not (bin_dir / c).exists()]
    if missing:
        say(f"npm install --prefix {npm_dir} {' '.join(missing)}")
        npm_dir.mkdir(parents=True, exist_ok=True)
        run(["npm", "install", "--prefix", str(npm_dir), "--no-audit", "--no-fund",
             "--loglevel=error", *missing], scratch / "npm.log", timeout=900)
    return bin_dir


def install_aide(scratch: Path) -> Path:
    """A regular (not editable) install of a copy of the checkout as it is."""
    venv = Path(os.environ["VENV_DIR"]) if os.environ.get("VENV_DIR") else scratch / "venv"
    if (venv / "bin" / "git-aide").exists():
        return venv / "bin"
    src = scratch / "src"
    src.mkdir()
    files = subprocess.run(["git", "-C", str(CHECKOUT), "ls-files", "-co", "--exclude-standard",
                            "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        s = CHECKOUT / rel
        if s.is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, src / rel)
    say(f"pip install {src} (a scratch virtual environment)")
    run([sys.executable, "-m", "venv", str(venv)], scratch / "venv.log")
    run([str(venv / "bin" / "pip"), "install", "-q", str(src)], scratch / "pip.log",
        timeout=900)
    return venv / "bin"


# -- the clients ----------------------------------------------------------------------------


def base_env(home: Path, path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_",
                                "GOOGLE_", "GIT_AIDE", "MCP_"))}
    env.update(HOME=str(home), PATH=path, NO_COLOR="1", TERM="dumb",
               XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               XDG_DATA_HOME=str(home / ".local" / "share"))
    env.pop("VIRTUAL_ENV", None)
    return env


def setup_claude(repo: Path, home: Path, env: dict[str, str], url: str,
                 bin_dir: Path) -> list[str]:
    (repo / ".claude" / "settings.local.json").write_text(
        json.dumps({"enabledMcpjsonServers": ["git-aide"]}, indent=2) + "\n")
    env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-stand-in",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
               DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1", MCP_TIMEOUT="30000")
    tools = ",".join(["Read", "Edit", "Bash(sed -n:*)", "mcp__git-aide__aide_recall",
                      "mcp__git-aide__aide_search"])
    return [str(bin_dir / "claude"), "-p", PROMPT, "--output-format", "json",
            "--allowedTools", tools, "--max-turns", "30"]


def setup_codex(repo: Path, home: Path, env: dict[str, str], url: str,
                bin_dir: Path) -> list[str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model_provider = "standin"\n'
        'check_for_update_on_startup = false\n'
        "[analytics]\nenabled = false\n"
        "[model_providers.standin]\n"
        'name = "stand-in"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "STANDIN_API_KEY"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
        f'[projects."{repo}"]\n'
        'trust_level = "trusted"\n')
    env.update(CODEX_HOME=str(codex_home), STANDIN_API_KEY="sk-stand-in")
    cmd = [str(bin_dir / "codex"), "exec", "--json", "--skip-git-repo-check",
           "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust",
           "-C", str(repo)]
    if CODEX_MODEL:
        cmd += ["-m", CODEX_MODEL]
    return cmd + [PROMPT]


def setup_gemini(repo: Path, home: Path, env: dict[str, str], url: str,
                 bin_dir: Path) -> list[str]:
    gdir = home / ".gemini"
    gdir.mkdir(parents=True, exist_ok=True)
    (gdir / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "hooksConfig": {"enabled": True},
    }, indent=2) + "\n")
    (gdir / "trustedFolders.json").write_text(json.dumps({str(repo): "TRUST_FOLDER"}) + "\n")
    env.update(GEMINI_API_KEY="stand-in-key", GOOGLE_GEMINI_BASE_URL=url)
    return [str(bin_dir / "gemini"), "-p", PROMPT, "--yolo", "--output-format", "json"]


SETUP = {"claude": setup_claude, "codex": setup_codex, "gemini": setup_gemini}


def run_client(client: str, scratch: Path, bin_dir: Path, aide_bin: Path,
               timeout: float, config: list[tuple[str, str]]) -> dict[str, Any]:
    """Run one client's scripted session; `config`: git-aide settings (--config) set in
    the test repository once it is built."""
    work = scratch / client
    home = work / "home"
    home.mkdir(parents=True)
    repo = work / "repo"
    env = base_env(home, f"{aide_bin}:{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    say(f"\n== {client}: the test repository")
    mems = testrepo.build(repo, env, ["claude", "codex", "gemini"], LINES)
    for key, value in config:
        testrepo.git(repo, "config", key, value, env=env)
    expected = {p: testrepo.recall(repo, p, env)
                for p in analyze.files_of(script(repo), PROMPT_FILE)}
    instructions, tools_list = testrepo.server_hello(repo, env)
    hooks = work / "hooks"
    hooks.mkdir()
    shim = work / "shim"
    shim.mkdir()
    (shim / "git-aide").write_text(SHIM.format(log=hooks, real=aide_bin / "git-aide"))
    (shim / "git-aide").chmod(0o755)
    env["PATH"] = f"{shim}:{env['PATH']}"
    log = work / "requests.jsonl"
    with StandIn(DIALECT[client], script(repo), str(log), lifetime=timeout + 30) as standin:
        url = f"http://127.0.0.1:{standin.port}"
        cmd = SETUP[client](repo, home, env, url, bin_dir)
        say(f"== {client}: {Path(cmd[0]).name} {cmd[1]} ... against {url}")
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL)
            rc: int | str = r.returncode
            out, err = r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            rc = "timeout"
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        secs = time.monotonic() - t0
    (work / "client.stdout").write_text(out)
    (work / "client.stderr").write_text(err)
    say(f"   exit {rc} after {secs:.1f}s; {log} ({analyze.count_lines(log)} requests)")
    say(f"   hooks answered by the MCP server over its socket: {served_hooks(hooks)}")
    result = {"client": client, "exit": rc, "seconds": round(secs, 1), "repo": str(repo),
              "log": str(log), "hooks": str(hooks), "memories": mems, "expected": expected,
              "prompt_file": PROMPT_FILE, "instructions": instructions,
              "tools_list_chars": tools_list,
              "version": version(bin_dir, client, env)}
    (work / "run.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def served_hooks(hooks: Path) -> str:
    """Return how many of the hook calls the agent's MCP server answered ("N of M"): those
    after which the server's count of answers grew by one (`daemon status`)."""
    def answered(path: Path) -> tuple[str, int] | None:
        text = path.read_text() if path.exists() else ""
        if not text.startswith("serving:"):
            return None
        pid = text.split("pid ", 1)[1].split()[0].rstrip(",")
        return pid, int(text.rsplit(",", 1)[1].split()[0])

    calls = [d for d in hooks.iterdir() if d.is_dir()]
    served = 0
    for d in calls:
        before, after = answered(d / "before"), answered(d / "after")
        if before is not None and after is not None and before[0] == after[0] \
                and after[1] > before[1]:
            served += 1
    return f"{served} of {len(calls)}"


def version(bin_dir: Path, client: str, env: dict[str, str]) -> str:
    try:
        r = subprocess.run([str(bin_dir / client), "--version"], capture_output=True, text=True,
                           env=env, timeout=60, stdin=subprocess.DEVNULL)
        return (r.stdout.strip() or r.stderr.strip()).splitlines()[-1]
    except (subprocess.SubprocessError, IndexError):
        return "?"


def report(runs: list[dict[str, Any]], json_out: str | None) -> int:
    results = [analyze.analyze(r, script(Path(r["repo"]))) for r in runs]
    print(analyze.tables(results))
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0 if all(r["ok"] for r in results) else 1


def main() -> int:
    global CODEX_MODEL, LINES
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default=",".join(CLIENTS))
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per client run")
    ap.add_argument("--codex-model", help="the model Codex asks for (default: its own)")
    ap.add_argument("--lines", type=int, default=LINES,
                    help="lines of each generated source file (default: %(default)s, so that "
                         "Gemini CLI masks old tool outputs)")
    ap.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                    help="a git-aide setting of the test repository (repeatable), to "
                         "measure another value than the default")
    ap.add_argument("--reanalyze", metavar="SCRATCH",
                    help="only read the logs of a folder kept with --keep again")
    args = ap.parse_args()
    if args.reanalyze:
        runs = [json.loads(f.read_text()) for f in sorted(Path(args.reanalyze).glob("*/run.json"))]
        runs.sort(key=lambda r: CLIENTS.index(r["client"]))
        return report(runs, args.json)
    CODEX_MODEL = args.codex_model
    if bad := [c for c in args.config if "=" not in c]:
        ap.error(f"--config {bad[0]!r}: KEY=VALUE")
    config = [(k, v) for k, _eq, v in (c.partition("=") for c in args.config)]
    LINES = args.lines
    clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    if bad := [c for c in clients if c not in CLIENTS]:
        ap.error(f"unknown client {bad[0]!r}: one of {', '.join(CLIENTS)}")
    scratch = Path(tempfile.mkdtemp(prefix="git-aide-context."))
    try:
        npm_dir = Path(os.environ["CLIENTS_DIR"]) if os.environ.get("CLIENTS_DIR") \
            else scratch / "npm"
        bin_dir = install_clients(npm_dir, clients, scratch)
        aide_bin = install_aide(scratch)
        runs = [run_client(c, scratch, bin_dir, aide_bin, args.timeout, config)
                for c in clients]
        return report(runs, args.json)
    finally:
        if args.keep:
            say(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
