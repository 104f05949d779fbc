"""`git aide map --html FILE`: the map as one page that needs nothing but a browser.

The page (mapassets.py: its markup, style and script, all inline; no network, no
font, no library) draws the folders as a squarified treemap, each folder's area its
code and its colour its memories (grey: none; green to red: fresh to stale), lists a
folder's memories when it is clicked (or named in the address: `#folder=src/auth`),
and lists the always-on memories and `audit`'s findings by kind and area.

The data goes into the page as one JSON document, in rows rather than objects (10,000
memories make a page of a few megabytes), read by the script: the folders in tree
order, the memories, where each scope reaches (coverage.py's two lists, as folder
numbers: the script lists a folder's memories by the same rule that counted them),
and the findings.
"""

from __future__ import annotations

import json

from git_aide.app.map import COUNTED, what_of
from git_aide.render.mapassets import PAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.coverage import Reach
    from git_aide.app.map import Map
    from git_aide.core.jsonvalue import JSONObject

#: The marker in PAGE that the data replaces.
DATA = "/*DATA*/null"


def page(m: Map) -> str:
    """Render the whole page, as text."""
    text = json.dumps(data(m), ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, only `</script` or `<!--` could end the data early: no `<` at all.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029",
                                                                              "\\u2029")
    return PAGE.replace(DATA, text)


def data(m: Map) -> JSONObject:
    """Return what the page's script reads, as one JSON document."""
    paths = list(m.folders)
    number = {p: i for i, p in enumerate(paths)}
    folders = [[f.path, f.files, f.bytes, f.memories, f.here, f.always, f.stale,
                f.orphaned, f.moved, int(f.uncovered)] for f in m.folders.values()]
    reaches: list[list[list[int]]] = []
    seen: dict[int, int] = {}  # id of a Reach -> its number
    memories = []
    for p in m.memories:
        r = p.reach
        if r is None:
            at = -1  # project-wide: the top folder only
        else:
            got = seen.get(id(r))
            if got is None:
                got = seen[id(r)] = len(reaches)
                reaches.append(_clipped(r, m.start, number))
            at = got
        e = p.entry
        memories.append([e.uuid, e.layer, e.scope or "", what_of(p), int(p.always),
                         ",".join(p.kinds), number.get(p.place, -1), at])
    findings = [[f.uuid, f.kind, f.area, f.message, f.todo] for f in m.findings]
    return {"name": m.name, "source": m.source, "start": m.start,
            "counted": list(COUNTED), "folders": folders, "reaches": reaches,
            "memories": memories, "findings": findings}


def _clipped(r: Reach, start: str, number: dict[str, int]) -> list[list[int]]:
    """Return a reach as folder numbers of the map: a whole folder above the map's first one
    becomes that first one; folders outside the map are left out."""
    whole = []
    for w in r.whole:
        if w in number:
            whole.append(number[w])
        elif not w or start.startswith(w + "/"):
            whole.append(number[start])
    return [whole, [number[leaf] for leaf in r.leaves if leaf in number]]
