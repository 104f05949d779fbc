"""A JSON settings file edited as text: where each value is, the file's own layout, and
edits that change only the bytes they must (so that `init --agent --uninstall` gives a
user's file back byte for byte).

`json.loads` checks and reads the values; this module only finds where they are: a
small tokenizer over valid JSON, and a document that renders new entries in the
file's own indent, separators and line ends.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON


def newline(text: str) -> str:
    """Return the line end a file uses (its first one), "\\n" when it has none."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


class Node:
    """Hold where one JSON value is in the text: a tree of positions, not of values."""

    __slots__ = ("start", "end", "kind", "items", "keys")

    def __init__(self, start: int, kind: str, end: int = -1) -> None:
        #: The value's first character, and one past its last.
        self.start = start
        self.end = end
        #: "{", "[" or "" (a string, number, true, false or null).
        self.kind = kind
        #: An object's values or an array's elements, in order.
        self.items: list[Node] = []
        #: An object's keys: (decoded, where its opening quote is, one past its closing one).
        self.keys: list[tuple[str, int, int]] = []

    def head(self, i: int) -> int:
        """Return where item `i` starts: at its key, in an object."""
        return self.keys[i][1] if self.kind == "{" else self.items[i].start


#: The tokens that matter in valid JSON: a number or a literal is what lies between two.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}:,]', re.S)

#: One edit of a text: (start, end, what replaces text[start:end]).
Edit = tuple[int, int, str]


def tree(text: str) -> Node:
    """Read the positions of the values of `text`, a JSON object (json.loads has read it),
    in one pass."""
    stack: list[Node] = []
    root = Node(0, "{", len(text))
    key: tuple[str, int, int] = ("", 0, 0)
    expect = False  # whether a value may come before the next token
    last = 0  # one past the previous token

    def put(node: Node) -> None:
        nonlocal root, expect
        expect = False
        if not stack:
            root = node
            return
        parent = stack[-1]
        if parent.kind == "{":
            parent.keys.append(key)
        parent.items.append(node)

    def scalar(pos: int) -> None:
        chunk = text[last:pos]
        body = chunk.strip(" \t\r\n")
        if expect and body:
            start = last + len(chunk) - len(chunk.lstrip(" \t\r\n"))
            put(Node(start, "", start + len(body)))

    for m in _TOKEN.finditer(text):
        token = m.group()
        pos = m.start()
        c = token[0]
        if c == '"':
            if stack and stack[-1].kind == "{" and not expect:
                key = (json.loads(token) if "\\" in token else token[1:-1], pos, m.end())
            else:
                put(Node(pos, "", m.end()))
        elif c in "{[":
            node = Node(pos, c)
            put(node)
            stack.append(node)
            expect = c == "["
        elif c in "}]":
            scalar(pos)
            stack.pop().end = pos + 1
            expect = False
        elif c == ":":
            expect = True
        else:
            scalar(pos)
            expect = stack[-1].kind == "["
        last = m.end()
    return root


class Document:
    """Hold a JSON settings file being edited: its text, where its values are, its layout."""

    def __init__(self, text: str) -> None:
        #: The whole file.
        self.text = text
        #: The top-level object's positions.
        self.root = tree(text)
        #: The file's line end.
        self.nl = newline(text)
        m = re.search(r"\n([ \t]+)\S", text)
        #: One level of indent.
        self.unit = m[1] if m else "  "
        #: Between a key and its value; after the comma on one line; whether arrays of
        #: plain values are kept on one line in a laid-out file.
        self.key_sep, self.gap, self.flat_arrays = self._layout()

    def _layout(self) -> tuple[str, str, bool]:
        text = self.text
        key_sep: str | None = None
        gap: str | None = None
        flat: bool | None = None
        todo = [self.root]
        while todo and (key_sep is None or gap is None or flat is None):
            node = todo.pop()
            n = len(node.items)
            if key_sep is None and node.kind == "{" and n:
                sep = text[node.keys[0][2]:node.items[0].start]
                key_sep = None if "\n" in sep else sep
            if gap is None and n > 1:
                between = text[node.items[0].end:node.head(1)]
                if "\n" not in between:
                    gap = between.split(",", 1)[1]
            if flat is None and node.kind == "[" and n and not any(i.kind for i in node.items):
                flat = "\n" not in text[node.start:node.end]
            todo.extend(reversed([i for i in node.items if i.kind]))
        key_sep = ": " if key_sep is None else key_sep
        if gap is None:
            gap = " " if key_sep.endswith(" ") else ""
        return key_sep, gap, bool(flat)

    def value(self, node: Node) -> JSON:
        """Return the value at `node`."""
        return json.loads(self.text[node.start:node.end])

    def member(self, box: Node, key: str) -> int | None:
        """Return the index of `key` in the object `box` (its last, as JSON readers take)."""
        for i in range(len(box.keys) - 1, -1, -1):
            if box.keys[i][0] == key:
                return i
        return None

    def indent(self, pos: int) -> str:
        """Return the white space that opens the line holding `pos`."""
        line = self.text[self.text.rfind("\n", 0, pos) + 1:pos]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def flat(self, node: Node) -> bool:
        """Tell whether `node` is written on one line."""
        return "\n" not in self.text[node.start:node.end]

    def laid_out(self, box: Node) -> bool:
        """Tell whether the container `box` has its items one a line: a line break before
        the first (or, empty, inside it)."""
        end = box.head(0) if box.items else box.end - 1
        return "\n" in self.text[box.start:end]

    def render(self, value: JSON, ind: str, flat: bool) -> str:
        """Write `value` in this file's layout; `ind`: the indent of the line it starts on."""
        inner = ind + self.unit
        if isinstance(value, dict) and value:
            parts = [json.dumps(k, ensure_ascii=False) + self.key_sep
                     + self.render(v, inner, flat) for k, v in value.items()]
            return self._wrap("{}", parts, ind, flat)
        if isinstance(value, list) and value:
            flat = flat or (self.flat_arrays and not any(isinstance(v, (dict, list))
                                                         for v in value))
            return self._wrap("[]", [self.render(v, inner, flat) for v in value], ind, flat)
        return json.dumps(value, ensure_ascii=False)

    def _wrap(self, brackets: str, parts: list[str], ind: str, flat: bool) -> str:
        if flat:
            return brackets[0] + f",{self.gap}".join(parts) + brackets[1]
        inner = ind + self.unit
        return (brackets[0] + self.nl + f",{self.nl}".join(inner + p for p in parts)
                + self.nl + ind + brackets[1])

    def item(self, key: str | None, value: JSON, ind: str, flat: bool) -> str:
        """Write an object member (or an array element, without a key) as text."""
        head = "" if key is None else json.dumps(key, ensure_ascii=False) + self.key_sep
        return head + self.render(value, ind, flat)

    def append(self, box: Node, new: list[tuple[str | None, JSON]]) -> Edit:
        """Return the edit that adds `new` after the last item of `box`, laid out as its items
        are: one a line at their indent, or on their line; in an empty container, on
        new lines when it spans lines, else on its line."""
        text = self.text
        if box.items:
            at = box.items[-1].end
            if self.laid_out(box):
                ind = self.indent(box.head(len(box.items) - 1))
                return at, at, "".join(f",{self.nl}{ind}{self.item(k, v, ind, False)}"
                                       for k, v in new)
            gap = self.gap
            if len(box.items) > 1:
                gap = text[box.items[0].end:box.head(1)].split(",", 1)[1]
            return at, at, "".join(f",{gap}{self.item(k, v, '', True)}" for k, v in new)
        at = box.start + 1
        if self.laid_out(box):
            ind = self.indent(box.start) + self.unit
            return at, at, ",".join(f"{self.nl}{ind}{self.item(k, v, ind, False)}"
                                    for k, v in new)
        return at, at, f",{self.gap}".join(self.item(k, v, "", True) for k, v in new)

    def drop(self, box: Node, gone: list[int]) -> list[Edit]:
        """Return the edits that take items `gone` (ascending) out of `box` with their commas:
        the inverse of `append`. With all of them gone, what followed the last one (the
        closing bracket's line) stays."""
        items = box.items
        if len(gone) == len(items):
            return [(box.start + 1, items[-1].end, "")]
        edits = []
        run = [gone[0]]
        for i in [*gone[1:], -1]:
            if i == run[-1] + 1:
                run.append(i)
                continue
            first, last = run[0], run[-1]
            if first:
                edits.append((items[first - 1].end, items[last].end, ""))
            else:
                edits.append((box.head(0), box.head(last + 1), ""))
            run = [i]
        return edits

    def prune(self, parent: Node, emptied: dict[int, list[Edit]]) -> tuple[int, list[Edit]]:
        """Return (how many go, the edits) for the containers of `parent` whose items were all
        ours (index: the edits that empty them): one install made goes whole, the
        user's own empty one that install filled stays, empty. Install fills an empty
        container on its line and makes one laid out, so in a laid-out parent the
        layout tells them apart; in another, install's are the last ones."""
        if not self.laid_out(parent):
            made = set()
            i = len(parent.items) - 1
            while i in emptied:
                made.add(i)
                i -= 1
        else:
            made = {i for i in emptied if self.laid_out(parent.items[i])}
        edits = [e for i, mine in emptied.items() if i not in made for e in mine]
        return len(made), edits + (self.drop(parent, sorted(made)) if made else [])


def splice(text: str, edits: list[Edit]) -> str:
    """Return `text` with `edits` made (they do not overlap)."""
    out = []
    end = len(text)
    for start, stop, new in sorted(edits, reverse=True):
        if stop > end:
            raise AssertionError("overlapping edits")
        out.append(text[stop:end])
        out.append(new)
        end = start
    out.append(text[:end])
    return "".join(reversed(out))


def kind(text: str, node: Node) -> str:
    """Name what a value is, for a message."""
    first = text[node.start]
    if node.kind:
        return "an array" if node.kind == "[" else "an object"
    if first == '"':
        return "a string"
    if first in "tf":
        return "a boolean"
    return "null" if first == "n" else "a number"
