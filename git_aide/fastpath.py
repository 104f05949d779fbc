"""The plain forms of `recall` and `search`, parsed without click.

Agents run `git aide recall PATH --json` on every file they touch; importing click
costs about a third of such a call. This parser takes only what it fully understands
(the documented options, spelled out, with valid values) and returns None for anything
else, which then goes through click: help, errors and unusual spellings keep click's
behaviour and messages. tests/test_fastpath.py checks that both paths answer alike.
"""

from __future__ import annotations

import os

#: Options that take a value: option -> (keyword, repeatable).
_RECALL_VALUES = {"--query": ("query", False), "-q": ("query", False),
                  "--layer": ("layers", True), "--tag": ("tags", True),
                  "--contributor": ("contributor", False), "--limit": ("limit", False),
                  "--rev": ("rev", False)}
_SEARCH_VALUES = {"--layer": ("layers", True), "--limit": ("limit", False),
                  "--rev": ("rev", False)}
_FLAGS = {"--cached": "cached", "--staged": "cached", "--json": "as_json"}


def parse(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, keyword arguments) for a plain recall or search; None for click."""
    if os.environ.get("GIT_AIDE_NO_FASTPATH") or not argv:
        return None
    command = argv[0]
    if command == "recall":
        values = _RECALL_VALUES
    elif command == "search":
        values = _SEARCH_VALUES
    else:
        return None
    kwargs: dict[str, object] = {}
    positional: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        if name in _FLAGS and not eq:
            kwargs[_FLAGS[name]] = True
            continue
        if name not in values:
            return None  # -h, --help, a typo: click says what it says
        if eq:
            value = inline
        elif i < len(args):
            value = args[i]
            i += 1
        else:
            return None
        key, repeatable = values[name]
        if key == "layers":
            from git_aide.memory import LAYERS

            if value not in LAYERS:
                return None
        if key == "limit":
            if not (value.isascii() and value.isdigit()):
                return None
            kwargs[key] = int(value)
        elif repeatable:
            kwargs.setdefault(key, []).append(value)  # type: ignore[union-attr]
        else:
            kwargs[key] = value
    if command == "search":
        if len(positional) != 1:
            return None
        kwargs["query"] = positional[0]
    else:
        kwargs["paths"] = positional
    return command, kwargs


#: `diff` and `log`: flags -> keyword, options with a value -> (keyword, allowed or None).
_HISTORY_FLAGS = {
    "diff": {"--cached": "cached", "--staged": "cached", "--stat": "as_stat",
             "--json": "as_json", "--exit-code": "exit_code"},
    "log": {"--all": "all_refs", "--reverse": "reverse", "--json": "as_json"},
}
_HISTORY_VALUES: dict[str, dict[str, tuple[str, tuple[str, ...] | None]]] = {
    "diff": {"--format": ("fmt", ("text", "markdown"))},
    "log": {"--uuid": ("ident", None), "--limit": ("limit", None), "-n": ("limit", None)},
}


def parse_history(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, keyword arguments) for a plain `diff` or `log`; None for click."""
    if os.environ.get("GIT_AIDE_NO_FASTPATH") or not argv or argv[0] not in _HISTORY_FLAGS:
        return None
    command = argv[0]
    flags, values = _HISTORY_FLAGS[command], _HISTORY_VALUES[command]
    kwargs: dict[str, object] = {}
    revs: list[str] = []
    paths: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            paths = args[i:]
            break
        if not arg.startswith("-"):
            revs.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        if name in flags and not eq:
            kwargs[flags[name]] = True
            continue
        if name not in values:
            return None  # -h, a typo, a revision that starts with "-": click decides
        if eq:
            value = inline
        elif i < len(args):
            value = args[i]
            i += 1
        else:
            return None
        key, allowed = values[name]
        if allowed is not None and value not in allowed:
            return None
        if key == "limit":
            if not (value.isascii() and value.isdigit()):
                return None
            kwargs[key] = int(value)
        else:
            kwargs[key] = value
    kwargs["revs"] = revs
    kwargs["paths"] = paths
    return command, kwargs
