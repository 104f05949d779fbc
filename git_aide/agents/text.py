"""The text content of the MCP tools: short markdown, grouped by layer, beside the
structured content (the commands' --json documents) that it renders."""

from __future__ import annotations

from typing import Any

from git_aide.memory import LAYERS


def _flat(text: str | None) -> str:
    return " ".join((text or "").split())


def memories_text(doc: dict[str, Any], empty: str = "No memories.") -> str:
    """A recall / search / list document as short markdown, grouped by layer."""
    mems = doc["memories"]
    src = doc["source"]
    where = f" at {src['rev']} ({(src['commit'] or '')[:12]})" if src["kind"] == "rev" else ""
    if not mems:
        return empty + where
    lines: list[str] = [f"{len(mems)} memor{'y' if len(mems) == 1 else 'ies'}{where}"]
    for layer in LAYERS:
        group = [m for m in mems if m["layer"] == layer]
        if not group:
            continue
        lines += ["", f"## {layer}"]
        for m in group:
            scope = m["scope"] or "project"
            why = f" (why: {_flat(m['why'])})" if m.get("why") else ""
            lines.append(f"- [{scope}] {_flat(m['what'])}{why} `{m['uuid'][:8]}`")
    return "\n".join(lines)


def diff_text(doc: dict[str, Any]) -> str:
    """A diff document as short markdown."""
    lines = []
    for key, sign in (("added", "+"), ("forgotten", "-")):
        for m in doc.get(key, []):
            lines.append(f"{sign} [{m.get('layer')}] {_flat(m.get('what'))} "
                         f"`{str(m.get('uuid'))[:8]}`")
    for c in doc.get("changed", []):
        after = c.get("after") or {}
        lines.append(f"~ [{after.get('layer')}] {_flat(after.get('what'))} "
                     f"`{str(c.get('uuid'))[:8]}` ({', '.join(c.get('fields', []))})")
    return "\n".join(lines) if lines else "No memory changes."


def log_text(doc: dict[str, Any]) -> str:
    """A log document as short markdown."""
    lines = []
    for c in doc.get("commits", []):
        lines.append(f"- {str(c.get('commit'))[:10]} {c.get('subject', '')}")
        for ch in c.get("changes", []):
            what = _flat((ch.get("memory") or {}).get("what"))
            lines.append(f"  - {ch.get('change')} `{str(ch.get('uuid'))[:8]}` {what}")
        for x in c.get("conflicts", ()):  # a merge that kept one side of a same-field change
            lines.append(f"  - conflict `{str(x.get('uuid'))[:8]}` {x.get('field')}: kept "
                         f"{x.get('kept')}, dropped {_flat(str(x.get('dropped_value')))[:80]}"
                         f" (recover: `{x.get('recover')}`)")
    return "\n".join(lines) if lines else "No commits changed memories."
