"""A local stand-in for a model API that plays one scripted session and logs every request.

Three dialects, one per client:

- ``anthropic``: Anthropic Messages (``POST /v1/messages``, streamed as server-sent
  events when the request says ``"stream": true``), ``/v1/messages/count_tokens``;
  Claude Code.
- ``responses``: the OpenAI Responses API (``POST /v1/responses``, streamed); Codex CLI.
- ``gemini``: the Gemini API (``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse``,
  ``:generateContent``, ``:countTokens``); Gemini CLI.

The session is the same for every client (``Script``): the stand-in counts the tool
results in the conversation a request carries and answers with the next step, a call of
the tool the request offers for it (``Read``/``read_file``/a shell command...), or the
final text. Requests that offer none of the session's tools (a title, a classifier, a
"who speaks next" check) get a short plausible answer and do not move the session.

It listens on 127.0.0.1 only, on a port the system picks, in a thread of the caller; it
stops when told to, or by itself after ``lifetime`` seconds.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

# -- the scripted session -------------------------------------------------------------------


@dataclass
class Step:
    kind: str  # read | edit | shell | recall | search | final
    path: str = ""  # relative to the repository
    old: str = ""  # edit
    new: str = ""  # edit
    command: str = ""  # shell
    paths: list[str] = field(default_factory=list)  # recall
    query: str = ""  # recall
    keyword: str = ""  # search
    text: str = ""  # final


@dataclass
class Script:
    root: str  # the repository's absolute path, for clients that want absolute paths
    steps: list[Step]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Script:
        return cls(data["root"], [Step(**s) for s in data["steps"]])


class NoTool(Exception):
    """The request offers no tool for the step."""


def _find(names: list[str], *candidates: str) -> str | None:
    for c in candidates:
        if c in names:
            return c
    return None


def _mcp(names: list[str], tool: str) -> str | None:
    """The name under which a client offers git-aide's MCP tool TOOL (``aide_recall``)."""
    hits = [n for n in names if n == tool or (n.endswith(tool) and "aide" in n[: -len(tool)])]
    return hits[0] if hits else None


def _patch(step: Step) -> str:
    return (f"*** Begin Patch\n*** Update File: {step.path}\n@@\n-{step.old}\n+{step.new}\n"
            "*** End Patch\n")


# -- request logging ------------------------------------------------------------------------


class Log:
    """Every request, one JSON document a line: what was asked and what was answered."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.n = 0

    def write(self, entry: dict[str, Any]) -> None:
        with self.lock:
            entry["seq"] = self.n
            self.n += 1
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")


# -- server-sent events ---------------------------------------------------------------------


def sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + json.dumps(data, ensure_ascii=False) + "\n\n").encode()


# -- the dialects ---------------------------------------------------------------------------


class Dialect:
    name = ""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.ids = 0
        self.lock = threading.Lock()

    def next_id(self, prefix: str) -> str:
        with self.lock:
            self.ids += 1
            return f"{prefix}{self.ids:04d}"

    def step(self, results: int) -> Step:
        steps = self.script.steps
        return steps[min(results, len(steps) - 1)]

    def abs(self, rel: str) -> str:
        return self.script.root.rstrip("/") + "/" + rel


class Anthropic(Dialect):
    """Claude Code: Anthropic Messages."""

    name = "anthropic"

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return [t.get("name", "") for t in body.get("tools") or []]

    def results(self, body: dict[str, Any]) -> int:
        n = 0
        for m in body.get("messages") or []:
            if m.get("role") == "user" and isinstance(m.get("content"), list):
                n += sum(1 for b in m["content"] if isinstance(b, dict)
                         and b.get("type") == "tool_result")
        return n

    def call(self, step: Step, names: list[str]) -> tuple[str, dict[str, Any]]:
        if step.kind == "read" and "Read" in names:
            return "Read", {"file_path": self.abs(step.path)}
        if step.kind == "edit" and "Edit" in names:
            return "Edit", {"file_path": self.abs(step.path), "old_string": step.old,
                            "new_string": step.new}
        if step.kind == "shell" and "Bash" in names:
            return "Bash", {"command": step.command, "description": "Show the file's start"}
        if step.kind == "recall" and (n := _mcp(names, "aide_recall")):
            return n, {"paths": step.paths, "query": step.query}
        if step.kind == "search" and (n := _mcp(names, "aide_search")):
            return n, {"keyword": step.keyword}
        raise NoTool(step.kind)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, str]:
        """(status, payload, what) for a request: payload is a dict (JSON) or a list of
        SSE chunks."""
        if path.endswith("/count_tokens"):
            return 200, {"input_tokens": max(1, len(json.dumps(body)) // 4)}, "count_tokens"
        if not path.endswith("/v1/messages"):
            return 404, {"type": "error", "error": {"type": "not_found_error",
                                                    "message": path}}, "404"
        names = self.tool_names(body)
        main = "Read" in names
        results = self.results(body)
        blocks: list[dict[str, Any]]
        what: str
        if main:
            step = self.step(results)
            try:
                if step.kind == "final":
                    raise NoTool("final")
                name, args = self.call(step, names)
                blocks = [{"type": "tool_use", "id": self.next_id("toolu_"), "name": name,
                           "input": args}]
                what = f"step {results}: {name} ({step.kind})"
            except NoTool:
                text = step.text if step.kind == "final" else f"(no tool for {step.kind})"
                blocks = [{"type": "text", "text": text}]
                what = f"step {results}: text ({step.kind})"
        else:
            blocks = [{"type": "text", "text": side_text(body)}]
            what = "side"
        stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
        model = body.get("model", "claude-stand-in")
        msg_id = self.next_id("msg_")
        usage = {"input_tokens": max(1, len(json.dumps(body)) // 4), "output_tokens": 10,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            return 200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                         "content": blocks, "stop_reason": stop, "stop_sequence": None,
                         "usage": usage}, what
        chunks = [sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1}}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                chunks.append(sse("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "text", "text": ""}}))
                chunks.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                chunks.append(sse("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"],
                                      "input": {}}}))
                chunks.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta",
                              "partial_json": json.dumps(b["input"])}}))
            chunks.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        chunks.append(sse("message_delta", {
            "type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 10}}))
        chunks.append(sse("message_stop", {"type": "message_stop"}))
        return 200, chunks, what


def side_text(body: dict[str, Any]) -> str:
    """A short answer for a request outside the session (a title, a summary...)."""
    return "Scripted session"


class Responses(Dialect):
    """Codex CLI: the OpenAI Responses API.

    Codex offers its tools in one of two shapes, by model. Directly: function tools in
    the request's ``tools`` (``exec_command``...), MCP servers as ``namespace`` tools
    (``mcp__git_aide`` holding ``aide_recall``...) or behind ``tool_search``. Or in
    "code mode": one freeform ``exec`` tool (in an ``additional_tools`` input item) that
    runs JavaScript calling the nested tools (``tools.exec_command(...)``), MCP tools
    deferred: left out of the description, listed in the script's ``ALL_TOOLS``. In code
    mode the session makes one more call before ``aide_recall``: a look in ``ALL_TOOLS``
    for git-aide's tools, as the description tells the model to do."""

    name = "responses"

    def all_tools(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Every tool offered, namespaces opened (each with ``_ns``: its namespace)."""
        tops = list(body.get("tools") or [])
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "additional_tools":
                tops += item.get("tools") or []
        out = []
        for t in tops:
            if t.get("type") == "namespace":
                out += [{**sub, "_ns": t.get("name", "")} for sub in t.get("tools") or []]
            else:
                out.append({**t, "_ns": ""})
        return out

    def code_mode(self, tools: list[dict[str, Any]]) -> bool:
        return any(t.get("name") == "exec" and t.get("type") == "custom" for t in tools)

    def results(self, body: dict[str, Any]) -> int:
        return sum(1 for item in body.get("input") or []
                   if isinstance(item, dict) and item.get("type") in (
                       "function_call_output", "custom_tool_call_output",
                       "tool_search_output", "mcp_tool_call_output"))

    def plan(self, body: dict[str, Any], tools: list[dict[str, Any]]) -> list[Step]:
        steps = list(self.script.steps)
        names = [t.get("name") or "" for t in tools]
        if self.code_mode(tools) or (not _mcp(names, "aide_recall") and (
                "tool_search" in names or any(t.get("type") == "tool_search" for t in tools))):
            at = next(i for i, s in enumerate(steps) if s.kind == "recall")
            steps.insert(at, Step(kind="discover"))
        return steps

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, str]:
        if path.rstrip("/").endswith("/models"):
            return 200, {"object": "list", "data": []}, "models"
        if not path.endswith("/responses"):
            return 404, {"error": {"message": path}}, "404"
        tools = self.all_tools(body)
        names = [t.get("name") or "" for t in tools]
        results = self.results(body)
        main = self.code_mode(tools) or any(
            n in names for n in ("shell", "exec_command", "shell_command", "local_shell"))
        items: list[dict[str, Any]] = []
        if main:
            plan = self.plan(body, tools)
            step = plan[min(results, len(plan) - 1)]
            item = self.call(step, tools, body) if step.kind != "final" else None
            if item is None:
                text = step.text if step.kind == "final" else f"(no tool for {step.kind})"
                items.append(self.message(text))
                what = f"step {results}: text ({step.kind})"
            else:
                items.append(item)
                what = f"step {results}: {item.get('name') or item['type']} ({step.kind})"
        else:
            items.append(self.message(side_text(body)))
            what = "side"
        resp_id = self.next_id("resp_")
        model = body.get("model", "stand-in")
        base = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                "model": model, "status": "in_progress", "output": []}
        chunks = [sse("response.created", {"type": "response.created", "response": base})]
        for i, item in enumerate(items):
            chunks.append(sse("response.output_item.added", {
                "type": "response.output_item.added", "output_index": i,
                "item": {**item, "content": []} if item["type"] == "message" else item}))
            if item["type"] == "message":
                chunks.append(sse("response.output_text.delta", {
                    "type": "response.output_text.delta", "item_id": item["id"],
                    "output_index": i, "content_index": 0,
                    "delta": item["content"][0]["text"]}))
            chunks.append(sse("response.output_item.done", {
                "type": "response.output_item.done", "output_index": i, "item": item}))
        n_in = max(1, len(json.dumps(body)) // 4)
        usage = {"input_tokens": n_in, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": n_in + 10}
        chunks.append(sse("response.completed", {"type": "response.completed", "response": {
            **base, "status": "completed", "output": items, "usage": usage}}))
        return 200, chunks, what

    def message(self, text: str) -> dict[str, Any]:
        return {"type": "message", "id": self.next_id("msg_"), "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}

    def fn(self, tool: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        item = {"type": "function_call", "id": self.next_id("fc_"),
                "call_id": self.next_id("call_"), "name": tool["name"],
                "arguments": json.dumps(args), "status": "completed"}
        if tool.get("_ns"):
            item["namespace"] = tool["_ns"]
        return item

    def js(self, source: str) -> dict[str, Any]:
        return {"type": "custom_tool_call", "id": self.next_id("ctc_"),
                "call_id": self.next_id("call_"), "name": "exec", "input": source,
                "status": "completed"}

    def shell(self, command: str, tools: list[dict[str, Any]]) -> dict[str, Any] | None:
        by = {t.get("name"): t for t in tools}
        if self.code_mode(tools):
            return self.js(f"const r = await tools.exec_command({json.dumps({'cmd': command})});"
                           "\ntext(r.output);")
        if "exec_command" in by:
            return self.fn(by["exec_command"], {"cmd": command, "workdir": self.script.root})
        if "shell_command" in by:
            return self.fn(by["shell_command"], {"command": command,
                                                 "workdir": self.script.root})
        if "shell" in by:
            return self.fn(by["shell"], {"command": ["bash", "-lc", command],
                                         "workdir": self.script.root})
        return None

    def discovered(self, body: dict[str, Any], tool: str) -> str | None:
        """The name under which an earlier look in ALL_TOOLS found TOOL."""
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "custom_tool_call_output":
                out = item.get("output")
                text = out if isinstance(out, str) else json.dumps(out)
                m = re.search(r"(mcp__[A-Za-z0-9_]*?__)?" + tool + r"\b", text)
                if m and m.group(1):
                    return m.group(0)
        return None

    def call(self, step: Step, tools: list[dict[str, Any]],
             body: dict[str, Any]) -> dict[str, Any] | None:
        by = {t.get("name") or "": t for t in tools}
        names = list(by)
        if step.kind == "read":
            return self.shell(f"cat {step.path}", tools)
        if step.kind == "shell":
            return self.shell(step.command, tools)
        if step.kind == "edit":
            patch = _patch(step)
            if self.code_mode(tools):
                return self.js(f"const r = await tools.apply_patch({json.dumps(patch)});"
                               "\ntext(r);")
            t = by.get("apply_patch")
            if t and t.get("type") == "custom":
                return {"type": "custom_tool_call", "id": self.next_id("ctc_"),
                        "call_id": self.next_id("call_"), "name": "apply_patch",
                        "input": patch, "status": "completed"}
            if t:
                return self.fn(t, {"input": patch})
            return self.shell(f"apply_patch <<'EOF'\n{patch}EOF", tools)
        if step.kind == "discover":
            if self.code_mode(tools):
                return self.js("text(JSON.stringify(ALL_TOOLS.filter("
                               "(t) => /aide/.test(t.name))));")
            t = next((t for t in tools if t.get("name") == "tool_search"
                      or t.get("type") == "tool_search"), None)
            if t and t.get("type") == "function":
                return self.fn(t, {"query": "git-aide memory aide_recall aide_search"})
            return None
        if step.kind in ("recall", "search"):
            tool = "aide_" + step.kind
            args = ({"paths": step.paths, "query": step.query} if step.kind == "recall"
                    else {"keyword": step.keyword})
            if self.code_mode(tools):
                js_name = self.discovered(body, tool) or f"mcp__git_aide__{tool}"
                return self.js(f"const r = await tools.{js_name}({json.dumps(args)});\n"
                               "text(r.structuredContent ?? r.content);")
            found = _mcp(names, tool)
            return self.fn(by[found], args) if found else None
        return None


class Gemini(Dialect):
    """Gemini CLI: the Gemini API."""

    name = "gemini"

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        names = []
        for t in body.get("tools") or []:
            for d in t.get("functionDeclarations") or []:
                names.append(d.get("name", ""))
        return names

    def results(self, body: dict[str, Any]) -> int:
        n = 0
        for c in body.get("contents") or []:
            n += sum(1 for p in c.get("parts") or [] if "functionResponse" in p)
        return n

    def call(self, step: Step, names: list[str]) -> tuple[str, dict[str, Any]]:
        if step.kind == "read" and "read_file" in names:
            return "read_file", {"file_path": step.path}
        if step.kind == "edit" and "replace" in names:
            return "replace", {"file_path": step.path, "old_string": step.old,
                               "new_string": step.new, "instruction": "Apply the decision",
                               "expected_replacements": 1}
        if step.kind == "shell" and "run_shell_command" in names:
            return "run_shell_command", {"command": step.command,
                                         "description": "Show the file's start"}
        if step.kind == "recall" and (n := _mcp(names, "aide_recall")):
            return n, {"paths": step.paths, "query": step.query}
        if step.kind == "search" and (n := _mcp(names, "aide_search")):
            return n, {"keyword": step.keyword}
        raise NoTool(step.kind)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, str]:
        action = path.rsplit(":", 1)[-1] if ":" in path.rsplit("/", 1)[-1] else ""
        if action == "countTokens":
            return 200, {"totalTokens": max(1, len(json.dumps(body)) // 4)}, "countTokens"
        if action not in ("generateContent", "streamGenerateContent"):
            return 404, {"error": {"code": 404, "message": path, "status": "NOT_FOUND"}}, "404"
        names = self.tool_names(body)
        results = self.results(body)
        gen = body.get("generationConfig") or {}
        parts: list[dict[str, Any]]
        if "read_file" in names:
            step = self.step(results)
            try:
                if step.kind == "final":
                    raise NoTool("final")
                name, args = self.call(step, names)
                parts = [{"functionCall": {"name": name, "args": args}}]
                what = f"step {results}: {name} ({step.kind})"
            except NoTool:
                text = step.text if step.kind == "final" else f"(no tool for {step.kind})"
                parts = [{"text": text}]
                what = f"step {results}: text ({step.kind})"
        elif gen.get("responseMimeType") == "application/json" or gen.get(
                "responseJsonSchema") or gen.get("responseSchema"):
            schema = gen.get("responseJsonSchema") or gen.get("responseSchema") or {}
            parts = [{"text": json.dumps(fill(schema))}]
            what = "side json"
        else:
            parts = [{"text": "Scripted session"}]
            what = "side"
        n_in = max(1, len(json.dumps(body)) // 4)
        doc = {"candidates": [{"content": {"role": "model", "parts": parts},
                               "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": 10,
                                 "totalTokenCount": n_in + 10},
               "modelVersion": path.rsplit("/", 1)[-1].split(":")[0]}
        if action == "generateContent":
            return 200, doc, what
        return 200, [("data: " + json.dumps(doc) + "\r\n\r\n").encode()], what


def fill(schema: dict[str, Any]) -> Any:
    """A value that fits a JSON schema (Gemini CLI's side requests ask for JSON)."""
    t = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        enum = schema["enum"]
        return "user" if "user" in enum else enum[0]
    if t == "object":
        props = schema.get("properties") or {}
        return {k: fill(v) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("number", "integer"):
        return schema.get("minimum", 1)
    if t == "boolean":
        return False
    return "scripted"


DIALECTS = {d.name: d for d in (Anthropic, Responses, Gemini)}


# -- the server -----------------------------------------------------------------------------


class StandIn:
    def __init__(self, dialect: str, script: Script, log_path: str,
                 lifetime: float = 900.0) -> None:
        self.dialect = DIALECTS[dialect](script)
        self.log = Log(log_path)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _body(self) -> tuple[bytes, Any]:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                enc = (self.headers.get("Content-Encoding") or "").lower()
                if enc == "gzip":
                    raw = gzip.decompress(raw)
                elif enc == "deflate":
                    raw = zlib.decompress(raw)
                try:
                    return raw, json.loads(raw) if raw else {}
                except ValueError:
                    return raw, None

            def _handle(self) -> None:
                raw, body = self._body()
                url = urlsplit(self.path)
                entry: dict[str, Any] = {"t": time.time(), "method": self.command,
                                         "path": url.path, "query": url.query,
                                         "headers": {k.lower(): v for k, v in self.headers.items()
                                                     if k.lower() in ("user-agent",
                                                                      "content-type",
                                                                      "anthropic-beta",
                                                                      "content-encoding",
                                                                      "accept")}}
                if body is None:
                    entry["raw"] = raw[:2000].decode("utf-8", "replace")
                    status, payload, what = 400, {"error": "not JSON"}, "bad body"
                else:
                    entry["body"] = body
                    try:
                        status, payload, what = outer.dialect.answer(url.path, body or {})
                    except Exception as e:  # noqa: BLE001 - log it, answer an error
                        status, payload, what = 500, {"error": repr(e)}, f"error {e!r}"
                entry["status"] = status
                entry["answer"] = what
                outer.log.write(entry)
                if isinstance(payload, list):
                    self.send_response(status)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for chunk in payload:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    self.close_connection = True
                else:
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            do_POST = _handle
            do_GET = _handle
            do_PUT = _handle
            do_DELETE = _handle

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.timer = threading.Timer(lifetime, self.stop)
        self.timer.daemon = True

    def __enter__(self) -> StandIn:
        self.thread.start()
        self.timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()

