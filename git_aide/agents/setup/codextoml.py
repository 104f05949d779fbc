"""Codex's `.codex/config.toml`: git-aide's `[mcp_servers.git-aide]` table put in, changed
in place or taken out through tomlkit, which keeps the document as written; an edit that
would touch any other line is refused."""

from __future__ import annotations

from git_aide.agents.setup.entries import EXE, SERVER, is_our_server
from git_aide.agents.setup.jsonedit import newline
from git_aide.agents.setup.settingsfile import MAX_TOML, Change, read_settings
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tomlkit import TOMLDocument

    from git_aide.core.jsonvalue import JSONObject

#: Codex's `startup_timeout_sec` (its default: 10 s, less than a cold start under load);
#: tool calls have their own `tool_timeout_sec` (60 s), left as Codex sets it.
CODEX_STARTUP_S = 30


def toml_load(text: str, rel: str) -> TOMLDocument:
    """Return the tomlkit document of `text`."""
    import tomlkit

    try:
        return tomlkit.parse(text)
    except RecursionError:
        raise AideError(f"{rel} is nested too deeply to be agent settings; left as it was"
                        ) from None
    except Exception as e:  # tomlkit's errors are not all of one class
        message = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise AideError(f"{rel} is not valid TOML ({message}); fix it, then run init again "
                        "(it was left as it was)") from None


#: The variables Codex passes on to the server (`env_vars`): it starts MCP servers with
#: a few of its own only (HOME, PATH, LANG, TZ...), while the commands and hooks it runs
#: get them all; without these the server would read another global git config and
#: another user store than `git aide` does in the same shell, and the hooks could not
#: be answered by it (docs/server.md).
CODEX_ENV_VARS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "GIT_CONFIG_GLOBAL",
                  "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "NO_COLOR")

#: Our `[mcp_servers.git-aide]`, as values.
_CODEX_ENTRY: JSONObject = {"command": EXE, "args": ["mcp"],
                             "startup_timeout_sec": CODEX_STARTUP_S,
                             "env_vars": list(CODEX_ENV_VARS)}


def _toml_table(nl: str) -> str:
    """Return our table as install appends it, with the file's line ends."""
    names = ", ".join(f'"{n}"' for n in CODEX_ENV_VARS)
    return (f'[mcp_servers.{SERVER}]{nl}command = "{EXE}"{nl}args = ["mcp"]{nl}'
            f'startup_timeout_sec = {CODEX_STARTUP_S}{nl}env_vars = [{names}]{nl}')


def toml_change(top: str, rel: str, install: bool) -> Change:
    """Return the change to our `[mcp_servers.git-aide]` in Codex's config: added at the
    end of the file, changed in place wherever and however it is written, taken out with
    the line end install put before it."""
    what = "the git-aide MCP server"
    raw, dest, mode = read_settings(top, rel, MAX_TOML)
    unchanged = Change(rel, raw, raw, what, dest, mode)
    if raw is None:  # nothing to parse (doctor asks about every agent)
        return Change(rel, raw, _toml_table("\n").encode(), what, dest) if install else unchanged
    from tomlkit.items import InlineTable

    # non-UTF-8 bytes (in a comment, say) go through as they came
    text = raw.decode("utf-8", "surrogateescape")
    doc = toml_load(text, rel)
    if doc.as_string() != text:
        raise AideError(f"{rel}: git-aide cannot edit it without rewriting other lines; "
                        "left as it was")
    plain = doc.unwrap()
    servers = plain.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise AideError(f"{rel}: mcp_servers is not a table; left as it was")
    want = _CODEX_ENTRY
    others = [n for n, e in servers.items() if n != SERVER and is_our_server(e)]
    if not others and (servers.get(SERVER) == want if install else SERVER not in servers):
        return unchanged
    expected = {n: e for n, e in servers.items() if n not in others and n != SERVER}
    if install:
        expected[SERVER] = want
    box = doc.get("mcp_servers", {})  # {}: no table yet, and install appends ours
    for name in others:
        del box[name]
    nl = newline(text)
    if install and SERVER not in servers and not isinstance(box, InlineTable):
        base = doc.as_string()
        new = base + (nl if base else "") + _toml_table(nl)
    else:
        if not install:
            if SERVER in servers:
                del box[SERVER]
        elif isinstance(servers.get(SERVER), dict):
            entry = box[SERVER]
            for k in [k for k in entry if k not in want]:
                del entry[k]
            for k, v in want.items():
                if entry.get(k) != v:
                    entry[k] = v
        else:
            import tomlkit

            inline = tomlkit.inline_table()
            inline.update(want)
            box[SERVER] = inline
        new = doc.as_string()
        cut = text[len(new):] if text.startswith(new) else ""
        if not install and cut.lstrip(" \t").startswith("["):
            # our table was last: the line end install put before it goes too
            new = new.removesuffix(newline(new[-2:]) if new.endswith("\n") else "")
    after = toml_load(new, rel).unwrap()
    mcp = after.pop("mcp_servers", {})
    plain.pop("mcp_servers", None)
    if after != plain or mcp != expected:
        raise AideError(f"{rel}: git-aide cannot change its entry without touching others "
                        "(an unusual layout); left as it was")
    if not install and not new:
        return Change(rel, raw, None, what, dest, mode)
    return Change(rel, raw, new.encode("utf-8", "surrogateescape"), what, dest, mode)
