"""The test repository: trigger.dev's real rules files in a generated tree of its folders.

The rules files are the real ones of `triggerdotdev/trigger.dev` at b082e443 (Apache
License 2.0), which this checkout already holds as test data in `tests/fixtures/rules/`
(see its README): the root `AGENTS.md`, the root `CLAUDE.md` (`@AGENTS.md`), the nested
`packages/core/CLAUDE.md` and three Cursor rules (`.cursor/rules/*.mdc`), put back at
their places. The source files are small generated TypeScript files at paths of the real
repository (the folders its AGENTS.md names), so that scopes, the `CLAUDE.md` of
`packages/core` and the Cursor rules' globs apply as they would there.

Then `git aide init` for the three agents, `git aide import` of the rules files and
`TEAM`: sixteen team memories scoped to the tree's folders, three of them
`priority: always`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "rules"

#: fixture -> its path in trigger.dev.
RULES = {
    "trigger-AGENTS.md": "AGENTS.md",
    "trigger-CLAUDE.md": "CLAUDE.md",
    "trigger-core-CLAUDE.md": "packages/core/CLAUDE.md",
    "trigger-webapp.mdc": ".cursor/rules/webapp.mdc",
    "trigger-otel-metrics.mdc": ".cursor/rules/otel-metrics.mdc",
    "trigger-executing-commands.mdc": ".cursor/rules/executing-commands.mdc",
}

#: path -> (a symbol the file is about, what it does): one generated file each.
SOURCES = {
    "apps/webapp/app/services/triggerTask.server.ts": ("TriggerTaskService",
                                                       "triggers a task run from the API"),
    "apps/webapp/app/services/replayTaskRun.server.ts": ("ReplayTaskRunService",
                                                         "replays a finished run"),
    "apps/webapp/app/routes/api.v1.tasks.$taskId.trigger.ts": ("triggerRoute",
                                                               "the trigger endpoint"),
    "apps/webapp/app/v3/featureFlags.server.ts": ("flags", "reads the feature flags"),
    "apps/supervisor/src/workloadManager/kubernetes.ts": ("KubernetesWorkloadManager",
                                                          "starts run pods"),
    "apps/supervisor/src/index.ts": ("ManagedSupervisor", "the supervisor's entry point"),
    "internal-packages/run-engine/src/engine/index.ts": ("RunEngine",
                                                         "the run lifecycle"),
    "internal-packages/run-engine/src/engine/systems/ttlSystem.ts": ("TtlSystem",
                                                                     "expires queued runs"),
    "internal-packages/run-engine/src/engine/systems/waitpointSystem.ts": (
        "WaitpointSystem", "blocks and resumes runs"),
    "internal-packages/database/prisma/schema.prisma": ("TaskRun", "the database schema"),
    "packages/core/src/v3/schemas/api.ts": ("TriggerTaskRequestBody",
                                            "the API's request schemas"),
    "packages/core/src/v3/utils/retries.ts": ("calculateNextRetryDelay", "retry delays"),
    "packages/trigger-sdk/src/v3/tasks.ts": ("task", "defines a task"),
    "packages/cli-v3/src/commands/deploy.ts": ("deployCommand", "deploys a project"),
    "packages/redis-worker/src/worker.ts": ("Worker", "runs background jobs"),
}

#: The team's memories: (what, why, layer, scope, priority). Scopes name folders and
#: files of SOURCES; None is project-wide.
TEAM: list[tuple[str, str | None, str, str | None, str]] = [
    ("Every queue name that reaches Redis goes through sanitizeQueueName(); never build "
     "a queue key by string concatenation.",
     "Two incidents in 2025 came from unescaped queue names colliding in one keyspace.",
     "guidelines", None, "always"),
    ("Read feature flags through flags() in apps/webapp/app/v3/featureFlags.server.ts, "
     "never from process.env directly.",
     "Flags are per organization and cached; process.env only holds the defaults.",
     "guidelines", None, "always"),
    ("Never log a run's payload or output: log its friendly id and payload size only.",
     "Payloads hold customer secrets, and logs are shipped to a third party.",
     "guidelines", None, "always"),
    ("CI runs the unit tests on Node 20 and 22: do not use APIs newer than Node 20.",
     None, "technical", None, "normal"),
    ("Services that trigger runs return a Result and never throw for validation errors; "
     "the route maps the error to a 4xx response.",
     "A thrown validation error became a 500 and paged the on-call twice.",
     "technical", "apps/webapp/app/services/**", "normal"),
    ("In triggerTask.server.ts the idempotency key check stays before the queue length "
     "check, or a retried request is rejected as over quota.",
     "Customers retry on timeouts with the same idempotency key.",
     "area_context", "apps/webapp/app/services/triggerTask.server.ts", "normal"),
    ("API routes authenticate with authenticateApiRequest() before they parse the body.",
     None, "technical", "apps/webapp/app/routes/**", "normal"),
    ("RunEngine changes a run's state only inside runLock.lock(); reading then writing a "
     "run without the lock races with the heartbeat.",
     "The heartbeat system rewrites the execution snapshot every 30 seconds.",
     "area_context", "internal-packages/run-engine/**", "normal"),
    ("Only ttlSystem expires runs; other systems ask it instead of expiring a run "
     "themselves.",
     None, "area_context", "internal-packages/run-engine/src/engine/systems/**", "normal"),
    ("A Prisma migration is additive: add the column nullable, backfill it in a worker, "
     "and make it required in a later release.",
     "Deploys run old and new webapp versions side by side for minutes.",
     "technical", "internal-packages/database/**", "normal"),
    ("Schemas in packages/core/src/v3/schemas are shared with deployed tasks: only add "
     "optional fields, never rename or remove one.",
     "Deployed tasks keep the core version they were built with for months.",
     "area_context", "packages/core/src/v3/schemas/**", "normal"),
    ("packages/core must not import Node-only modules at module scope; the SDK bundles it "
     "for edge runtimes.",
     None, "technical", "packages/core/**", "normal"),
    ("Every public SDK function gets a JSDoc example; the docs build their reference from "
     "it.",
     None, "guidelines", "packages/trigger-sdk/**", "normal"),
    ("The supervisor never calls the database; it talks to the webapp through the "
     "platform API client.",
     "Supervisors run in customer clusters without database credentials.",
     "area_context", "apps/supervisor/**", "normal"),
    ("The CLI prints through logger from src/utilities/logger.ts so that --log-level and "
     "--json output keep working.",
     None, "technical", "packages/cli-v3/**", "normal"),
    ("Jobs in redis-worker are idempotent by id: enqueue again with the same id to "
     "deduplicate rather than checking whether the job exists first.",
     "Checking first races with the worker that dequeues the job.",
     "technical", "packages/redis-worker/**", "normal"),
]


#: Lines of each generated source file (about 16,500 tokens each). Gemini CLI masks old
#: tool outputs once more than 80,000 tokens of them are in the conversation (50,000 kept
#: whole, 30,000 or more to mask), so that five whole-file reads show what a long
#: session keeps (`--lines`).
LINES = 1990
_VERBS = ("prepare", "validate", "enqueue", "start", "complete", "expire", "retry",
          "cancel", "resume", "schedule", "heartbeat", "release")


def source_text(path: str, symbol: str, does: str, lines_wanted: int = LINES) -> str:
    """A generated TypeScript (or Prisma) file of about LINES lines, the same every
    time."""
    if path.endswith(".prisma"):
        lines = ["// Prisma schema (generated for the git-aide context benchmark)",
                 'generator client {', '  provider = "prisma-client-js"', '}', '',
                 'datasource db {', '  provider = "postgresql"', '  url = env("DATABASE_URL")',
                 '}', '']
        for model in ("Organization", "Project", "RuntimeEnvironment", "TaskRun",
                      "TaskRunAttempt", "Waitpoint", "BackgroundWorker"):
            lines += [f"model {model} {{", '  id        String   @id @default(cuid())',
                      '  createdAt DateTime @default(now())',
                      '  updatedAt DateTime @updatedAt', '  friendlyId String  @unique',
                      '  status    String', '  metadata  Json?', "}", ""]
        return "\n".join(lines) + "\n"
    name = os.path.basename(path).split(".")[0]
    cap = symbol[:1].upper() + symbol[1:]
    lines = [f"// {path}: {does} (generated for the git-aide context benchmark)",
             'import { z } from "zod";',
             'import { logger } from "~/services/logger.server";', "",
             "const DEFAULT_MAX_ATTEMPTS = 3;",
             f'const COMPONENT = "{name}";', "",
             f"export const {symbol}Options = z.object({{",
             "  maxAttempts: z.number().int().default(DEFAULT_MAX_ATTEMPTS),",
             "  queue: z.string().optional(),",
             "  ttl: z.string().optional(),",
             "});", ""]
    i = 0
    while len(lines) < lines_wanted:
        verb = _VERBS[i % len(_VERBS)]
        n = i // len(_VERBS)
        lines += [f"export async function {verb}{cap}{n or ''}(",
                  "  runId: string,",
                  f"  options: z.infer<typeof {symbol}Options>",
                  "): Promise<{ ok: boolean; step: number }> {",
                  f'  logger.debug("{verb}", {{ component: COMPONENT, runId, step: {i} }});',
                  f"  if (options.maxAttempts < {i % 7 + 1}) {{",
                  f"    return {{ ok: false, step: {i} }};",
                  "  }",
                  f"  return {{ ok: true, step: {i} }};",
                  "}", ""]
        i += 1
    return "\n".join(lines) + "\n"


def git(repo: Path, *args: str, env: dict[str, str] | None = None,
        check: bool = True) -> str:
    r = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    if check and r.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def aide(repo: Path, *args: str, env: dict[str, str]) -> str:
    r = subprocess.run(["git-aide", *args], cwd=repo, env=env, capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError(f"git-aide {' '.join(args)}: {r.stderr.strip() or r.stdout}")
    return r.stdout


def build(repo: Path, env: dict[str, str], agents: list[str],
          lines: int = LINES) -> dict[str, Any]:
    """Make the repository at REPO (git-aide from ENV's PATH); return what the analysis
    needs: the memories (every field), by uuid."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main", env=env)
    for k, v in (("user.name", "Ada Tester"), ("user.email", "ada@example.com"),
                 ("commit.gpgsign", "false")):
        git(repo, "config", k, v, env=env)
    for fixture, dest in RULES.items():
        target = repo / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((FIXTURES / fixture).read_bytes())
    for path, (symbol, does) in SOURCES.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source_text(path, symbol, does, lines), encoding="utf-8")
    (repo / "package.json").write_text(json.dumps(
        {"name": "triggerdotdev", "private": True, "packageManager": "pnpm@10.33.2"},
        indent=2) + "\n")
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-qm", "trigger.dev's layout and rules files", env=env)
    aide(repo, "init", *[a for agent in agents for a in ("--agent", agent)], env=env)
    aide(repo, "import", env=env)
    for what, why, layer, scope, priority in TEAM:
        args = ["remember", what, "--layer", layer, "--priority", priority]
        if why:
            args += ["--why", why]
        if scope:
            args += ["--scope", scope]
        aide(repo, *args, env=env)
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-qm", "git-aide: agents, imported rules, team memories", env=env)
    return memories(repo)


def memories(repo: Path) -> dict[str, dict[str, Any]]:
    """Every memory file of the store, by uuid."""
    out = {}
    for f in sorted((repo / ".aide" / "memories").rglob("*.json")):
        rec = json.loads(f.read_text(encoding="utf-8"))
        rec["_file"] = str(f.relative_to(repo))
        out[rec["uuid"]] = rec
    return out


def recall(repo: Path, path: str, env: dict[str, str]) -> list[str]:
    """The uuids of the memories whose scope matches PATH (a project-wide memory's does
    not), as `git aide recall PATH` finds them (`matched_scope`; recall also lists
    memories that only name the path's folders)."""
    doc = json.loads(aide(repo, "recall", path, "--json", "--limit", "1000", env=env))
    return [m["uuid"] for m in doc["memories"] if m.get("scope") and m.get("matched_scope")]


def server_hello(repo: Path, env: dict[str, str]) -> tuple[str, int]:
    """The instructions git-aide's MCP server gives a client in its `initialize` answer,
    and the length of the tool list its `tools/list` answers (compact JSON, as sent)."""
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    tools = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    r = subprocess.run(["git-aide", "mcp"], cwd=repo, env=env,
                       input="".join(json.dumps(m) + "\n" for m in (hello, ready, tools)),
                       capture_output=True, text=True, timeout=60)
    instructions, listed = "", 0
    for line in r.stdout.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if doc.get("id") == 1:
            instructions = str(doc.get("result", {}).get("instructions") or "")
        elif doc.get("id") == 2 and isinstance(doc.get("result"), dict):
            listed = len(json.dumps(doc["result"].get("tools"), ensure_ascii=False,
                                    separators=(",", ":")))
    return instructions, listed
