"""The manual: `git aide --help`, `git aide help [COMMAND]` and `git aide COMMAND --help`
open the man page, as `git help` and `git commit --help` do; `-h` stays the short usage.

`man -l` shows the page shipped with the package, at the command's entry when man's
pager is less (`less -p`); without man(1), the entry (or the page) is printed as plain
text, extracted from the roff here, through the pager (commands.out).
"""

from __future__ import annotations

import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def page_path() -> str | None:
    """Find the installed man page (share/man/man1, the pyproject's data-files), else the
    source tree's."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # git_aide/
    for candidate in (
        os.path.join(sys.prefix, "share", "man", "man1", "git-aide.1"),
        os.path.join(os.path.dirname(here), "man", "git-aide.1"),
    ):
        if os.path.exists(candidate):
            return candidate
    return None


def anchor(command: str) -> str:
    """Return the regex of the command's entry as man renders it: its name, tagged at the
    indentation of the section's entries."""
    return f"^       {re.escape(command)}( |$)"


def show(command: str | None, fallback: Callable[[], str]) -> None:
    """Open the man page (at `command`'s entry); `fallback()`'s text (the usage) when no
    page is found. Returns only when man(1) is not there."""
    import shutil

    page = page_path()
    lines = _read(page) if page else []
    entry = entry_lines(lines, command) if command else None
    if page and shutil.which("man"):
        env = dict(os.environ)
        pager = env.get("PAGER") or "less"
        # man's pager: MANPAGER, else PAGER, else less. Only less is told where to start.
        if entry and "MANPAGER" not in env and os.path.basename(pager.split()[0]) == "less":
            import shlex

            env["MANPAGER"] = f"{pager} -p {shlex.quote(anchor(command or ''))}"
        # The pager is the command's whole answer: become it, as `git help` does.
        sys.stdout.flush()
        os.execvpe("man", ["man", "-l", page], env)
    from git_aide.cli.commands import out

    if entry:
        out(text(entry), page=True)
    elif lines:
        out(text(lines), page=True)
    else:
        out(fallback(), page=True)


def _read(page: str) -> list[str]:
    with open(page, encoding="utf-8") as f:
        return f.read().splitlines()


def _tag_word(line: str) -> str:
    """Return the first word of an entry's tag line (`.B name` or `\\fBname\\fR ...`)."""
    words = inline(line.removeprefix(".B ")).split()
    return words[0] if words else ""


def entry_lines(lines: list[str], command: str) -> list[str] | None:
    """Return the roff of `command`'s entry in COMMANDS (its tag, its text, its options' tags),
    up to the next command's entry; None when it has none."""
    names = {m.group(1).replace("\\-", "-") for line in lines
             if (m := re.match(r"\\fBgit aide ([a-z][a-z\\-]*)\\fR", line))}
    start = end = None
    in_commands = False
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            if start is not None:
                end = i
                break
            in_commands = line.strip() == ".SH COMMANDS"
            continue
        if not in_commands or line != ".TP" or i + 1 >= len(lines):
            continue
        word = _tag_word(lines[i + 1])
        if start is None and word == command:
            start = i
        elif start is not None and word in names and word != command:
            end = i
            break
    if start is None:
        return None
    return lines[start:end]


_ESCAPES = (("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\fP", ""), ("\\-", "-"),
            ("\\(em", "--"), ("\\(en", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\&", ""),
            ("\\e", "\\"), ("\\ ", " "))


def inline(line: str) -> str:
    """Return a roff line's text without its font changes and escapes."""
    for roff, plain in _ESCAPES:
        line = line.replace(roff, plain)
    return line


def text(lines: list[str]) -> str:
    """Render roff as plain text: a heading flush left, an entry's tag one step in and its text
    two (an option's entry, within a command's, one step more)."""
    out: list[str] = []
    depth = 0  # 0 in a section's text, 1 in an entry's, 2 in an option's
    tag_next = False
    for line in lines:
        if line.startswith(".SH"):
            out += ["", inline(line[3:].strip().strip('"'))]
            depth = 0
            continue
        if line == ".TP":
            tag_next = True
            continue
        if line.split()[0] in (".PP", ".P", ".LP", ".IP"):
            out.append("")
            continue
        if line.startswith(".") and not line.startswith((".B ", ".I ")):
            continue  # .TH, .RS, .RE, .nf, .fi, comments...
        body = inline(line[3:] if line.startswith((".B ", ".I ")) else line)
        if tag_next:
            tag_next = False
            depth = 2 if body.startswith("-") else 1
            out += ["", "    " * depth + body]
            continue
        out.append("    " * (depth + 1) + body if depth else "    " + body)
    return "\n".join(out).strip("\n")
