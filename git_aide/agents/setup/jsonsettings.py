"""git-aide's entries in an agent's JSON settings file, put in or taken out as text: only
its own server and hooks change, every other byte stays as it was, and uninstall gives
the file back byte for byte. Where each value is, and the file's own layout, are
jsonedit.py's; what each agent's file holds (Spec) is config.py's table."""

from __future__ import annotations

import json
from dataclasses import dataclass

from git_aide.agents.setup.entries import EXE, SERVER, hook_command, is_our_server, is_ours
from git_aide.agents.setup.jsonedit import Document, Edit, Node, kind, splice
from git_aide.agents.setup.settingsfile import MAX_JSON, Change, json_text, read_settings
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

    #: A place to add to, after the first pass: (keys from the top, key or None, value).
    _Later = tuple[tuple[str, ...], str | None, JSON]

#: What install writes to an absent JSON file before adding its entries; a file that
#: uninstall leaves holding exactly this was made by install, and goes.
SKELETON = "{\n}\n"


@dataclass(frozen=True)
class Spec:
    """Hold what git-aide owns in one JSON settings file."""

    #: The key of the MCP servers object ("" when the file has no server of ours).
    servers: str = ""
    #: Whether the server entry says `"type": "stdio"`.
    typed: bool = False
    #: The hooks installed: (event in the file, our event, matcher or None).
    hooks: tuple[tuple[str, str, str | None], ...] = ()
    #: Claude's shape (groups of a matcher and handlers) rather than Cursor's flat list.
    nested: bool = True
    #: What each handler adds (the timeout, in the agent's unit).
    extra: tuple[tuple[str, JSON], ...] = ()
    #: Whether a flat handler says `"type": "command"` (Copilot's and VS Code's do).
    typed_hooks: bool = False
    #: The key of a handler's command: `bash` in Copilot's files, which every program
    #: reading them takes (Copilot CLI's `command` is recent).
    command_key: str = "command"
    #: What the server entry adds after its command (the start-up timeout).
    server_extra: tuple[tuple[str, JSON], ...] = ()
    #: What install starts from when the file does not exist.
    skeleton: str = SKELETON


def _server_entry(spec: Spec) -> JSONObject:
    """Return our MCP server's entry as this file wants it."""
    entry: JSONObject = {"type": "stdio"} if spec.typed else {}
    entry.update({"command": EXE, "args": ["mcp"]})
    entry.update(spec.server_extra)
    return entry


def _hook_groups(spec: Spec, agent: str) -> dict[str, list[JSONObject]]:
    """Return our groups (Cursor: handlers) under each event, in the order they are written."""
    out: dict[str, list[JSONObject]] = {}
    for event, ours, matcher in spec.hooks:
        handler: JSONObject = {spec.command_key: hook_command(ours, agent)}
        if spec.nested:
            handler = {"type": "command", **handler, **dict(spec.extra)}
            group: JSONObject = {"matcher": matcher} if matcher else {}
            group["hooks"] = [handler]
        else:
            typed = {"type": "command"} if spec.typed_hooks else {}
            group = {**typed, **handler, **dict(spec.extra),
                     **({"matcher": matcher} if matcher else {})}
        out.setdefault(event, []).append(group)
    return out


def _ours_in(doc: Document, groups: Node, spec: Spec) -> tuple[list[int], list[Edit]]:
    """Return (the groups of an event that hold only our hooks, the edits that take ours out
    of the groups that also hold the user's)."""
    whole: list[int] = []
    inner: list[Edit] = []
    nested = spec.nested
    # a handler an earlier version wrote under `command` is ours too, and is replaced
    keys = dict.fromkeys(("command", spec.command_key))

    def ours(handler: Node) -> bool:
        if handler.kind != "{":
            return False
        found = (doc.member(handler, k) for k in keys)
        return any(i is not None and is_ours(doc.value(handler.items[i])) for i in found)

    for g, group in enumerate(groups.items):
        if not nested:
            if ours(group):
                whole.append(g)
            continue
        i = doc.member(group, "hooks") if group.kind == "{" else None
        handlers = group.items[i] if i is not None else None
        if handlers is None or handlers.kind != "[":
            continue
        mine = [h for h, handler in enumerate(handlers.items) if ours(handler)]
        if mine and len(mine) == len(handlers.items):
            whole.append(g)
        elif mine:
            inner += doc.drop(handlers, mine)
    return whole, inner


def _edit_json(text: str, spec: Spec, agent: str, install: bool, rel: str) -> str:
    """Return `text` with git-aide's entries put in (or taken out): the stale ones are
    replaced or removed in a first pass, then the missing ones added."""
    doc = Document(text)
    root = doc.root
    edits: list[Edit] = []
    later: list[_Later] = []
    emptied: dict[int, list[Edit]] = {}  # the top-level containers left empty
    if spec.servers:
        edits += _servers(doc, spec, install, rel, later, emptied)
    if spec.hooks:
        edits += _hooks(doc, spec, agent, install, rel, later, emptied)
    edits += doc.prune(root, emptied)[1]
    text = splice(text, edits)
    if not later:
        return text
    doc = Document(text)
    boxes: dict[int, tuple[Node, list[tuple[str | None, JSON]]]] = {}
    for path, key, value in later:
        box = doc.root
        for k in path:
            at = doc.member(box, k)
            assert at is not None, "the first pass keeps every place it adds to"
            box = box.items[at]
        new = [(key, value)] if key is not None else [(None, v) for v in value]
        boxes.setdefault(id(box), (box, []))[1].extend(new)
    return splice(text, [doc.append(box, new) for box, new in boxes.values()])


def _servers(doc: Document, spec: Spec, install: bool, rel: str, later: list[_Later],
             emptied: dict[int, list[Edit]]) -> list[Edit]:
    """Return the edits that leave our server under `spec.servers`: kept when it is as it
    should be, else replaced in place or added last; copies of it under other names go."""
    key = spec.servers
    entry = _server_entry(spec)
    i = doc.member(doc.root, key)
    if i is None:
        if install:
            later.append(((), key, {SERVER: entry}))
        return []
    box = doc.root.items[i]
    if box.kind != "{":
        raise AideError(f"{rel}: {key!r} is {kind(doc.text, box)}, not an object; left as "
                        "it was")
    named = [j for j, k in enumerate(box.keys) if k[0] == SERVER]
    keep = named[-1] if install and named else None
    gone = [j for j, value in enumerate(box.items) if j != keep and (
        box.keys[j][0] == SERVER or is_our_server(doc.value(value)))]
    edits: list[Edit] = []
    if keep is None:
        if install:
            later.append(((key,), SERVER, entry))
    elif doc.value(box.items[keep]) != entry:
        value = box.items[keep]
        flat = doc.flat(value if value.kind else box)
        edits.append((value.start, value.end,
                      doc.render(entry, doc.indent(box.keys[keep][1]), flat)))
    if gone:
        if not install and len(gone) == len(box.items):
            emptied[i] = doc.drop(box, gone)
        else:
            edits += doc.drop(box, gone)
    return edits


def _hooks(doc: Document, spec: Spec, agent: str, install: bool, rel: str,
           later: list[_Later], emptied: dict[int, list[Edit]]) -> list[Edit]:
    """Return the edits that leave our hooks in `"hooks"`: an event whose groups of ours
    are as they should be is left alone, one whose are not has them replaced in place (or
    taken out and added last), a missing event is added last, and ours go from events we
    no longer use."""
    want = _hook_groups(spec, agent) if install else {}
    i = doc.member(doc.root, "hooks")
    if i is None:
        if install:
            later.append(((), "hooks", want))
        return []
    box = doc.root.items[i]
    if box.kind != "{":
        raise AideError(f"{rel}: 'hooks' is {kind(doc.text, box)}, not an object; left as "
                        "it was")
    target = {k[0]: j for j, k in enumerate(box.keys) if k[0] in want}
    edits: list[Edit] = []
    events: dict[int, list[Edit]] = {}  # the events left empty
    for j, (event, _, _) in enumerate(box.keys):
        groups = box.items[j]
        if groups.kind != "[":
            if target.get(event) == j:
                raise AideError(f"{rel}: hooks.{event} is {kind(doc.text, groups)}, not an "
                                "array; left as it was")
            continue
        whole, inner = _ours_in(doc, groups, spec)
        if target.get(event) == j:
            mine = want[event]
            if not inner and len(whole) == len(mine):
                for g, group in zip(whole, mine, strict=True):
                    node = groups.items[g]
                    if doc.value(node) != group:
                        edits.append((node.start, node.end, doc.render(
                            group, doc.indent(node.start), doc.flat(node))))
                continue
            later.append((("hooks", event), None, mine))
        elif not whole and not inner:
            continue
        elif len(whole) == len(groups.items):
            events[j] = doc.drop(groups, whole)
            continue
        edits += inner
        if whole:
            edits += doc.drop(groups, whole)
    later.extend((("hooks",), event, mine) for event, mine in want.items()
                 if event not in target)
    gone, pruned = doc.prune(box, events)
    if not install and gone and gone == len(box.items):
        emptied[i] = pruned
    else:
        edits += pruned
    return edits


def json_change(top: str, rel: str, what: str, spec: Spec, agent: str,
                install: bool) -> Change:
    """Return the change that puts our entries in a JSON settings file (or takes them
    out), touching nothing else; a file that uninstall leaves as install would have
    started it goes."""
    raw, dest, mode = read_settings(top, rel, MAX_JSON)
    text = json_text(raw, rel)
    if not text.strip():
        if not install:
            return Change(rel, raw, raw, what, dest, mode)
        text = spec.skeleton
    new = _edit_json(text, spec, agent, install, rel)
    if new == text:
        return Change(rel, raw, raw, what, dest, mode)
    try:
        json.loads(new)
    except (ValueError, RecursionError):
        raise AideError(f"{rel}: git-aide could not edit it in place (a bug: please "
                        "report it); left as it was") from None
    if not install and new == spec.skeleton:
        return Change(rel, raw, None, what, dest, mode)
    return Change(rel, raw, new.encode(), what, dest, mode)
