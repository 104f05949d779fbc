"""The front matter of a rules file (a small YAML subset: scalars, lists, flow lists;
no PyYAML) and its globs joined into one git-aide scope."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    #: One value of the front matter: a string, a boolean, or null.
    Scalar = str | bool | None
    #: What a key holds: a scalar, or a list of them.
    MetaValue = Scalar | list[Scalar]
    #: The front matter keys read, and their values.
    Meta = dict[str, MetaValue]

_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_COMMENT_START = re.compile(r"\s#")


# -- front matter ---------------------------------------------------------------------

def front_matter(lines: list[str]) -> tuple[Meta, int]:
    """Read the front matter keys, and the index of the first body line.

    A small reader for what rules files hold (strings, quoted strings, booleans,
    inline and block lists, block scalars), not YAML: Cursor writes `globs: **/*.ts`
    unquoted, which a YAML parser rejects as an alias. Some files repeat the block;
    the later one fills what the earlier left empty.
    """
    meta: Meta = {}
    i = 0
    while i < len(lines) and lines[i].strip() == "---":
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() in ("---", "...")),
                   None)
        inside = [s for s in lines[i + 1:end or 0] if s.strip()]
        body = [s for s in inside if not s.startswith("#")]
        # Two thematic breaks around a heading look alike: front matter has keys.
        if end is None or (body and not _KEY.match(body[0])) or (
                not body and (i > 0 or inside)):
            break
        for key, value in _mapping(lines[i + 1:end]).items():
            if value not in (None, "", []) or key not in meta:
                meta[key] = value
        i = end + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
    return meta, (i if meta or i else 0)


def _mapping(lines: list[str]) -> Meta:
    """Read the keys of one front matter block."""
    out: Meta = {}
    key: str | None = None
    block: str | None = None
    buf: list[str] = []

    def finish() -> None:
        nonlocal block
        if key is not None and block:
            out[key] = ("\n" if block == "|" else " ").join(buf).strip()
        block = None

    for raw in lines:
        text = raw.strip()
        if raw[:1] in (" ", "\t") and key is not None and text:
            if block:
                buf.append(text)
            elif text.startswith("-"):
                items = out.get(key)
                if not isinstance(items, list):
                    items = out[key] = []
                items.append(_scalar(text[1:].strip()))
            continue  # a nested mapping under a key we do not read
        if not text or text.startswith("#"):
            continue
        finish()
        m = _KEY.match(raw)
        if not m:
            key = None
            continue
        key, value = m.group(1), (m.group(2) or "").strip()
        if value[:1] in ("|", ">") and value.rstrip("+-0123456789") in ("|", ">"):
            block, buf = value[0], []
            out[key] = ""
        else:
            out[key] = _value(value) if value else None
    finish()
    return out


def _value(text: str) -> MetaValue:
    """Read a key's value written on its line: a flow list, quoted strings, a scalar."""
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(p) for p in split_commas(text[1:-1]) if p.strip()]
    parts = split_commas(text)
    if len(parts) > 1 and all(p[:1] in "\"'" for p in parts):  # "a", "b" without brackets
        return [_scalar(p) for p in parts]
    return _scalar(text)


def _scalar(text: str) -> Scalar:
    """Read one scalar: a quoted or plain string, a boolean, or null."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r'\\(["\\/])', r"\1", text[1:-1])
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    text = _uncommented(text)
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    return None if low in ("null", "~", "") else text


def _uncommented(text: str) -> str:
    """Return a plain scalar without its ` # comment` (a '#' after a blank starts one)."""
    # Found by a search for blank-then-'#', not a pattern starting at every blank: on a
    # long run of blanks that would cost the square of its length.
    m = _COMMENT_START.search(text)
    if m is None:
        return text
    start = m.start()
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return text[:start]


def split_commas(text: str) -> list[str]:
    """Split at commas outside braces, brackets and quotes: `a, b/*.{c,d}` -> 2 parts."""
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
        elif ch == "," and not depth:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


# -- globs -> one scope ---------------------------------------------------------------

def combine_globs(value: MetaValue) -> str | None:
    """Join agent globs (a comma-separated string or a list) into one scope; None:
    everywhere.

    `src/**/*.ts, src/**/*.tsx` -> `src/**/*.{ts,tsx}`; `a/**, b/**` -> `{a/**,b/**}`;
    `src/x/**, src/y/**` -> `src/{x/**,y/**}`.
    """
    raw = value if isinstance(value, list) else [value]
    seen: dict[str, None] = {}  # the globs in order, each once
    for entry in raw:
        if not isinstance(entry, str):
            continue
        for written in split_commas(entry):
            read = _scalar(written) if written[:1] in "\"'" else written
            if not isinstance(read, str):
                continue
            part = read.strip().replace("\\", "/")
            dots = 0
            while part.startswith("./", dots):
                dots += 2
            part = part[dots:].lstrip("/")
            if part:
                seen[part] = None
    alts = list(seen)
    if not alts or any(a in ("**", "**/*", "*", "**/**") for a in alts):
        return None
    if len(alts) == 1:
        return alts[0]
    segs = [a.split("/") for a in alts]
    if all(len(s) == len(segs[0]) and s[:-1] == segs[0][:-1] for s in segs):
        lasts = [s[-1].rsplit(".", 1) for s in segs]
        if (all(len(p) == 2 and p[0] == lasts[0][0] and "{" not in p[1] for p in lasts)
                and "{" not in lasts[0][0]):
            exts = ",".join(p[1] for p in lasts)
            return "/".join([*segs[0][:-1], f"{lasts[0][0]}.{{{exts}}}"])
    common: list[str] = []
    for column in zip(*(s[:-1] for s in segs), strict=False):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    rest = ",".join("/".join(s[len(common):]) for s in segs)
    return ("/".join(common) + "/" if common else "") + "{" + rest + "}"
