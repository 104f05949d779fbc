"""A large store of project-wide memories: a path recall decodes only the newest few
hundred of them (the view keeps them newest first), and answers exactly as if it had
decoded them all."""

from __future__ import annotations

import json
import random
import time
import uuid as uuidlib
from pathlib import Path

from conftest import aide_ok, git, remember

WORDS = ["invoice", "billing", "ledger", "retry", "cache", "deploy", "schema", "queue",
         "token", "audit", "export", "report", "tenant", "webhook", "upload"]


def write_memory(repo: Path, template: dict, what: str, updated: str) -> str:
    record = dict(template, uuid=str(uuidlib.uuid4()), what=what, scope=None,
                  created_at=updated, updated_at=updated)
    rel = f".aide/memories/technical/{record['uuid']}.json"
    (repo / rel).write_text(json.dumps(record, indent=2) + "\n")
    return rel


def test_many_project_wide_memories_answer_as_if_all_were_read(repo: Path) -> None:
    template = remember(repo, "invoices are immutable once sent", "--scope",
                        "src/billing/**", "--layer", "technical")
    template = json.loads((repo / template["path"]).read_text())
    rng = random.Random(7)
    paths = []
    for i in range(700):
        words = rng.sample(WORDS, 3)
        # Times collide on purpose: equal times must be ordered the same way either way.
        day = 1 + rng.randrange(28)
        paths.append(write_memory(repo, template, f"note {i}: {' '.join(words)}",
                                  f"2025-03-{day:02d}T10:00:00.000Z"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many project-wide memories")
    time.sleep(2.2)  # the index is trusted, and the view saved, once it is 2 s old
    file = "src/billing/invoice_export.py"

    def both() -> tuple[list[str], list[str]]:
        fast = aide_ok(repo, "recall", file, "--json").json()["memories"]
        # A filter every memory passes makes recall decode every project-wide memory.
        full = aide_ok(repo, "recall", file, "--contributor", template["contributor"],
                       "--json").json()["memories"]
        return [m["uuid"] for m in fast], [m["uuid"] for m in full]

    aide_ok(repo, "recall", file)  # saves the view
    fast, full = both()
    assert fast == full
    assert len([u for u in fast if u != template["uuid"]]) == 3  # the project-wide cap
    # An old note made the newest by hand: it lies over the view, and is weighed.
    old = min(paths, key=lambda p: json.loads((repo / p).read_text())["updated_at"])
    record = json.loads((repo / old).read_text())
    record.update(what="invoice export billing ledger", updated_at="2026-01-01T00:00:00.000Z")
    (repo / old).write_text(json.dumps(record, indent=2) + "\n")
    fast, full = both()
    assert fast == full
    assert record["uuid"] in fast
