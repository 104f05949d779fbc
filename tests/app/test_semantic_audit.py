"""`audit` with a model: two memories that say one thing in other words are near
duplicates by meaning, to be compared, never forgotten on meaning alone."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import aide, aide_ok, git, remember


def _findings(repo: Path) -> list[dict[str, str]]:
    doc = aide_ok(repo, "audit", "--json").json()
    return [f for f in doc["findings"] if f["kind"] == "duplicate"]


def test_audit_pairs_memories_alike_in_meaning(repo: Path, tiny: Path) -> None:
    older = remember(repo, "Users login with a password")["uuid"]
    time.sleep(0.01)
    newer = remember(repo, "signin and authenticate credentials")["uuid"]
    remember(repo, "We deploy on friday")
    # Words alone: nothing alike (no word in common).
    assert _findings(repo) == []
    git(repo, "config", "aide.semantic.model", str(tiny))
    found = _findings(repo)
    assert [(f["uuid"], f["other"]) for f in found] == [(older, newer)]
    assert "by meaning" in found[0]["message"]
    out = aide(repo, "audit")
    assert "compare them" in out.stdout + out.stderr
    assert "forget it" not in out.stdout + out.stderr
