"""The MCP tools as agents are given them: their JSON Schema (aide-memory's names and
parameters), the arguments of a call checked against it, and an error said in the
tools' terms rather than the command line's.

Plain data and the standard library only: the server answers `tools/list` from here
before the SDK is imported (agents/mcp/handshake.py).
"""

from __future__ import annotations

import json

from git_aide.core.memory import LAYERS, PRIORITIES, SOURCES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject


def _param(type_: str, description: str | None = None, **more: JSON) -> JSONObject:
    """Return the schema of a parameter of type `type_`."""
    schema: JSONObject = {"type": type_}
    if description:
        schema["description"] = description
    schema.update(more)
    return schema


def _texts(description: str | None = None, item: JSONObject | None = None
           ) -> JSONObject:
    """Return the schema of a list parameter (of strings, unless `item` says)."""
    return _param("array", description, items=item or {"type": "string"})


# Every request an agent makes carries the tools' definitions again (Claude Code and
# Gemini CLI send the whole list each time): they are kept short, a description saying
# when to call the tool and a parameter's only when its name does not. Plain schemas
# only (types, enums, bounds): no anyOf, $defs or type lists, which some agents' model
# APIs refuse. A parameter left out or null takes its default (check_arguments).
_LAYER = _param("string", enum=list(LAYERS))
_LIMIT = _param("integer", minimum=0, maximum=1000)
#: Where a cut answer continues (its `more` names the value to give).
_OFFSET = _param("integer", minimum=0, maximum=100000, default=0)
_REV = _param("string", "A commit-ish to read at")
_ID = _param("string")
_PRIORITY = _param("string", "always: shown at every session start", enum=list(PRIORITIES))
#: The read tools' answer: each memory's id, layer, scope, what and why (compact), or
#: every field of its record, as the command's --json gives it (full).
DETAILS = ("compact", "full")
_DETAIL = _param("string", enum=list(DETAILS))
# The tool annotations: what a client may assume (no tool reaches beyond the repository).
_READ = {"readOnlyHint": True}
_WRITE = {"destructiveHint": False}
_CHANGE = {"destructiveHint": True}


def _tool(name: str, description: str, props: dict[str, JSONObject],
          required: tuple[str, ...] = (), hints: dict[str, bool] | None = None
          ) -> JSONObject:
    """Return a tool's definition: its name, description, input schema and hints."""
    schema: JSONObject = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return {"name": name, "description": description, "inputSchema": schema,
            "annotations": hints or _READ}


#: Every tool with the bounds its arguments are checked against.
_CHECKED: list[JSONObject] = [
    _tool("aide_recall",
          "Call before reading or changing files: the decisions, constraints and rules "
          "that apply to these paths, most specific first. ids: those memories in full.", {
              "paths": _texts(),
              "query": _param("string", "Words to rank by"),
              "layers": _texts(item=_LAYER),
              "tags": _texts(),
              "contributor": _param("string"),
              "limit": _LIMIT,
              "ids": _texts(),
              "rev": _REV,
              "detail": _DETAIL,
          }),
    _tool("aide_search", "Find memories by words, best first.", {
              "keyword": _param("string"),
              "layer": _LAYER,
              "tags": _texts(),
              "contributor": _param("string"),
              "limit": _LIMIT,
              "offset": _OFFSET,
              "mode": _param("string", "auto, keyword or semantic"),
              "rev": _REV,
              "detail": _DETAIL,
          }, required=("keyword",)),
    _tool("aide_memories", "List memories by layer or scope.", {
              "layer": _LAYER,
              "scope": _param("string", "Path or glob: the memories at or under it"),
              "tags": _texts(),
              "contributor": _param("string"),
              "priority": _param("string", enum=list(PRIORITIES)),
              "by": _param("string", enum=["agent", "person"]),
              "generated_by": _param("string"),
              "limit": _param("integer", minimum=0, maximum=100000, default=50),
              "offset": _OFFSET,
              "rev": _REV,
              "detail": _DETAIL,
          }),
    _tool("aide_remember",
          "Call when you learn what the code does not show (a decision, constraint, gotcha "
          "or preference): one fact per memory, kept in git for later sessions.", {
              "what": _param("string"),
              "layer": _LAYER,
              "scope": _param("string", "Glob where it applies (src/auth/**); none: "
                                        "project-wide"),
              "why": _param("string"),
              "context_label": _param("string"),
              "contributor": _param("string"),
              "tags": _texts(),
              "source": _param("string", enum=list(SOURCES), default="conversation"),
              "shared": _param("boolean", "false: a personal preference, not committed",
                               default=True),
              "user": _param("boolean", "true: the user's own, in every repository", default=False),
              "priority": _PRIORITY,
              "force": _param("boolean", default=False),
              "merge": _param("boolean", default=True),
          }, required=("what", "layer"), hints=_WRITE),
    _tool("aide_update", "Correct a memory that is out of date.", {
              "id": _ID,
              "what": _param("string"),
              "why": _param("string"),
              "scope": _param("string", "'' or 'project': project-wide"),
              "add_tags": _texts(),
              "remove_tags": _texts(),
              "layer": _LAYER,
              "context_label": _param("string"),
              "priority": _PRIORITY,
              "force": _param("boolean", default=False),
          }, required=("id",), hints=_CHANGE),
    _tool("aide_forget", "Delete a memory that is wrong.", {"id": _ID}, required=("id",),
          hints=_CHANGE),
    _tool("aide_import", "Turn rules text (CLAUDE.md, AGENTS.md, notes) into memories, "
                         "one per rule.", {
              "content": _param("string", "Markdown: each bullet or paragraph becomes "
                                          "one memory"),
              "layer": _LAYER,
              "scope": _param("string", "Glob the memories apply to; none: project-wide"),
              "context_label": _param("string"),
          }, required=("content", "layer"), hints=_WRITE),
    _tool("aide_diff", "Memories added, forgotten and changed between two sources.", {
              "args": _texts("As git aide diff: none (HEAD vs the working tree), REV, "
                             "REV REV2, A..B or A...B (what a branch adds)"),
              "cached": _param("boolean", "Compare with the index", default=False),
              "paths": _texts("Only memories these paths name"),
          }),
    _tool("aide_log", "Commits that changed memories, newest first.", {
              "revs": _texts("As git log takes them (default HEAD)"),
              "uuid": _param("string", "Follow one memory"),
              "paths": _texts("Only memories these paths name"),
              "reverse": _param("boolean", default=False),
              "limit": _param("integer", minimum=1),
              "skip": _param("integer", minimum=0, default=0),
              "all": _param("boolean", "Every branch and tag", default=False),
          }),
]



def _listed(node: JSON) -> JSON:
    """Give a tool as agents are given it: without the bounds of its numbers or its
    defaults, which tell a model nothing it needs and cost characters in every request
    (a call outside the bounds is still refused in the parameter's name, and a
    parameter left out still takes its default)."""
    if isinstance(node, dict):
        return {k: _listed(v) for k, v in node.items()
                if k not in ("minimum", "maximum", "default")}
    if isinstance(node, list):
        return [_listed(v) for v in node]
    return node


#: Parameters every tool still takes but does not list: an agent rarely needs them (a
#: revision, a contributor, a tag filter or tag change, how a memory came about, a
#: label, the full record of a search or recall (a recall by ids is whole), search by
#: meaning alone; `force`, `merge` and a next page's `offset`, which the answers name
#: when they matter),
#: and each listed one costs characters in every request. What each tool takes against
#: each command's options: docs/commands.md.
UNLISTED = {"aide_recall": ("rev", "contributor", "tags", "detail"),
            "aide_search": ("rev", "detail", "contributor", "tags", "offset", "mode"),
            "aide_memories": ("rev", "detail", "contributor", "tags", "priority", "by",
                              "generated_by", "offset"),
            "aide_remember": ("contributor", "source", "context_label", "force", "merge"),
            "aide_update": ("context_label", "layer", "force", "add_tags",
                            "remove_tags")}


def _offered(tool: JSONObject) -> JSONObject:
    """Return a tool as `tools/list` gives it: listed (_listed), its UNLISTED parameters
    left out."""
    out = _listed(tool)
    hidden = UNLISTED.get(out["name"], ())
    schema = out["inputSchema"]
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in hidden}
    return out


#: Every tool, as `tools/list` gives it (the SDK serves the same list once it runs).
TOOLS: list[JSONObject] = [_offered(t) for t in _CHECKED]

#: The tools an agent is offered unless git config aide.mcp.tools says otherwise: the
#: others (importing rules, the history) are the command line's more than an agent's,
#: and each listed tool costs characters in every request.
DEFAULT_TOOLS = ("aide_recall", "aide_search", "aide_memories", "aide_remember",
                 "aide_update", "aide_forget")


def offered(setting: str | None) -> tuple[list[JSONObject], list[str]]:
    """Return the tools `tools/list` gives for aide.mcp.tools = `setting` ("default", "all", or
    names separated by commas or spaces, with or without "aide_"), and the names it gave
    that no tool has. A list that names no tool is the default."""
    words = (setting or "default").replace(",", " ").split()
    if [w.lower() for w in words] == ["all"]:
        return list(TOOLS), []
    names = {t["name"] for t in TOOLS}
    wanted: set[str] = set()
    unknown: list[str] = []
    for word in words:
        if word.lower() == "default":
            wanted.update(DEFAULT_TOOLS)
            continue
        name = word if word.startswith("aide_") else "aide_" + word
        if name in names:
            wanted.add(name)
        else:
            unknown.append(word)
    if not wanted:
        wanted.update(DEFAULT_TOOLS)
    return [t for t in TOOLS if t["name"] in wanted], unknown


_SCHEMAS: dict[str, JSONObject] = {t["name"]: t["inputSchema"] for t in _CHECKED}


# -- the arguments, checked against those schemas ---------------------------------------------

class ArgumentError(ValueError):
    """Refuse an argument the tool's schema does not allow, said in the parameter's own name."""


def _shown(value: JSON) -> str:
    """Return a value as an error shows it: JSON, cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _value(name: str, value: JSON, schema: JSONObject, ids: bool = False) -> JSON:
    """Return `value` as the schema wants it; the obvious spellings a model may send instead (a
    number as text, one string for a list) are taken as meant."""
    kind = schema["type"]
    if kind == "array":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise ArgumentError(f"{name}: expected a list, got {_shown(value)}")
        return [_value(f"{name}[{i}]", v, schema["items"], ids) for i, v in enumerate(value)]
    if kind == "string":
        if ids and isinstance(value, int) and not isinstance(value, bool):
            return value  # aide-memory's integer ids
        if not isinstance(value, str):
            raise ArgumentError(f"{name}: expected text, got {_shown(value)}")
        if "enum" in schema and value not in schema["enum"]:
            raise ArgumentError(f"{name}: {_shown(value)} is not one of "
                                f"{', '.join(schema['enum'])}")
        return value
    if kind == "integer":
        number = value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value)
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        if not isinstance(number, int) or isinstance(number, bool):
            raise ArgumentError(f"{name}: expected a whole number, got {_shown(value)}")
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and number < low:
            raise ArgumentError(f"{name}: {number} is less than {low}")
        if high is not None and number > high:
            raise ArgumentError(f"{name}: {number} is more than {high}")
        return number
    # boolean
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ArgumentError(f"{name}: expected true or false, got {_shown(value)}")
    return value


def check_arguments(tool: str, arguments: JSON) -> JSONObject:
    """Return every parameter of `tool`, from `arguments` or its default (None when it has
    none); a missing, unknown or ill-typed one is an ArgumentError naming it."""
    schema = _SCHEMAS[tool]
    props: dict[str, JSONObject] = schema["properties"]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"the arguments must be an object, got {_shown(arguments)}")
    unknown = [k for k in arguments if k not in props]
    if unknown:
        raise ArgumentError(f"unknown parameter {_shown(unknown[0])}: {tool} takes "
                            f"{', '.join(props)}")
    out: JSONObject = {}
    for name, prop in props.items():
        value = arguments.get(name)
        if value is None:
            if name in schema.get("required", ()):
                choices = f" (one of {', '.join(prop['enum'])})" if "enum" in prop else ""
                raise ArgumentError(f"{name} is required{choices}")
            out[name] = prop.get("default")
        else:
            out[name] = _value(name, value, prop, ids=name in ("id", "ids"))
    return out


#: CLI flags that messages from the shared code name, said as the tools' parameters.
_FLAGS = (("(--scope GLOB)", "(give scope, a glob such as src/auth/**)"),
          ("--personal", "shared=false"), ("--cached", "cached=true"), ("--all", "all=true"),
          ("--force", "force=true"))


def speak(message: str) -> str:
    """Say an error of the shared code on one line, in the tools' terms: its CLI flags become
    parameter names (commands to run, in backquotes, are left as they are)."""
    import re

    parts = " ".join(message.split()).split("`")
    for i in range(0, len(parts), 2):  # outside backquotes
        part = parts[i]
        for flag, name in _FLAGS:
            part = part.replace(flag, name)
        parts[i] = re.sub(r"(?<![\w`-])--([a-z][a-z-]*)",
                          lambda m: m.group(1).replace("-", "_"), part)
    return "`".join(parts)


#: What the server tells an agent in `initialize`: Claude Code and Gemini CLI put it in
#: the system prompt of every request, Codex in each tool's description and its first
#: line in every request's list of tool namespaces; so, two sentences, the first short.
INSTRUCTIONS = ("git-aide: this repository's memory (decisions, constraints, team rules).\n"
                "Call aide_recall with the paths you will change, and aide_remember for "
                "what you learn that the code does not show.")
