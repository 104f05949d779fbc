"""`git aide map` in the terminal: the folders as a tree, each with its memories (and
how many are always-on, stale, orphaned, moved) and its code; a folder with much code
and no memory said so. Plain text when piped (rich only on a terminal, as
output.py)."""

from __future__ import annotations

from git_aide.app.places import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.map import Folder, Map


def size_text(n: int) -> str:
    """Show bytes as a person reads them: `512 B`, `42.1 KB`, `2.2 MB`."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{n} B"  # not reached


def _name(m: Map, f: Folder) -> str:
    if f.path == m.start:
        return shown(f.path)
    return f.path.rpartition("/")[2] + "/"


def _parts(f: Folder) -> tuple[str, list[tuple[str, str]], str]:
    """Return (memories, [(mark, style)], code) of a folder's line."""
    if f.memories == 0:
        memories = "no memory"
    else:
        memories = f"{f.memories} memor{'y' if f.memories == 1 else 'ies'}"
    marks = [(f"{n} {word}", style) for n, word, style in (
        (f.always, "always-on", "magenta"), (f.stale, "stale", "yellow"),
        (f.orphaned, "orphaned", "red"), (f.moved, "moved", "red")) if n]
    code = f"{f.files} file{'s' if f.files != 1 else ''}, {size_text(f.bytes)}"
    return memories, marks, code


def _line(m: Map, f: Folder) -> str:
    memories, marks, code = _parts(f)
    text = f"{_name(m, f)}  {memories}"
    if marks:
        text += f" ({', '.join(mark for mark, _ in marks)})"
    text += f"  {code}"
    if f.uncovered:
        text += f"  <- {_share(m, f)} of the code, no memory"
    return text


def _share(m: Map, f: Folder) -> str:
    total = m.root.bytes or 1
    return f"{round(100 * f.bytes / total)}%"


def _hidden(m: Map, depth: int | None) -> int:
    """Count the folders that lie deeper than `depth` below the map's first folder."""
    if depth is None:
        return 0
    base = m.start.count("/") + (1 if m.start else 0)
    return sum(1 for p in m.folders if p and p.count("/") + 1 - base > depth)


def _footer(m: Map, depth: int | None) -> str:
    hidden = _hidden(m, depth)
    if not hidden:
        return ""
    return (f"\n{hidden} more folder{'s' if hidden != 1 else ''} below "
            f"(--depth {(depth or 0) + 1} shows the next level)")


def map_text(m: Map, depth: int | None, *, tty: bool) -> str:
    """Render the map as a tree, `depth` levels below its first folder (all when None)."""
    if tty:
        return _rich(m, depth)
    lines = [_line(m, m.root)]

    def walk(f: Folder, prefix: str, left: int | None) -> None:
        if left is not None and left <= 0:
            return
        kids = [m.folders[c] for c in f.children]
        for i, kid in enumerate(kids):
            last = i == len(kids) - 1
            lines.append(prefix + ("└── " if last else "├── ") + _line(m, kid))
            walk(kid, prefix + ("    " if last else "│   "), None if left is None else left - 1)

    walk(m.root, "", depth)
    return "\n".join(lines) + _footer(m, depth)


def _rich(m: Map, depth: int | None) -> str:
    from rich.markup import escape
    from rich.tree import Tree

    from git_aide.core.controls import escape as escape_controls
    from git_aide.render.output import _console, printed

    def label(f: Folder) -> str:
        memories, marks, code = _parts(f)
        name = escape(escape_controls(_name(m, f)))
        style = "dim" if f.memories == 0 else "cyan"
        text = f"[bold]{name}[/bold]  [{style}]{memories}[/{style}]"
        if marks:
            text += " (" + ", ".join(f"[{s}]{mark}[/{s}]" for mark, s in marks) + ")"
        text += f"  [dim]{code}[/dim]"
        if f.uncovered:
            text += f"  [bold red]<- {_share(m, f)} of the code, no memory[/bold red]"
        return text

    def walk(node: Tree, f: Folder, left: int | None) -> None:
        if left is not None and left <= 0:
            return
        for c in f.children:
            kid = m.folders[c]
            walk(node.add(label(kid)), kid, None if left is None else left - 1)

    tree = Tree(label(m.root), guide_style="dim")
    walk(tree, m.root, depth)
    console = _console()
    console.print(tree)
    footer = _footer(m, depth)
    return printed(console) + footer
