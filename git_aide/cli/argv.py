"""The plain forms of the hot commands (option_table.py), parsed without click.

Agents run `git aide recall PATH --json` on every file they touch; importing click
costs about a third of such a call. This parser reads the options option_table.py declares, the
very table click's commands are built from, and takes only what it fully understands
(the declared spellings, with valid values); anything else (help, a typo, an option
without its value, a short option with its value attached) returns None and goes
through click, whose messages and behaviour it then gets.
"""

from __future__ import annotations

import os

from git_aide.cli.option_table import COMMANDS


def parse(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """Parse a plain form of a hot command into (command, keyword arguments); None for click.

    The keywords are those the command's function takes (commands.py), only those
    given; each value checked as click would (a choice, a whole number)."""
    if os.environ.get("GIT_AIDE_NO_FASTPATH") or not argv or argv[0] not in COMMANDS:
        return None
    hot = COMMANDS[argv[0]]
    spelled = {name: opt for opt in hot.options for name in opt.names}
    kwargs: dict[str, object] = {}
    # Kept apart from kwargs (values of mixed types) so that each list's type is known.
    repeated: dict[str, list[object]] = {}
    words: list[str] = []
    after: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            after = args[i:]
            break
        if not arg.startswith("-") or (hot.lone_dash and arg == "-"):
            words.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        opt = spelled.get(name)
        if opt is None:
            return None
        if opt.kind == "flag":
            if eq:
                return None
            kwargs[opt.dest] = True
            continue
        if eq:
            text = inline
        elif i < len(args):
            text = args[i]
            i += 1
        else:
            return None
        value = opt.value(text)
        if value is None:
            return None
        if opt.multiple:
            repeated.setdefault(opt.dest, []).append(value)
        else:
            kwargs[opt.dest] = value
    kwargs.update(repeated)
    if hot.paths_after_dash:
        kwargs["paths"] = after
    else:
        words += after
    if hot.one_word:
        if len(words) != 1:
            return None
        kwargs[hot.words] = words[0]
    else:
        kwargs[hot.words] = words
    return hot.name, kwargs
