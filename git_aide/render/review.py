"""Rendering of `diff` and `log` documents: terminal text, `--stat`, the markdown review.

Pure functions from a document to text (standard library only), so that the history
module and the MCP server can render without the CLI. Colour is plain ANSI, and only
when the caller says the output is a terminal and NO_COLOR is not set; otherwise word
changes are marked as `git diff --word-diff=plain` marks them: [-old-]{+new+}.
"""

from __future__ import annotations

import os
import re

from git_aide.core.memory import LAYERS, agent_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

_RED, _GREEN, _BOLD, _DIM, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
_WORDS = re.compile(r"\s+|[^\s]+")


class _Style:
    """Mark changes: ANSI colour on a terminal, plain markers otherwise."""

    def __init__(self, colour: bool) -> None:
        #: Whether to use ANSI colour.
        self.colour = colour

    def removed(self, text: str) -> str:
        """Mark text that went away."""
        return f"{_RED}{text}{_RESET}" if self.colour else f"[-{text}-]"

    def inserted(self, text: str) -> str:
        """Mark text that came in."""
        return f"{_GREEN}{text}{_RESET}" if self.colour else f"{{+{text}+}}"

    def green(self, text: str) -> str:
        """Colour a label green on a terminal; leave it as it is otherwise."""
        return f"{_GREEN}{text}{_RESET}" if self.colour else text

    def red(self, text: str) -> str:
        """Colour a label red on a terminal; leave it as it is otherwise."""
        return f"{_RED}{text}{_RESET}" if self.colour else text

    def bold(self, text: str) -> str:
        """Mark a heading."""
        return f"{_BOLD}{text}{_RESET}" if self.colour else text

    def dim(self, text: str) -> str:
        """Dim something less important."""
        return f"{_DIM}{text}{_RESET}" if self.colour else text


def style(tty: bool) -> _Style:
    """Return the style: colour on a terminal unless NO_COLOR is set."""
    return _Style(tty and "NO_COLOR" not in os.environ)


def word_diff(before: str | None, after: str | None, s: _Style) -> str:
    """Show `before` turned into `after`, word by word."""
    import difflib

    a = _WORDS.findall(before or "")
    b = _WORDS.findall(after or "")
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            out.append(s.removed("".join(a[i1:i2])))
        if j2 > j1:
            out.append(s.inserted("".join(b[j1:j2])))
    return "".join(out)


def _short(text: JSON, width: int = 80) -> str:
    flat = " ".join(str(text).split()) if text is not None else ""
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _value(value: JSON) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


def _scope(m: JSONObject) -> str:
    return m.get("scope") or "project"


def field_lines(change: JSONObject, s: _Style, indent: str = "    ") -> list[str]:
    """Return one line per changed field: a word diff of text, tags as added/removed."""
    before, after = change["before"], change["after"]
    lines: list[str] = []
    for name in change["fields"]:
        old, new = before.get(name), after.get(name)
        if name in ("what", "why", "context_label") and isinstance(old, (str, type(None))) \
                and isinstance(new, (str, type(None))):
            text = word_diff(old, new, s)
        elif name == "tags" and isinstance(old, list) and isinstance(new, list):
            gone = [t for t in old if t not in new]
            came = [t for t in new if t not in old]
            text = " ".join([*(s.inserted("+" + str(t)) for t in came),
                             *(s.removed("-" + str(t)) for t in gone)])
        else:
            text = f"{s.removed(_value(old))} -> {s.inserted(_value(new))}"
        lines.append(f"{indent}{name}: {text}")
    return lines


def _escaped(doc: JSONObject) -> JSONObject:
    """Escape the control characters in the document's strings (the renderers add
    their own colour codes, so the finished text cannot be escaped as a whole)."""
    from git_aide.core.controls import escape_tree

    return escape_tree(doc)


def diff_text(doc: JSONObject, *, tty: bool) -> str:
    """Render a diff document for a person: added, forgotten, then changed with each field."""
    doc = _escaped(doc)
    s = style(tty)
    lines: list[str] = []
    for m in doc["added"]:
        lines.append(f"{s.green('added')}     {m['uuid'][:8]}  {m['layer']}  [{_scope(m)}]  "
                     f"{_short(m['what'])}")
    for m in doc["forgotten"]:
        lines.append(f"{s.red('forgotten')} {m['uuid'][:8]}  {m['layer']}  [{_scope(m)}]  "
                     f"{_short(m['what'])}")
    for c in doc["changed"]:
        a = c["after"]
        names = ", ".join(c["fields"]) or "formatting only"
        lines.append(f"{s.bold('changed')}   {c['uuid'][:8]}  {a['layer']}  [{_scope(a)}]  "
                     f"({names})")
        lines.extend(field_lines(c, s))
    return "\n".join(lines) if lines else "No memory changes."


def stat_text(counts: dict[str, dict[str, int]]) -> str:
    """Render `diff --stat`: one line per layer, then the total."""
    if not counts:
        return "No memory changes."
    width = max(len(layer) for layer in counts)
    lines = []
    total = {"added": 0, "changed": 0, "forgotten": 0}
    for layer, row in counts.items():
        lines.append(f" {layer:<{width}}  {row['added']} added, {row['changed']} changed, "
                     f"{row['forgotten']} forgotten")
        for k in total:
            total[k] += row[k]
    n = sum(total.values())
    lines.append(f" {n} memor{'y' if n == 1 else 'ies'} changed: {total['added']} added, "
                 f"{total['changed']} changed, {total['forgotten']} forgotten")
    return "\n".join(lines)


def _md(text: JSON) -> str:
    """Put text on one markdown line: newlines folded, markup characters escaped."""
    flat = " ".join(str(text).split()) if text is not None else ""
    # Every ASCII punctuation that markdown may read as markup gets a backslash.
    return re.sub(r"([\\`*_\[\]<>|#~&!])", r"\\\1", flat)


def _md_code(text: str) -> str:
    """Make a code span holding `text` as it is: fenced by one backtick more than its longest
    run of backticks, padded when it starts or ends with one."""
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown(doc: JSONObject) -> str:
    """Render a diff document's review summary, grouped by layer, to paste into a pull request."""
    doc = _escaped(doc)
    by_layer: dict[str, list[str]] = {layer: [] for layer in LAYERS}
    for m in doc["added"]:
        items = by_layer.setdefault(m["layer"], [])
        items.append(f"- **added** {_md_code(m['uuid'][:8])} scope {_md_code(_scope(m))}: "
                     f"{_md(m['what'])}")
        if m.get("why"):
            items.append(f"  - why: {_md(m['why'])}")
        if m.get("tags"):
            items.append("  - tags: " + ", ".join(_md_code(str(t)) for t in m["tags"]))
    for c in doc["changed"]:
        b, a = c["before"], c["after"]
        items = by_layer.setdefault(a["layer"], [])
        names = ", ".join(c["fields"]) or "formatting only"
        items.append(f"- **changed** {_md_code(c['uuid'][:8])} scope {_md_code(_scope(a))} "
                     f"({names}): {_md(a['what'])}")
        for name in c["fields"]:
            old, new = b.get(name), a.get(name)
            if name == "tags" and isinstance(old, list) and isinstance(new, list):
                parts = [f"+{_md_code(str(t))}" for t in new if t not in old]
                parts += [f"−{_md_code(str(t))}" for t in old if t not in new]
                items.append("  - tags: " + ", ".join(parts))
            elif name == "layer":
                items.append(f"  - moved from {_md_code(str(old))}")
            elif name in ("updated_at",):
                continue
            else:
                items.append(f"  - {name}: ~~{_md(_value(old))}~~ → {_md(_value(new))}")
    for m in doc["forgotten"]:
        items = by_layer.setdefault(m["layer"], [])
        items.append(f"- **forgotten** {_md_code(m['uuid'][:8])} scope {_md_code(_scope(m))}: "
                     f"~~{_md(m['what'])}~~")
    n_add, n_chg, n_gone = len(doc["added"]), len(doc["changed"]), len(doc["forgotten"])
    head = ["## Memory changes", ""]
    if not (n_add or n_chg or n_gone):
        return "\n".join([*head, "No memory changes."]) + "\n"
    head.append(f"{n_add} added, {n_chg} changed, {n_gone} forgotten "
                f"({_where(doc['from'])} → {_where(doc['to'])}).")
    body: list[str] = []
    for layer, items in by_layer.items():
        if items:
            body += ["", f"### {layer}", "", *items]
    return "\n".join(head + body) + "\n"


def _where(source: JSONObject) -> str:
    if source["kind"] != "rev":
        return "the index" if source["kind"] == "index" else "the working tree"
    commit = source.get("commit")
    rev = source.get("rev") or ""
    return f"{_md_code(rev)} ({commit[:10]})" if commit else _md_code(rev)


def log_text(doc: JSONObject, *, tty: bool) -> str:
    """Render a log document for a person, like `git log` with one line per memory change."""
    doc = _escaped(doc)
    s = style(tty)
    out: list[str] = []
    for c in doc["commits"]:
        if out:
            out.append("")
        out.append(s.bold(f"commit {c['commit']}"))
        out.append(f"Author: {c['author']} <{c['email']}>")
        out.append(f"Date:   {c['date']}")
        out.append("")
        out.append(f"    {c['subject']}")
        out.append("")
        for ch in c["changes"]:
            m = ch["memory"]
            kind = ch["change"]
            mark = {"added": s.green, "forgotten": s.red}.get(kind, s.bold)(f"{kind:<9}")
            extra = ""  # a move shows the layer it went to in the layer column
            fields = [f for f in ch["fields"] if f not in ("updated_at", "layer")]
            if fields and kind in ("changed", "moved"):
                extra += f" ({', '.join(fields)})"
            agent = agent_of(m) if kind != "forgotten" else None
            if agent is not None:  # the change an agent made (generated_by)
                extra += f" (by {agent})"
            out.append(f"    {mark} {m['uuid'][:8]}  {m['layer']}  [{_scope(m)}]{extra}  "
                       f"{_short(m['what'], 60)}")
        out.extend(conflict_lines(c, s))
    return "\n".join(out) if out else "No memory changes."


def conflict_lines(commit: JSONObject, s: _Style) -> list[str]:
    """Mark a merge that kept one side of a field both sides changed: per field, a line
    naming the side kept and the value dropped, then the command that prints the dropped
    version whole."""
    lines: list[str] = []
    kind = s.red("conflict ")
    for x in commit.get("conflicts", ()):
        m = x["memory"]
        lost = "theirs" if x["kept"] == "ours" else "ours"
        value = x.get("dropped_value")
        shown = f'"{_short(value, 58)}"' if isinstance(value, str) else \
            _short(_value(value), 60) if "dropped_value" in x else "(no such field)"
        lines.append(f"    {kind} {m['uuid'][:8]}  {m['layer']}  [{_scope(m)}]  "
                     f"both sides changed \"{x['field']}\"; kept {x['kept']} "
                     f"({x['kept_parent'][:7]}), dropped {lost} ({x['dropped_parent'][:7]}): "
                     f"{shown}")
        lines.append(f"              recover: {x['recover']}")
    return lines
