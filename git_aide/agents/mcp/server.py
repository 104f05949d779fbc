"""`git aide mcp`: the MCP server on stdio (docs/agents.md).

The tools keep aide-memory's names and parameters, and call the same functions as the
commands (answers.py, store.py). A read tool's structured content is a compact document
of the memories by default (agents/mcp/text.py's compact()), and with `detail: "full"` the
document the matching command prints with `--json`; its text is a short markdown
rendering; both within a budget of characters (agents/mcp/answersize.py). The process stays up
between calls, so its imports, its repository handle and its full-text index stay warm
(warm/state.py's ServerState); every call learns what changed in its source (the index, a
tree, and the memory files that differ from the index: from git status, or from the
kernel's events once git has answered, warm/watch.py), so a memory edited by hand
between two calls is seen; and while nothing a reading tool's answer depends on
changed, an identical call gets the same answer again without working it out
(warm/state.py).

The start of a connection is answered before the SDK is imported
(agents/mcp/handshake.py); the tools' schema is agents/mcp/schema.py's. This module
runs one call (`call`) and builds the SDK's server; each tool's work is readtools.py's,
writetools.py's or historytools.py's.
"""

from __future__ import annotations

from git_aide import __version__
from git_aide.agents.mcp.historytools import aide_diff, aide_log
from git_aide.agents.mcp.readtools import aide_memories, aide_recall, aide_search
from git_aide.agents.mcp.schema import (
    DEFAULT_TOOLS,
    INSTRUCTIONS,
    TOOLS,
    ArgumentError,
    check_arguments,
    speak,
)
from git_aide.agents.mcp.writetools import aide_forget, aide_import, aide_remember, aide_update
from git_aide.warm.state import ServerState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp import types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from git_aide.agents.mcp.toolwork import Answer
    from git_aide.core.jsonvalue import JSON, JSONObject
    from git_aide.gitio.spawn import Prefetch


#: Each tool's work: the checked arguments in, (structured content, text) out.
WORK: dict[str, Callable[[ServerState, JSONObject], Answer]] = {
    "aide_recall": aide_recall, "aide_search": aide_search, "aide_memories": aide_memories,
    "aide_remember": aide_remember, "aide_update": aide_update, "aide_forget": aide_forget,
    "aide_import": aide_import, "aide_diff": aide_diff, "aide_log": aide_log,
}


#: The tools that only read, whose answers on the working tree may be given again.
READING = frozenset({"aide_recall", "aide_search", "aide_memories"})


def call(mem: ServerState, name: str, arguments: JSON) -> tuple[str, JSONObject | None, bool]:
    """Answer one tool call: (text, structured content, is it an error). Never raises: any
    failure is a tool error of one line (app/boundary.py), and the server lives on. The
    cache's notices go to the agent's log (stderr), as the snapshots' warnings do."""
    from git_aide.app.boundary import failure

    with mem.lock:
        try:
            doc, text = WORK[name](mem, check_arguments(name, arguments))
            return text, doc, False
        except ArgumentError as e:
            return speak(str(e))[:2000], None, True
        except Exception as e:  # noqa: BLE001 -- the server outlives any one call
            message, _status = failure(e)
            return speak(message or type(e).__name__)[:2000], None, True
        finally:
            mem.end_call(wrote=name not in READING)


# -- the SDK's server ---------------------------------------------------------------------------

def build(memory: ServerState | None = None, tools: list[JSONObject] | None = None,
          client: str | None = None) -> Server:
    """Build the SDK's low-level server with the tools (imports the SDK: not on the way to the
    first answers). `tools`: those `tools/list` gives (schema.offered(); the default set
    when None). A tool left out of them is still answered if called. `client`: the
    client's name and version from its `initialize` (handshake.client_of), which marks
    the memories it writes."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    mem = memory or ServerState()
    if client is not None:
        mem.client = client
    if tools is None:
        tools = [t for t in TOOLS if t["name"] in DEFAULT_TOOLS]
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams
                        ) -> types.CallToolResult:
        if params.name not in WORK:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        text, doc, failed = await anyio.to_thread.run_sync(call, mem, params.name,
                                                           params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=doc, is_error=failed)

    return Server("git-aide", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def settle(mem: ServerState) -> None:
    """Wait, at the end of the connection, for the work after an answer under way (a
    write cut off by the process's exit would leave the index for the next command to
    rebuild), then count the recalls answered and write what is pending now if the
    index is free."""
    mem.idle(mem.calls)


def ready_state(client: str | None = None, asked: Prefetch | None = None) -> ServerState:
    """Make what a tool call needs, without the SDK: the server's state (its writes
    marked as `client`'s) and git-aide's read path, imported. `asked`: git's questions
    started with the server (its first read takes their answers)."""
    mem = ServerState()
    mem.client = client
    import git_aide.agents.hooks.sessions  # noqa: F401
    import git_aide.agents.mcp.answersize  # noqa: F401
    import git_aide.agents.mcp.text  # noqa: F401
    import git_aide.app.answers  # noqa: F401
    import git_aide.app.diff  # noqa: F401
    import git_aide.app.log  # noqa: F401
    import git_aide.app.search  # noqa: F401
    import git_aide.app.store  # noqa: F401
    from git_aide.agents.mcp.readtools import rehearse
    from git_aide.app.context import preload

    preload()
    mem.prepare(asked, lambda: rehearse(mem))
    return mem


def ready_rest() -> None:
    """Import what only some calls need (pygit2: the history tools, a merge's bases), in
    a quiet spell after the state is made: not on the way to a first call."""
    from contextlib import suppress

    from git_aide.gitio.repo import load_reader

    with suppress(ImportError):  # the call that needs it says so
        load_reader()


def call_result(text: str, doc: JSONObject | None, failed: bool) -> JSONObject:
    """Return a tool call's result as the SDK puts it on the wire (CallToolResult) for
    the protocol versions handshake.py answers (before 2026, with no `resultType`):
    handshake.py answers calls before the SDK is loaded, and tests hold the two equal."""
    result: JSONObject = {"content": [{"type": "text", "text": text}]}
    if doc is not None:
        result["structuredContent"] = doc
    result["isError"] = failed
    return result
