"""Reads one client's logged requests for what git-aide added (README.md, The method).

A request's conversation is cut into *places*: each text block, tool call and tool result
of each message (Claude: ``messages[i].content[j]``; Codex: ``input[i]`` and its content
parts; Gemini: ``contents[i].parts[j]``), keyed by its position, plus the system text.
Conversations only grow, so a key names the same place in every later request (Gemini
may shorten a place's text: it masks old tool outputs).

What git-aide added, by channel:

- **hooks**: the exact text each hook call answered (the git-aide shim on the client's
  PATH keeps what every hook was given and answered), counted once, when a place of a
  request holds it (compared as words: Gemini wraps hook text in its own markup and
  escapes ``<``/``>``); an answer no request holds is *not delivered*.
- **MCP answers**: the tool results of git-aide's tools (``aide_*`` under the client's
  name for them; in Codex's code mode, an ``exec`` script that calls one), counted once,
  as they first appear.
- **tool definitions**: the definitions of git-aide's tools in each request's tool list
  (Codex: its ``mcp__git_aide`` namespace), counted in every request and summed; in
  Codex's code mode, where MCP tools are left out of the list, the answer of the look in
  ``ALL_TOOLS`` that found them, once.
- **server instructions**: git-aide's MCP ``instructions`` text, each time a request
  carries it outside a tool definition (Claude Code puts it in its system prompt),
  summed over requests.

Memory text: a memory's ``what`` and ``why`` (or, for a ``what`` cut short with "…", its
first 40 or more characters), compared as words (letters and digits, case folded, any
run of other characters one space), in a place's text with JSON decoded. The share is
the part of a channel's words that are memory text.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_NOT_WORD = re.compile(r"[^0-9a-z]+")
#: The shortest start of a cut memory text that counts as that memory's text.
MIN_PREFIX = 40


def count_lines(path: Path) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def files_of(script: Any, prompt_file: str = "") -> list[str]:
    """Every file the session names, in order (the prompt's first)."""
    out: list[str] = [prompt_file] if prompt_file else []
    for s in script.steps:
        for p in ([s.path] if s.path else []) + list(s.paths):
            if p not in out:
                out.append(p)
    return out


def words(text: str) -> str:
    return _NOT_WORD.sub(" ", html.unescape(text).casefold()).strip()


def _walk(v: Any, out: list[str]) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            out.append(str(k))
            _walk(x, out)
    elif isinstance(v, list):
        for x in v:
            _walk(x, out)
    elif isinstance(v, str):
        out.append(decoded(v))
    elif v is not None:
        out.append(str(v))


_JSON_START = re.compile(r"(?:^|\n)\s*([\[{])")


def decoded(text: str) -> str:
    """TEXT with the JSON documents in it (one that starts a line) decoded to their keys
    and strings, nested JSON too, for comparing words: escaped line ends and quotes would
    split them."""
    out: list[str] = []
    pos = 0
    for m in _JSON_START.finditer(text):
        if m.start(1) < pos:
            continue
        try:
            doc, end = json.JSONDecoder().raw_decode(text, m.start(1))
        except ValueError:
            continue
        if not isinstance(doc, (dict, list)):
            continue
        out.append(text[pos:m.start(1)])
        _walk(doc, out)
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "\n".join(out)


@dataclass
class Place:
    key: str
    kind: str  # system | text | call | result
    text: str
    tool: str = ""  # for a call or a result: the tool's name (Codex exec: the nested tool)
    _w: str | None = None

    @property
    def w(self) -> str:
        if self._w is None:
            self._w = " " + words(decoded(self.text)) + " "
        return self._w


def _is_aide(name: str) -> bool:
    return bool(re.search(r"aide_(recall|search|memories|remember|update|forget|import|log|"
                          r"diff)$", name))


# -- the three request shapes ---------------------------------------------------------------


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(c) for c in content)
    if isinstance(content, dict):
        for k in ("text", "output"):
            if isinstance(content.get(k), str):
                return content[k]
        if "content" in content:
            return _block_text(content["content"])
        return json.dumps(content, ensure_ascii=False)
    return ""


def places_claude(body: dict[str, Any]) -> list[Place]:
    out: list[Place] = []
    system = body.get("system")
    for i, s in enumerate(system if isinstance(system, list) else [system] if system else []):
        out.append(Place(f"system.{i}", "system", _block_text(s)))
    names: dict[str, str] = {}
    for i, m in enumerate(body.get("messages") or []):
        content = m.get("content")
        if isinstance(content, str):
            out.append(Place(f"m{i}.0", "text", content))
            continue
        for j, b in enumerate(content or []):
            t = b.get("type")
            if t == "tool_use":
                names[b.get("id", "")] = b.get("name", "")
                out.append(Place(f"m{i}.{j}", "call", json.dumps(b.get("input"),
                                                                 ensure_ascii=False),
                                 b.get("name", "")))
            elif t == "tool_result":
                out.append(Place(f"m{i}.{j}", "result", _block_text(b.get("content")),
                                 names.get(b.get("tool_use_id", ""), "")))
            elif t == "text":
                out.append(Place(f"m{i}.{j}", "text", b.get("text", "")))
    return out


def _nested(js: str) -> str:
    """The tool a Codex code-mode script calls (``tools.NAME(``), or what it reads."""
    m = re.search(r"tools\.([A-Za-z0-9_]+)\(", js)
    if m:
        return m.group(1)
    return "ALL_TOOLS" if "ALL_TOOLS" in js else "exec"


def places_codex(body: dict[str, Any]) -> list[Place]:
    out: list[Place] = []
    if body.get("instructions"):
        out.append(Place("instructions", "system", body["instructions"]))
    names: dict[str, str] = {}
    for i, item in enumerate(body.get("input") or []):
        t = item.get("type")
        if t == "message":
            content = item.get("content")
            if isinstance(content, str):
                out.append(Place(f"i{i}.0", "text", content))
            else:
                for j, c in enumerate(content or []):
                    out.append(Place(f"i{i}.{j}", "text", _block_text(c)))
        elif t in ("function_call", "custom_tool_call"):
            name = item.get("name", "")
            if name == "exec" and t == "custom_tool_call":
                name = _nested(item.get("input", ""))
            names[item.get("call_id", "")] = name
            out.append(Place(f"i{i}", "call", item.get("arguments") or item.get("input") or "",
                             name))
        elif t and t.endswith("_output"):
            out.append(Place(f"i{i}", "result", _block_text(item.get("output")),
                             names.get(item.get("call_id", ""), t)))
    return out


def places_gemini(body: dict[str, Any]) -> list[Place]:
    out: list[Place] = []
    si = body.get("systemInstruction") or {}
    for j, p in enumerate(si.get("parts") or [] if isinstance(si, dict) else []):
        out.append(Place(f"system.{j}", "system", p.get("text", "")))
    for i, c in enumerate(body.get("contents") or []):
        for j, p in enumerate(c.get("parts") or []):
            if "text" in p:
                out.append(Place(f"c{i}.{j}", "text", p["text"]))
            elif "functionCall" in p:
                fc = p["functionCall"]
                out.append(Place(f"c{i}.{j}", "call", json.dumps(fc.get("args"),
                                                                 ensure_ascii=False),
                                 fc.get("name", "")))
            elif "functionResponse" in p:
                fr = p["functionResponse"]
                resp = fr.get("response")
                if isinstance(resp, dict) and set(resp) == {"output"} and isinstance(
                        resp["output"], str):
                    text = resp["output"]
                else:
                    text = json.dumps(resp, ensure_ascii=False)
                out.append(Place(f"c{i}.{j}", "result", text, fr.get("name", "")))
    return out


def tooldefs(client: str, body: dict[str, Any]) -> list[tuple[str, int]]:
    """git-aide's tool definitions in a request: (name, characters as compact JSON)."""
    def size(t: Any) -> int:
        return len(json.dumps(t, ensure_ascii=False, separators=(",", ":")))
    out = []
    if client == "claude":
        out = [(t["name"], size(t)) for t in body.get("tools") or [] if _is_aide(t.get("name", ""))]
    elif client == "gemini":
        for t in body.get("tools") or []:
            out += [(d["name"], size(d)) for d in t.get("functionDeclarations") or []
                    if _is_aide(d.get("name", ""))]
    else:
        tops = list(body.get("tools") or [])
        for item in body.get("input") or []:
            if item.get("type") == "additional_tools":
                tops += item.get("tools") or []
        for t in tops:
            if t.get("type") == "namespace" and "aide" in t.get("name", ""):
                out.append((t["name"], size(t)))
            elif t.get("type") == "namespace":
                out += [(s["name"], size(s)) for s in t.get("tools") or []
                        if _is_aide(s.get("name", ""))]
            elif _is_aide(t.get("name", "")):
                out.append((t["name"], size(t)))
    return out


PLACES = {"claude": places_claude, "codex": places_codex, "gemini": places_gemini}


# -- hooks ----------------------------------------------------------------------------------


@dataclass
class Hook:
    n: int
    t: float
    event: str  # as the client named it (hook_event_name)
    command: str  # git-aide's name (session-start...)
    text: str  # the context it answered ("" for none)
    w: str = ""
    first: int | None = None  # the first main request that holds it
    key: str = ""
    at_end: bool = False


def _context(reply: str) -> str:
    try:
        doc = json.loads(reply)
    except ValueError:
        return reply.strip()
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("additionalContext", "additional_context", "reason",
                         "followup_message", "systemMessage", "agent_message") and isinstance(
                             x, str):
                    found.append(x)
                else:
                    walk(x)

    walk(doc)
    return "\n".join(found)


def load_hooks(folder: Path) -> list[Hook]:
    out = []
    for d in sorted(folder.glob("hook.*")):
        try:
            args = (d / "args").read_text().split("\n")
            t = float((d / "t0").read_text().strip() or 0)
            payload = json.loads((d / "in").read_text() or "{}")
            reply = (d / "out").read_text() if (d / "out").exists() else ""
        except (OSError, ValueError):
            continue
        text = _context(reply) if reply.strip() else ""
        out.append(Hook(0, t, str(payload.get("hook_event_name") or args[1]),
                        args[1] if len(args) > 1 else "?", text))
    out.sort(key=lambda h: h.t)
    for i, h in enumerate(out):
        h.n = i
        h.w = " " + words(h.text) + " " if h.text else ""
    return out


# -- memories -------------------------------------------------------------------------------


@dataclass
class Mem:
    uuid: str
    what: str
    why: str
    scope: str | None
    priority: str
    source: str
    ww: str = ""
    wy: str = ""

    @property
    def short(self) -> str:
        return self.uuid[:8]


def mems_of(records: dict[str, dict[str, Any]]) -> list[Mem]:
    out = []
    for r in records.values():
        m = Mem(r["uuid"], r["what"], r.get("why") or "", r.get("scope"),
                r.get("priority", "normal"), r.get("source", "conversation"))
        m.ww, m.wy = words(m.what), words(m.why)
        out.append(m)
    return out


def spans(m: Mem, w: str) -> list[tuple[int, int]]:
    """Where M's text is in W (words, space-padded): its what (whole, or a start of
    MIN_PREFIX+ characters when cut short), its why."""
    out: list[tuple[int, int]] = []
    for needle in (m.ww, m.wy):
        if len(needle) < 8:
            continue
        start = 0
        while (i := w.find(" " + needle + " ", start)) >= 0:
            out.append((i + 1, i + 1 + len(needle)))
            start = i + 1
        if needle is m.ww and not out and len(m.ww) > MIN_PREFIX:
            # a what cut short: the longest start of it that is there, if 40+ characters
            lo, hi, best = MIN_PREFIX, len(m.ww) - 1, 0
            while lo <= hi:
                mid = (lo + hi) // 2
                if (" " + m.ww[:mid]) in w:
                    best, lo = mid, mid + 1
                else:
                    hi = mid - 1
            start = 0
            while best and (i := w.find(" " + m.ww[:best], start)) >= 0:
                out.append((i + 1, i + 1 + best))
                start = i + 1
    return out


def has(m: Mem, w: str) -> bool:
    """Whether M's what (whole, or its first MIN_PREFIX characters) is in W."""
    if len(m.ww) <= MIN_PREFIX:
        return f" {m.ww} " in w
    return f" {m.ww[:MIN_PREFIX]}" in w


def memory_share(texts: list[str], mems: list[Mem]) -> tuple[int, int]:
    """(characters of words, characters of them that are memory text) over TEXTS."""
    total = covered = 0
    for t in texts:
        w = " " + words(decoded(t)) + " "
        mask = bytearray(len(w))
        for m in mems:
            for a, b in spans(m, w):
                mask[a:b] = b"\x01" * (b - a)
        total += len(w.strip())
        covered += sum(mask)
    return total, covered


# -- one client -----------------------------------------------------------------------------


@dataclass
class Request:
    seq: int
    answer: str
    results: int
    kind: str  # the step it answered with
    places: list[Place]
    defs: list[tuple[str, int]]
    by_key: dict[str, Place] = field(default_factory=dict)
    all_w: str = ""
    size: int = 0  # the whole request body, compact JSON


def load_requests(client: str, log: Path) -> tuple[list[Request], int, Counter[str]]:
    main: list[Request] = []
    side = 0
    paths: Counter[str] = Counter()
    with open(log, encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            paths[f"{e['method']} {e['path']}"] += 1
            ans = e.get("answer", "")
            m = re.match(r"step (\d+): .*\((\w+)\)$", ans)
            if not m or not isinstance(e.get("body"), dict):
                side += 1
                continue
            body = e["body"]
            ps = PLACES[client](body)
            r = Request(e["seq"], ans, int(m.group(1)), m.group(2), ps, tooldefs(client, body))
            r.by_key = {p.key: p for p in ps}
            r.all_w = " ".join(p.w for p in ps)
            r.size = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
            main.append(r)
    return main, side, paths


def analyze(run: dict[str, Any], script: Any) -> dict[str, Any]:
    client = run["client"]
    reqs, side, paths = load_requests(client, Path(run["log"]))
    hooks = load_hooks(Path(run["hooks"]))
    mems = mems_of(run["memories"])
    by_uuid = {m.uuid: m for m in mems}
    instr_w = words(run.get("instructions") or "")
    res: dict[str, Any] = {"client": client, "version": run.get("version"),
                           "exit": run["exit"], "seconds": run["seconds"],
                           "requests": len(reqs), "side_requests": side,
                           "endpoints": dict(paths)}
    if not reqs:
        res["ok"] = False
        res["error"] = "no request of the session reached the stand-in"
        return res
    last = reqs[-1]
    res["ok"] = run["exit"] == 0 and last.kind == "final"

    # -- hooks: where each answer arrived
    # (a place can hold several hook texts, and the same text twice when a hook sent it
    # twice: each answer takes the first copy no earlier answer took)
    claimed: Counter[tuple[str, str]] = Counter()
    for h in hooks:
        if not h.w.strip():
            continue
        for r in reqs:
            p = next((p for p in r.places if p.w.count(h.w) > claimed[(p.key, h.w)]), None)
            if p:
                h.first, h.key = r.seq, p.key
                claimed[(p.key, h.w)] += 1
                break
        end = last.by_key.get(h.key)
        h.at_end = h.first is not None and end is not None and h.w in end.w
    events = Counter(h.event for h in hooks)
    with_text = Counter(h.event for h in hooks if h.text)
    delivered = [h for h in hooks if h.text and h.first is not None]
    lost = [h for h in hooks if h.text and h.first is None]

    # -- MCP answers and the tool list look-up: each result place, as first seen
    first_seen: dict[str, tuple[Place, int]] = {}
    for r in reqs:
        for p in r.places:
            if p.kind == "result" and p.key not in first_seen:
                first_seen[p.key] = (p, r.seq)
    mcp = [(p, seq) for p, seq in first_seen.values() if _is_aide(p.tool)]
    lookups = [(p, seq) for p, seq in first_seen.values() if p.tool == "ALL_TOOLS"]
    mcp_end = [p for p, _ in mcp if p.key in last.by_key and p.w == last.by_key[p.key].w]

    # -- tool definitions and server instructions, per request
    defs_chars = sum(n for r in reqs for _, n in r.defs)
    defs_chars += sum(len(p.text) for p, _ in lookups)
    instr_chars = instr_last = 0
    if instr_w:
        for r in reqs:
            for p in r.places:
                if p.kind in ("system", "text"):
                    n = p.w.count(instr_w) * len(run["instructions"])
                    instr_chars += n
                    instr_last += n if r is last else 0

    # -- memory text share
    hook_total, hook_mem = memory_share([h.text for h in delivered], mems)
    mcp_total, mcp_mem = memory_share([p.text for p, _ in mcp], mems)

    # -- memories in git-aide's places: sent twice? always-on once?
    where: dict[str, list[str]] = {}
    for h in delivered:
        for m in mems:
            if has(m, h.w):
                where.setdefault(m.uuid, []).append(f"{h.command}#{h.n}")
    for p, _ in mcp:
        for m in mems:
            if has(m, p.w):
                where.setdefault(m.uuid, []).append(f"{p.tool.split('__')[-1].split('_', 1)[-1]}"
                                                    f"@{p.key}")
    twice = {u: w for u, w in where.items() if len(w) > 1}
    # -- memories the client loads itself (its rules files), that git-aide sent anyway:
    # the client's own text is every system or text place with git-aide's hook texts
    # taken out (tool results left aside: a file read, an MCP answer, Gemini's hook text)
    native: set[str] = set()
    hook_ws = [h.w for h in delivered if h.w.strip()]
    looked: set[tuple[str, int]] = set()
    for r in reqs:
        for p in r.places:
            if p.kind not in ("system", "text") or (p.key, len(p.text)) in looked:
                continue
            looked.add((p.key, len(p.text)))
            w = p.w
            for hw in hook_ws:
                w = w.replace(hw, " ")
            native.update(m.uuid for m in mems if m.uuid not in native and has(m, w))
    restated = {u: w for u, w in where.items() if u in native}
    always = [m for m in mems if m.priority == "always"]
    always_rows = {m.short: len(where.get(m.uuid, [])) for m in always}

    # -- arrivals: the memories scoped to each file the session touched
    steps = [(-1, "prompt", run.get("prompt_file", ""))]
    kinds = {r.results: r.kind for r in reqs}
    i = 0
    for s in script.steps:
        while kinds.get(i) not in (s.kind, None):  # a step the client needed (discover)
            i += 1
        if s.kind in ("read", "edit", "shell"):
            steps.append((i, s.kind, s.path))
        i += 1
    arrivals = []
    for idx, kind, path in steps:
        if not path:
            continue
        nxt = next((r for r in reqs if r.results >= idx + 1), None)
        prev = [r for r in reqs if r.results <= idx] if idx >= 0 else []
        scoped = [by_uuid[u] for u in run["expected"].get(path, []) if u in by_uuid]
        row: dict[str, Any] = {"step": idx, "kind": kind, "path": path}
        for label, group in (("team", [m for m in scoped if m.source != "import"]),
                             ("imported", [m for m in scoped if m.source == "import"])):
            there = [m for m in group if nxt and has(m, nxt.all_w)]
            before = [m for m in there if prev and has(m, prev[-1].all_w)]
            row[label] = {"scoped": len(group), "next_turn": len(there),
                          "new": len(there) - len(before),
                          "at_end": sum(1 for m in group if has(m, last.all_w)),
                          "missing": [m.short for m in group if m not in there]}
        arrivals.append(row)

    in_last = (sum(len(h.text) for h in delivered if h.at_end)
               + sum(len(last.by_key[p.key].text) for p, _ in mcp + lookups if p.key in last.by_key)
               + sum(n for _, n in last.defs) + instr_last)
    res.update({
        "last_request": {"chars": last.size, "git_aide_chars": in_last},
        "hook_events": dict(events), "hook_events_with_context": dict(with_text),
        "channels": {
            "hooks": {"n": len(delivered), "chars": sum(len(h.text) for h in delivered),
                      "not_delivered": len(lost), "at_end": sum(1 for h in delivered if h.at_end),
                      "words": hook_total, "memory_words": hook_mem},
            "mcp": {"n": len(mcp), "chars": sum(len(p.text) for p, _ in mcp),
                    "unchanged_at_end": len(mcp_end), "words": mcp_total,
                    "memory_words": mcp_mem},
            "tool_definitions": {"chars": defs_chars,
                                 "per_request": [sum(n for _, n in r.defs) for r in reqs],
                                 "lookups": len(lookups)},
            "server_instructions": {"chars": instr_chars},
        },
        "memories_sent": len(where), "sent_twice": {by_uuid[u].short: w for u, w in twice.items()},
        "loaded_natively_too": {by_uuid[u].short: w for u, w in restated.items()},
        "tools_list_chars": run.get("tools_list_chars"),
        "always_on": always_rows, "arrivals": arrivals,
        "hooks": [{"n": h.n, "event": h.event, "command": h.command, "chars": len(h.text),
                   "request": h.first, "place": h.key, "at_end": h.at_end}
                  for h in hooks],
    })
    return res


# -- the report -----------------------------------------------------------------------------


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def tables(results: list[dict[str, Any]]) -> str:
    out = ["## Characters git-aide added, by channel", "",
           "| client | requests | hook texts (chars) | MCP answers (chars) | tool definitions, "
           "all requests | server instructions, all requests | total | memory text in hooks "
           "/ MCP answers | git-aide in the last request |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in results:
        if "channels" not in r:
            out.append(f"| {r['client']} | {r.get('requests', 0)} | {r.get('error', '?')} "
                       "| | | | | | |")
            continue
        c = r["channels"]
        total = (c["hooks"]["chars"] + c["mcp"]["chars"] + c["tool_definitions"]["chars"]
                 + c["server_instructions"]["chars"])
        lk = c["tool_definitions"]["lookups"]
        out.append(
            f"| {r['client']} {r.get('version', '')} | {r['requests']} (+{r['side_requests']} "
            f"other) | {c['hooks']['n']} ({c['hooks']['chars']:,}) | {c['mcp']['n']} "
            f"({c['mcp']['chars']:,}) | {c['tool_definitions']['chars']:,}"
            f"{f' (incl. {lk} ALL_TOOLS look-up)' if lk else ''} | "
            f"{c['server_instructions']['chars']:,} | {total:,} | "
            f"{_pct(c['hooks']['memory_words'], c['hooks']['words'])} / "
            f"{_pct(c['mcp']['memory_words'], c['mcp']['words'])} | "
            f"{r['last_request']['git_aide_chars']:,} of {r['last_request']['chars']:,} "
            f"({_pct(r['last_request']['git_aide_chars'], r['last_request']['chars'])}) |")
    out += ["", "## Memories", "",
            "| client | memories sent | sent twice (where) | also loaded by the client "
            "itself (where git-aide sent it) | always-on memories: places each reached | "
            "hook texts not delivered | hook texts gone by the last request | MCP answers "
            "changed by the last request | `tools/list` (chars) |",
            "|---|--:|---|---|---|--:|--:|--:|--:|"]
    for r in results:
        if "channels" not in r:
            continue
        c = r["channels"]
        twice = (f"{len(r['sent_twice'])}: " + "; ".join(
            f"{k}: {', '.join(v)}" for k, v in r["sent_twice"].items())
            if r["sent_twice"] else "none")
        restated = r.get("loaded_natively_too") or {}
        native = (f"{len(restated)}: " + "; ".join(
            f"{k}: {', '.join(v)}" for k, v in restated.items()) if restated else "none")
        always = ", ".join(f"{k}: {v}" for k, v in r["always_on"].items())
        listed = r.get("tools_list_chars")
        out.append(f"| {r['client']} | {r['memories_sent']} | {twice} | {native} | {always} | "
                   f"{c['hooks']['not_delivered']} | {c['hooks']['n'] - c['hooks']['at_end']} | "
                   f"{c['mcp']['n'] - c['mcp']['unchanged_at_end']} | "
                   f"{f'{listed:,}' if listed else '-'} |")
    out += ["", "## Memories scoped to each file the session touched", "",
            "Team memories / imported rules scoped to the file (`git aide recall FILE`): "
            "how many were in the request after the tool result (new: not in the request "
            "before), and in the last request.", "",
            "| client | step | file | team: scoped, next turn (new), at end | imported: "
            "scoped, next turn (new), at end |",
            "|---|---|---|---|---|"]
    for r in results:
        for a in r.get("arrivals", []):
            t, i = a["team"], a["imported"]
            out.append(f"| {r['client']} | {a['kind']} | `{a['path']}` | {t['scoped']}: "
                       f"{t['next_turn']} ({t['new']}), {t['at_end']} | {i['scoped']}: "
                       f"{i['next_turn']} ({i['new']}), {i['at_end']} |")
    out += ["", "## Hook events", "", "| client | events (with context) |", "|---|---|"]
    for r in results:
        if "hook_events" in r:
            ev = ", ".join(f"{k} {v} ({r['hook_events_with_context'].get(k, 0)})"
                           for k, v in sorted(r["hook_events"].items()))
            out.append(f"| {r['client']} | {ev} |")
    return "\n".join(out)
