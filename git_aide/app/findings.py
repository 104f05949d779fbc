"""The audit's findings summed up: how many of each kind, the areas of the code with the
most, and the oldest memories found (what `audit` prints before its lines, and its
`--json` `summary`)."""

from __future__ import annotations

from collections import Counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.app.audit import Finding

#: The kinds in the order `audit` lists them.
KINDS = ("moved", "orphaned", "duplicate", "stale")
#: How many areas and how many oldest memories the summary names.
TOP_AREAS = 5
OLDEST = 5


def summary(findings: list[Finding], audited: int) -> dict[str, Any]:
    """Summarize `findings` about `audited` memories: counts by kind (the kinds
    found, in KINDS order), the TOP_AREAS areas with most findings (each with its counts
    by kind), and the OLDEST memories found, oldest first."""
    kinds = Counter(f.kind for f in findings)
    by_area: dict[str, Counter[str]] = {}
    for f in findings:
        by_area.setdefault(f.area, Counter())[f.kind] += 1
    areas = sorted(by_area.items(), key=lambda item: (-item[1].total(), item[0]))
    # One memory can be found twice (moved and a duplicate): it is one of the oldest once.
    oldest: dict[str, Finding] = {}
    for f in sorted(findings, key=lambda f: (f.written or "~", f.uuid)):
        if f.written and len(oldest) < OLDEST:
            oldest.setdefault(f.uuid, f)
    return {
        "findings": len(findings),
        "audited": audited,
        "by_kind": {k: kinds[k] for k in KINDS if kinds[k]},
        "areas": [{"area": name, "findings": counts.total(),
                   "by_kind": {k: counts[k] for k in KINDS if counts[k]}}
                  for name, counts in areas[:TOP_AREAS]],
        "oldest": [{"uuid": f.uuid, "kind": f.kind, "area": f.area, "updated_at": f.written}
                   for f in oldest.values()],
    }
