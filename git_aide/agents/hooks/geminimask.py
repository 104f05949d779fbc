"""What Gemini CLI keeps of an old tool output once it masks it, so that the hook's most
specific memory is placed where the masking leaves it whole.

Gemini CLI appends an AfterTool hook's context to the tool's output, and later cuts an
older output down to its first and last MASK_KEEP characters (its
ToolOutputMaskingService, as of 0.61).
"""

from __future__ import annotations

from git_aide.agents.hooks.lines import clip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject

#: Gemini CLI masks an older tool output to its first and last this many characters.
MASK_KEEP = 250


def masks(agent: str, data: JSONObject) -> bool:
    """Tell whether the reply is appended to a tool's output that Gemini CLI masks once
    it is old (its AfterTool; BeforeAgent's context goes in the prompt, never masked)."""
    return agent == "gemini" and "tool_name" in data and data.get(
        "hook_event_name", "AfterTool") == "AfterTool"


def _gemini_masked(data: JSONObject, text: str) -> str:
    """Return what Gemini CLI keeps of the tool's output with `text` appended, once it
    masks it, as JSON text: the reply goes after the tool's text in `<hook_context>`, `<`
    and `>` as entities; a shell command's output keeps its last section whole, or the
    last 10 lines of its Output section; any other output, as indented JSON
    (`{"output": ...}`), its first and last MASK_KEEP characters when over twice that. An
    output given in parts (read_many_files) counts as long."""
    import json
    import re

    response = data.get("tool_response")
    llm = response.get("llmContent") if isinstance(response, dict) else None
    if not isinstance(llm, str):
        llm = " " * (4 * MASK_KEEP)
    output = llm + ("\n\n<hook_context>" + text.replace("<", "&lt;").replace(">", "&gt;")
                    + "</hook_context>")
    if data.get("tool_name") == "run_shell_command":
        sections = list(re.finditer(r"^(Output|Error|Exit Code|Signal|Background PIDs|"
                                    r"Process Group PGID): ", output, re.M))
        if sections and sections[-1].group(1) != "Output":
            kept = output[sections[-1].start():]
        else:
            kept = "\n".join(output.split("\n")[-10:])
        return json.dumps(kept, ensure_ascii=False)
    whole = json.dumps({"output": output}, indent=2, ensure_ascii=False)
    if len(whole) <= 2 * MASK_KEEP:
        return whole
    return whole[:MASK_KEEP] + "\n... [TRUNCATED] ...\n" + whole[-MASK_KEEP:]


def _as_masked(text: str) -> str:
    """Return `text` as it stands in Gemini CLI's masked JSON (entities, then JSON
    escapes)."""
    import json

    return json.dumps(text.replace("<", "&lt;").replace(">", "&gt;"), ensure_ascii=False)[1:-1]


def kept_by_masking(data: JSONObject, text: str, record: JSONObject) -> bool:
    """Tell whether the start of `record`'s text (what the model needs to know the rule)
    is still there once Gemini CLI masks the tool output `text` is appended to."""
    what = " ".join(record["what"].split())
    return _as_masked(what[:40]) in _gemini_masked(data, text)


def keep_line(record: JSONObject, rel: str) -> str:
    """Return the line that restates `record` in few enough characters to stay whole in
    what Gemini CLI's masking keeps of the end of a tool output (MASK_KEEP less its own
    JSON and the closing tag)."""
    name = rel.rsplit("/", 1)[-1]
    tail = f" id:{record['uuid'][:8]}"
    room = MASK_KEEP - len('</hook_context>"\n}') - 2  # and the escaped line break

    def cost(text: str) -> int:  # JavaScript counts UTF-16 code units
        return len(_as_masked(text).encode("utf-16-le")) // 2

    what = " ".join(record["what"].split())
    line = f"Most specific to {name}: {what}{tail}"
    most = len(what)
    while cost(line) > room and most > 20:
        most -= max(1, (cost(line) - room) // 2)
        line = f"Most specific to {name}: {clip(what, most)}{tail}"
    return line
