"""Human tables and --json documents. Returns text; the CLI decides where it goes.

Rich is imported only when the output is a terminal: piped output is plain text, one
memory per line, so that it greps and diffs well and starts fast.
"""

from __future__ import annotations

import json
import os

from git_aide.core.controls import escape as escape_controls
from git_aide.core.memory import LAYERS, folded, in_user_store
from git_aide.rank.selection import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import Console

    from git_aide.core.jsonvalue import JSON, JSONObject


def dumps(doc: JSON, large: bool = False) -> str:
    """Return one JSON document as text; `large` (thousands of memories): written by orjson
    when it writes what the standard library would (a fifth of the time; its import
    costs more than a small document's writing)."""
    if large and _written_alike(doc):
        try:
            import orjson

            return orjson.dumps(doc).decode()
        except (ImportError, TypeError):  # an integer beyond 64 bits, a key not a str
            pass
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _written_alike(doc: JSON) -> bool:
    """Tell whether orjson writes every number of a document as the standard library does:
    it writes every string (ensure_ascii off), integer, true, false and null alike, and
    floats too but for those below 1e-4 and from 1e16 up (0.00001 for 1e-05); 1e15 is
    where this stops trusting it. Only containers are walked into: the strings, most
    of a document, are passed over with one look each."""
    if type(doc) is not dict and type(doc) is not list:
        return type(doc) is not float or _float_alike(doc)  # type: ignore[arg-type]
    stack = [doc]
    pop, push = stack.pop, stack.append
    while stack:
        v = pop()
        for x in (v.values() if type(v) is dict else v):  # type: ignore[union-attr]
            t = type(x)
            if t is str:
                continue
            if t is float:
                if not _float_alike(x):
                    return False
            elif t is dict or t is list or t is tuple:
                push(x)
    return True


def _float_alike(v: float) -> bool:
    return v == 0.0 or 1e-4 <= abs(v) < 1e15


def _scope_text(record: JSONObject) -> str:
    return record["scope"] or "project"


def _group(hits: list[Hit]) -> list[tuple[str, list[Hit]]]:
    groups: dict[str, list[Hit]] = {layer: [] for layer in LAYERS}
    for h in hits:
        groups[h.entry.layer].append(h)
    return [(layer, hs) for layer, hs in groups.items() if hs]


def _marks(hit: Hit, record: JSONObject) -> str:
    """Return what sets a memory apart in a listing: always-on, personal, yours (the
    user's own store's, in every repository)."""
    marks = ["always-on"] if record.get("priority") == "always" else []
    if record.get("shared") is False:
        marks.append("personal")
    if in_user_store(hit.entry.path):
        marks.append("yours")
    return ", ".join(marks)


def memories_text(hits: list[Hit], *, tty: bool, empty: str = "No memories.",
                  ranked: bool = False) -> str:
    """Return memories as text: grouped by layer (`list`), or `ranked` (recall, search):
    numbered in the answer's order, the layer a label, with the score when there is one."""
    if not hits:
        return empty
    if ranked:
        return _ranked_rich(hits) if tty else _ranked_plain(hits)
    if tty:
        return _memories_rich(hits)
    lines: list[str] = []
    for layer, hs in _group(hits):
        if lines:
            lines.append("")
        lines.append(f"{layer}:")
        for h in hs:
            r = h.entry.read_record()
            tags = "".join(f" #{t}" for t in r["tags"])
            what = folded(r["what"]).replace("\n", "\n" + " " * 12)
            marks = _marks(h, r)
            marks = f"  ({marks})" if marks else ""
            lines.append(f"  {r['uuid'][:8]}  [{_scope_text(r)}]  {what}{tags}{marks}")
            if r["why"]:
                lines.append(f"            why: {' '.join(r['why'].split())}")
    return "\n".join(lines)


#: More memories than this in one answer, and each one's record is read without being
#: kept (read/record.Records keeps 1,024: more would only churn them).
MANY = 1024


def _ranked_plain(hits: list[Hit]) -> str:
    width = len(str(len(hits)))
    pad = " " * (width + 2)  # a memory's lines after its first
    under = "\n" + pad
    lines: list[str] = []
    add = lines.append
    once = len(hits) > MANY
    for i, h in enumerate(hits, 1):
        r = h.entry.read_record_once() if once else h.entry.read_record()
        tags = r["tags"]
        tagged = " #" + " #".join(tags) if tags else ""
        what = folded(r["what"]).replace("\n", under)
        marks = _marks(h, r)
        score = None if h.score is None else f"score {h.score:.2f}"
        extra = f"{marks}, {score}" if marks and score else marks or score
        label = f"{r['layer']} [{r['scope'] or 'project'}]" + (f" ({extra})" if extra else "")
        add(f"{str(i).rjust(width)}. {r['uuid'][:8]}  {label}")
        add(f"{pad}{what}{tagged}")
        why = r["why"]
        if why:
            add(f"{pad}why: {' '.join(why.split())}")
    return "\n".join(lines)


def _ranked_rich(hits: list[Hit]) -> str:
    from rich.markup import escape
    from rich.table import Table

    def cell(text: str) -> str:
        return escape(escape_controls(text))

    console = _console()
    table = Table(show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("layer", style="yellow", no_wrap=True)
    table.add_column("scope", style="magenta")
    table.add_column("memory", ratio=3)
    scored = any(h.score is not None for h in hits)
    if scored:
        table.add_column("score", justify="right", no_wrap=True)
    for i, h in enumerate(hits, 1):
        r = h.entry.read_record()
        what = cell(r["what"]) + "".join(f" [green]#{cell(t)}[/green]" for t in r["tags"])
        if r["why"]:
            what += f"\n[dim]why: {cell(r['why'])}[/dim]"
        marks = _marks(h, r)
        if marks:
            what += f"\n[bold]{cell(marks)}[/bold]"
        row = [str(i), cell(r["uuid"][:8]), r["layer"], cell(_scope_text(r)), what]
        if scored:
            row.append("" if h.score is None else f"{h.score:.2f}")
        table.add_row(*row)
    console.print(table)
    return printed(console)


def _console() -> Console:
    import io
    import shutil

    from rich.console import Console

    width = shutil.get_terminal_size((100, 24)).columns
    return Console(file=io.StringIO(), force_terminal=True, width=width,
                   no_color="NO_COLOR" in os.environ, highlight=False)


def printed(console: Console) -> str:
    """Return what a console of `_console` printed, without its last newline."""
    import io

    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue().rstrip("\n")


def _memories_rich(hits: list[Hit]) -> str:
    from rich.markup import escape
    from rich.table import Table

    def cell(text: str) -> str:
        # Memory text is neither markup nor terminal codes: shown as written, escaped.
        return escape(escape_controls(text))

    console = _console()
    for layer, hs in _group(hits):
        table = Table(title=f"[bold]{layer}[/bold] ({len(hs)})", title_justify="left",
                      show_lines=False, expand=True)
        table.add_column("id", style="cyan", no_wrap=True)
        table.add_column("scope", style="magenta")
        table.add_column("memory", ratio=3)
        table.add_column("tags", style="green")
        for h in hs:
            r = h.entry.read_record()
            what = cell(r["what"]) + (f"\n[dim]why: {cell(r['why'])}[/dim]" if r["why"] else "")
            if _marks(h, r):
                what += f"\n[bold]{cell(_marks(h, r))}[/bold]"
            table.add_row(cell(r["uuid"][:8]), cell(_scope_text(r)), what,
                          cell(" ".join(r["tags"])))
        console.print(table)
    return printed(console)


def show_text(record: JSONObject, path: str, *, tty: bool) -> str:
    """Render one memory, every field."""
    pairs = [("path", path)]
    for key, value in record.items():
        text = value if isinstance(value, str) else dumps(value)
        pairs.append((key, text))
    width = max(len(k) for k, _ in pairs)
    if not tty:
        return "\n".join(f"{k:<{width}}  {v}" for k, v in pairs)
    from rich.markup import escape

    console = _console()
    for k, v in pairs:
        console.print(f"[bold]{escape(escape_controls(k)):<{width}}[/bold]  "
                      f"{escape(escape_controls(v))}")
    return printed(console)


def stats_text(doc: JSONObject) -> str:
    """Render the stats report as plain text."""
    total = doc["total"]
    lines = [f"{total} {'memory' if total == 1 else 'memories'}"]
    for title, key in (("by layer", "by_layer"), ("by source", "by_source"),
                       ("by contributor", "by_contributor")):
        lines.append(f"{title}:")
        lines.extend(f"  {n:>6}  {name}" for name, n in doc[key].items())
    lines.append("answers on this machine (never committed):")
    calls = doc["calls"]
    for kind, title in (("recall", "recalls"), ("search", "searches"),
                        ("list", "listings"), ("session", "session starts")):
        n = sum(calls[kind].values())
        if n or kind in ("recall", "search"):
            parts = ", ".join(f"{c} {m}" for c, m in calls[kind].items() if m)
            lines.append(f"  {n:>6}  {title}" + (f" ({parts})" if parts else ""))
    writes = {k: sum(calls[k].values()) for k in ("remember", "update", "forget")}
    parts = ", ".join(f"{k} {m}" for k, m in writes.items() if m)
    lines.append(f"  {sum(writes.values()):>6}  writes" + (f" ({parts})" if parts else ""))
    lines.append("most recalled (on this machine):")
    lines.extend(f"  {m['recalls']:>6}  {m['uuid'][:8]}  {_short(m['what'])}"
                 for m in doc["most_recalled"]) if doc["most_recalled"] else lines.append(
        "  (none yet)")
    lines.append("used most by agents (MCP answers and hooks, on this machine):")
    lines.extend(f"  {m['uses']:>6}  {m['uuid'][:8]}  {_short(m['what'])}"
                 for m in doc["used_by_agents"]) if doc["used_by_agents"] else lines.append(
        "  (none yet)")
    unseen = len(doc["never_seen"])
    lines.append(f"never given to an agent: {unseen} of {total}"
                 + (" (`git aide list --never-seen` lists them)" if unseen else ""))
    stale = doc["never_recalled_older_than_30_days"]
    lines.append(f"never in any answer, older than 30 days: {len(stale)}")
    lines.extend(f"          {m['uuid'][:8]}  {_short(m['what'])}" for m in stale[:20])
    if len(stale) > 20:
        lines.append(f"          ... and {len(stale) - 20} more (see --json)")
    return "\n".join(lines)


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
