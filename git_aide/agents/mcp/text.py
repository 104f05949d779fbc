"""An MCP tool's answer as an agent reads it: a memory in the compact form the read tools
give by default (each memory its short id, layer, scope (none when project-wide), what,
why (when it has one) and the marks that change how to read it: priority always,
superseded, shared false, the user's own store, clipped; `detail: "full"` gives the
command's --json document instead), and each document as short markdown, the text
content, grouped by layer. Both are kept within the budget by answersize.py.
"""

from __future__ import annotations

from git_aide.agents.mcp.answersize import cap, item_id, short
from git_aide.core.memory import LAYERS, in_user_store
from git_aide.core.settings import MCP_BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.core.jsonvalue import JSONObject
    from git_aide.rank.recall import Hit

    #: What writes a memory's line after its bullet or number: memory_body, or a warm
    #: server's kept lines of it (warm/kept_items.py).
    Body = Callable[[JSONObject, bool], str]

#: Characters an agent gets from one tool call at most unless git config aide.mcp.maxChars
#: says otherwise (core/settings.py declares it and its least value).
BUDGET = MCP_BUDGET


def compact(hit: Hit) -> JSONObject:
    """Return a memory as the read tools give it by default (app/answers.py's Hit in): what an
    agent acts on, and no field that is the same for most memories or only bookkeeping
    (dates, path, contributor, source, score)."""
    record = hit.entry.read_record()
    item: JSONObject = {"id": short(record["uuid"]), "layer": record["layer"]}
    if record.get("scope"):
        item["scope"] = record["scope"]
    item["what"] = record["what"]
    if record.get("why"):
        item["why"] = record["why"]
    if record.get("priority") == "always":
        item["priority"] = "always"
    if record.get("shared") is False:
        item["shared"] = False
    if in_user_store(hit.entry.path):
        item["store"] = "user"
    newer = getattr(hit, "superseded", None)
    if newer is not None:
        item["superseded_by"] = short(newer.entry.uuid)
    return item


def compact_source(source: JSONObject) -> JSONObject:
    """Return the part of a compact document that says where it was read: nothing for the
    working tree, else the revision and its commit."""
    if source.get("kind") in (None, "worktree"):
        return {}
    return {"source": {"rev": source.get("rev"), "commit": source.get("commit")}}


def _flat(text: str | None) -> str:
    """Return a memory's text folded for a list item, code kept as indented lines."""
    from git_aide.core.memory import folded

    # Code stays code: its lines, indented under the list item.
    return folded(text).replace("\n", "\n  ")


def _more_line(more: JSONObject, left: int, what: str) -> str:
    """Say how many items were left out, the ids of the first and how to get them."""
    ids = more.get("ids") or []
    named = ", ".join(f"`{i}`" for i in ids) + (" …" if 0 < len(ids) < left else "")
    line = f"{left} more {what} not shown" + (f": {named}" if named else "")
    hint = more.get("hint")
    return line + (f"; {hint}" if hint else "")


def memory_body(m: JSONObject, ranked: bool) -> str:
    """Return a compact memory's line of markdown after its bullet or number (`ranked`:
    the layer a label)."""
    scope = f"[{m['scope']}] " if m.get("scope") else ""
    if ranked:  # numbered in the answer's order, the layer a label
        scope = f"{m.get('layer')} {scope}"
    why = f" (why: {_flat(m.get('why'))})" if m.get("why") else ""
    marks = [mark for mark, on in (
        ("always on", m.get("priority") == "always"),
        ("personal", m.get("shared") is False),
        ("yours, in every repository", m.get("store") == "user"),
        (f"superseded by `{m.get('superseded_by')}`", m.get("superseded_by")),
        ("clipped", m.get("clipped"))) if on]
    said = f" ({'; '.join(marks)})" if marks else ""
    return f"{scope}{_flat(m.get('what'))}{why}{said} `{item_id(m) or '?'}`"


def memories_text(doc: JSONObject, empty: str = "No memories.",
                  budget: int = BUDGET, ranked: bool = True, body: Body = memory_body) -> str:
    """Return a recall / search / list document as short markdown: `ranked` (recall,
    search), numbered in the answer's order with the layer a label; else (list) grouped
    by layer. `body`: what writes each memory's line after its bullet or number."""
    mems = doc.get("memories", [])
    more = doc.get("more") or {}
    left = more.get("memories", 0)
    src = doc.get("source") or {}
    where = (f" at {src.get('rev')} ({(src.get('commit') or '')[:12]})"
             if src.get("rev") is not None and src.get("kind", "rev") == "rev" else "")
    if not mems and not left:
        return cap(empty + where, budget)
    count = len(mems) + left
    noun = "memory" if count == 1 else "memories"
    lines: list[str] = [(f"{len(mems)} of {count} {noun}" if left else f"{count} {noun}")
                        + where]
    if ranked:
        lines += ["", *(f"{i}. {body(m, True)}" for i, m in enumerate(mems, 1))]
    for layer in () if ranked else LAYERS:
        group = [m for m in mems if m.get("layer") == layer]
        if group:
            lines += ["", f"## {layer}", *(f"- {body(m, False)}" for m in group)]
    if left:
        lines += ["", _more_line(more, left, "memory" if left == 1 else "memories")]
    return cap("\n".join(lines), budget)


def diff_text(doc: JSONObject, budget: int = BUDGET) -> str:
    """Return a diff document as short markdown."""
    lines = []
    for key, sign in (("added", "+"), ("forgotten", "-")):
        for m in doc.get(key, []):
            lines.append(f"{sign} [{m.get('layer')}] {_flat(m.get('what'))} "
                         f"`{short(m.get('uuid'))}`")
    for c in doc.get("changed", []):
        after = c.get("after") or {}
        lines.append(f"~ [{after.get('layer')}] {_flat(after.get('what'))} "
                     f"`{short(c.get('uuid'))}` ({', '.join(c.get('fields', []))})")
    more = doc.get("more") or {}
    left = sum(more.get(k, 0) for k in ("added", "forgotten", "changed"))
    if left:
        counts = ", ".join(f"{more[k]} {k}" for k in ("added", "forgotten", "changed")
                           if more.get(k))
        lines.append(_more_line(more, left, f"changes ({counts})"))
    return cap("\n".join(lines) if lines else "No memory changes.", budget)


def log_text(doc: JSONObject, budget: int = BUDGET) -> str:
    """Return a log document as short markdown."""
    lines = []
    for c in doc.get("commits", []):
        more = c.get("more") or {}
        left = more.get("changes", 0) + more.get("conflicts", 0)
        total = len(c.get("changes", [])) + len(c.get("conflicts", ())) + left
        counted = f" ({total} changes, {total - left} shown)" if left else ""
        lines.append(f"- {str(c.get('commit'))[:10]} {c.get('subject', '')}{counted}")
        for ch in c.get("changes", []):
            what = _flat((ch.get("memory") or {}).get("what"))
            lines.append(f"  - {ch.get('change')} `{short(ch.get('uuid'))}` {what}")
        for x in c.get("conflicts", ()):  # a merge that kept one side of a same-field change
            lines.append(f"  - conflict `{short(x.get('uuid'))}` {x.get('field')}: kept "
                         f"{x.get('kept')}, dropped {_flat(str(x.get('dropped_value')))[:80]}"
                         f" (recover: `{x.get('recover')}`)")
        if left:
            lines.append("  - " + _more_line(more, left, "changes"))
    more = doc.get("more") or {}
    if more.get("commits"):
        lines.append(f"{more['commits']} more commits not shown. {more.get('hint', '')}"
                     .rstrip())
    return cap("\n".join(lines) if lines else "No commits changed memories.", budget)


def import_text(doc: JSONObject, budget: int = BUDGET) -> str:
    """Return an import document as short markdown: the counts, each memory with its id, what
    was skipped and why, the warnings."""
    more = doc.get("more") or {}
    imported = doc.get("imported", [])
    skipped = doc.get("skipped", [])
    n_imp = len(imported) + more.get("imported", 0)
    n_skip = len(skipped) + more.get("skipped", 0)
    verb = "Would import" if doc.get("dry_run") else "Imported"
    reasons: dict[str, int] = {}
    for s in skipped:
        reasons[str(s.get("reason"))] = reasons.get(str(s.get("reason")), 0) + 1
    why = (" (" + ", ".join(f"{r}: {n}" for r, n in reasons.items()) + ")") if reasons else ""
    # The importer's own summary, when it gives one, says also what it left out and why.
    lines = [doc.get("summary")
             or f"{verb} {n_imp} memor{'y' if n_imp == 1 else 'ies'}, skipped {n_skip}{why}."]
    for m in imported:
        lines.append(f"- [{m.get('layer')}] [{m.get('scope') or 'project'}] "
                     f"{_flat(m.get('what'))} `{short(m.get('uuid'))}`")
    for s in skipped:
        lines.append(f"- skipped ({s.get('reason')}): {_flat(s.get('what'))}"
                     + (f" `{short(s['uuid'])}`" if s.get("uuid") else ""))
    lines += [f"warning: {w}" for w in doc.get("warnings", [])]
    left = sum(v for k, v in more.items() if isinstance(v, int))
    if left:
        lines.append(_more_line(more, left, "items"))
    return cap("\n".join(lines), budget)
