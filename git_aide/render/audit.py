"""`audit`'s text: the summary first (how many of each kind, the areas with most
findings, the oldest memories found), then one line per finding."""

from __future__ import annotations

from git_aide.app.places import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.audit import Finding
    from git_aide.core.jsonvalue import JSONObject


def kinds_text(by_kind: dict[str, int]) -> str:
    """Render the counts by kind: `3850 stale, 2 orphaned`."""
    return ", ".join(f"{n} {kind}" for kind, n in by_kind.items())


def summary_text(summary: JSONObject) -> str:
    """Render the summary block: counts by kind, then (for more than one finding) the areas
    with most findings and the oldest."""
    n, audited = summary["findings"], summary["audited"]
    lines = [f"{n} finding{'s' if n != 1 else ''} in {audited} "
             f"memor{'y' if audited == 1 else 'ies'}: {kinds_text(summary['by_kind'])}"]
    if n < 2:  # the one line below says the rest
        return lines[0]
    areas = summary["areas"]
    if areas:
        lines.append("areas with most findings:")
        width = max(len(str(a["findings"])) for a in areas)
        names = [shown(a["area"]) for a in areas]
        name_width = max(len(name) for name in names)
        lines.extend(f"  {a['findings']:>{width}}  {name:<{name_width}}  "
                     f"{kinds_text(a['by_kind'])}" for a, name in zip(areas, names, strict=True))
    if summary["oldest"]:
        lines.append("oldest first:")
        lines.extend(f"  {o['uuid'][:8]}  {o['updated_at'][:10]}  {o['kind']:<9}  "
                     f"{shown(o['area'])}" for o in summary["oldest"])
    return "\n".join(lines)


def audit_text(summary: JSONObject, findings: list[Finding],
               fixed: list[tuple[str, str, str]]) -> str:
    """Render the whole report: the summary, a blank line, a line per finding, then what
    `--fix` rewrote; `No findings in N memories.` when there is nothing."""
    if not findings:  # then nothing was fixed either
        audited = summary["audited"]
        return f"No findings in {audited} memor{'y' if audited == 1 else 'ies'}."
    lines = [f.line() for f in findings]
    lines += [f"fixed {u[:8]}: scope {a} -> {b} (staged)" for u, a, b in fixed]
    return summary_text(summary) + "\n\n" + "\n".join(lines)
