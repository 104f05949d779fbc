"""The MCP tools as agents are given them: their JSON Schema (aide-memory's names and
parameters), the arguments of a call checked against it, and an error said in the
tools' terms rather than the command line's.

Plain data and the standard library only: the server answers `tools/list` from here
before the SDK is imported (agents/handshake.py).
"""

from __future__ import annotations

import json

from git_aide.core.memory import LAYERS, PRIORITIES, SOURCES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _param(type_: str, description: str | None = None, **more: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": type_}
    if description:
        schema["description"] = description
    schema.update(more)
    return schema


def _texts(description: str, item: dict[str, Any] | None = None) -> dict[str, Any]:
    return _param("array", description, items=item or {"type": "string"})


# Plain schemas only (types, enums, bounds, defaults): no anyOf, $defs or type lists,
# which some agents' model APIs refuse. A parameter left out or null takes its default.
_LAYER = _param("string", "One of the four layers", enum=list(LAYERS))
#: Where a cut answer continues (its `more` names the value to give).
_OFFSET = _param("integer", "Skip the first this many (to continue a cut answer)",
                 minimum=0, maximum=100000, default=0)
_REV = _param("string", "Read at this commit-ish (a branch, tag, sha, HEAD~3) instead of "
                        "the working tree")
_ID = _param("string", "A uuid, a unique uuid prefix of 4+ characters (the short ids "
                       "answers show), or an aide-memory integer id")
_PRIORITY = _param("string", "always: shown at every session start", enum=list(PRIORITIES))
_CONTRIBUTOR = _param("string", "Who wrote the memory (a name, or the agent's)")
# The tool annotations: what a client may assume (no tool reaches beyond the repository).
_READ = {"readOnlyHint": True, "openWorldHint": False}
_WRITE = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
          "openWorldHint": False}
_CHANGE = {**_WRITE, "destructiveHint": True}


def _tool(name: str, title: str, description: str, props: dict[str, dict[str, Any]],
          required: tuple[str, ...] = (), hints: dict[str, bool] | None = None
          ) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return {"name": name, "title": title, "description": description,
            "inputSchema": schema, "annotations": {"title": title, **(hints or _READ)}}


#: Every tool, as `tools/list` gives it (the SDK serves the same list once it runs).
TOOLS: list[dict[str, Any]] = [
    _tool("aide_recall", "Recall memories",
          "What to know before touching these paths: the memories scoped to them, most "
          "specific first (`git aide recall --json`); or the memories `ids` names.", {
              "paths": _texts("Files or folders you are about to read or change"),
              "query": _param("string", "Words to re-rank by"),
              "layers": _texts("Only these layers", {"type": "string",
                                                     "enum": list(LAYERS)}),
              "contributor": _CONTRIBUTOR,
              "limit": _param("integer", "At most this many memories (default: the "
                                         "aide.recall.limit setting, 20)", minimum=0,
                              maximum=1000),
              "ids": _texts("Fetch these memories by id instead (as answers name them)"),
              "rev": _REV,
          }),
    _tool("aide_search", "Search memories",
          "Where did we write about X? Search by words and, when a model is configured, "
          "by meaning; best first (`git aide search --json`).", {
              "keyword": _param("string", "Words to look for"),
              "layer": _LAYER,
              "limit": _param("integer", "At most this many memories (default: the "
                                         "aide.search.limit setting, 20)", minimum=0,
                              maximum=1000),
              "offset": _OFFSET,
              "mode": _param("string", "auto (words, and meaning when aide.semantic.model "
                                       "is set), keyword (words only) or semantic (meaning "
                                       "only)", default="auto"),
              "rev": _REV,
          }, required=("keyword",)),
    _tool("aide_memories", "List memories",
          "Every memory, by layer then scope, with filters (`git aide list --json`).", {
              "layer": _LAYER,
              "scope": _param("string", "Only memories whose scope starts with this text"),
              "contributor": _CONTRIBUTOR,
              "limit": _param("integer", "At most this many memories", minimum=0,
                              maximum=100000, default=50),
              "offset": _OFFSET,
              "rev": _REV,
          }),
    _tool("aide_remember", "Remember",
          "Store a memory in .aide/memories and stage it (`git aide remember --json`).", {
              "what": _param("string", "The memory itself, one fact or decision"),
              "layer": _LAYER,
              "scope": _param("string", "Where it applies: a glob such as src/auth/** "
                                        "(none: project-wide)"),
              "why": _param("string", "The reason, when the code does not show it"),
              "context_label": _param("string", "A short label for the area"),
              "contributor": _CONTRIBUTOR,
              "tags": _texts("Free-form tags"),
              "source": _param("string", "How the memory came about", enum=list(SOURCES),
                               default="conversation"),
              "shared": _param("boolean", "false: a personal preference (layer preferences "
                                          "only), kept out of git, never staged",
                               default=True),
              "priority": _PRIORITY,
          }, required=("what", "layer"), hints=_WRITE),
    _tool("aide_update", "Update a memory",
          "Change a memory and stage the change (`git aide update --json`).", {
              "id": _ID,
              "what": _param("string", "The new text"),
              "why": _param("string", "The new reason"),
              "scope": _param("string", "New scope glob ('' or 'project': project-wide)"),
              "context_label": _param("string", "The new label"),
              "priority": _PRIORITY,
          }, required=("id",), hints=_CHANGE),
    _tool("aide_forget", "Forget a memory",
          "Delete a memory and stage the removal (`git aide forget --json`).",
          {"id": _ID}, required=("id",), hints=_CHANGE),
    _tool("aide_import", "Import rules",
          "Turn rules text (CLAUDE.md, AGENTS.md, notes) into memories "
          "(`git aide import --json`); the answer names each new memory's id.", {
              "content": _param("string", "Markdown: each rule (a bullet, a paragraph) "
                                          "becomes one memory"),
              "layer": _LAYER,
              "scope": _param("string", "A glob the memories apply to (none: "
                                        "project-wide)"),
              "context_label": _param("string", "A short label for the area"),
          }, required=("content", "layer"), hints=_WRITE),
    _tool("aide_diff", "Diff memories",
          "Memories added, forgotten and changed between two sources "
          "(`git aide diff --json`).", {
              "args": _texts("As `git aide diff`: none (HEAD vs the working tree), REV, "
                             "REV REV2, A..B or A...B (what a branch adds: "
                             "origin/main...HEAD)"),
              "cached": _param("boolean", "Compare with the index (staged memories)",
                               default=False),
              "paths": _texts("Only memories whose scope or file these paths name"),
          }),
    _tool("aide_log", "Log of memories",
          "Commits that changed memories, newest first (`git aide log --json`).", {
              "revs": _texts("Revisions or ranges as `git log` takes them (default HEAD)"),
              "uuid": _param("string", "Follow one memory (a uuid or a unique prefix)"),
              "paths": _texts("Only memories whose scope or file these paths name"),
              "reverse": _param("boolean", "Oldest first", default=False),
              "limit": _param("integer", "At most this many commits", minimum=1),
              "skip": _param("integer", "Skip the first this many commits (to continue a "
                                        "cut answer)", minimum=0, default=0),
              "all": _param("boolean", "Walk every branch and tag (as git log --all)",
                            default=False),
          }),
]

_SCHEMAS: dict[str, dict[str, Any]] = {t["name"]: t["inputSchema"] for t in TOOLS}


# -- the arguments, checked against those schemas ---------------------------------------------

class ArgumentError(ValueError):
    """An argument the tool's schema does not allow, said in the parameter's own name."""


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _value(name: str, value: Any, schema: dict[str, Any], ids: bool = False) -> Any:
    """`value` as the schema wants it; the obvious spellings a model may send instead (a
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


def check_arguments(tool: str, arguments: Any) -> dict[str, Any]:
    """Every parameter of `tool`, from `arguments` or its default (None when it has
    none); a missing, unknown or ill-typed one is an ArgumentError naming it."""
    schema = _SCHEMAS[tool]
    props: dict[str, dict[str, Any]] = schema["properties"]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"the arguments must be an object, got {_shown(arguments)}")
    unknown = [k for k in arguments if k not in props]
    if unknown:
        raise ArgumentError(f"unknown parameter {_shown(unknown[0])}: {tool} takes "
                            f"{', '.join(props)}")
    out: dict[str, Any] = {}
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
          ("--personal", "shared=false"), ("--cached", "cached=true"), ("--all", "all=true"))


def speak(message: str) -> str:
    """An error of the shared code on one line, in the tools' terms: its CLI flags become
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


INSTRUCTIONS = """\
This repository's memory (git-aide): decisions, facts, preferences and team rules,
stored as files in .aide/memories/ and versioned with the code.
Before you change a file, call aide_recall with its path. When you learn something the
code does not show (a decision, a constraint, a gotcha), call aide_remember with a scope
glob where it applies. Layers: area_context (one code area, needs a scope), technical,
preferences, guidelines. rev reads any commit; aide_diff shows what a branch changed.
Answers are kept short: one that is cut says how many items it left out, their ids
(aide_recall takes them as ids) and the call that gets the rest."""
