"""`git aide config [KEY [VALUE]]`: the aide.* settings, their values, defaults and
origins (app/configure.py); a value set only after it is checked."""

from __future__ import annotations

import click

from git_aide.cli.commands import out, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject


def _shown(value: JSON) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return "(none)"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _line(e: JSONObject, width: int) -> str:
    if e["value"] is None:
        return f"{e['key']:<{width}}  {_shown(e['default'])}  (default)"
    where = f"{e['scope']} {e['origin']}"
    default = f"; default {_shown(e['default'])}" if "default" in e else ""
    bad = f"  [bad: {e['problem']}]" if e.get("problem") else \
        f"  [did you mean {e['closest']}?]" if e.get("closest") else ""
    return f"{e['key']:<{width}}  {e['value']}  ({where}{default}){bad}"


def _text(doc: JSONObject) -> str:
    rows = doc["settings"] + doc["unknown"]
    width = max(len(e["key"]) for e in rows)
    lines = [_line(e, width) for e in doc["settings"]]
    if doc["unknown"]:
        lines += ["", "unknown keys (git-aide reads none of them):"]
        lines += [_line(e, width) for e in doc["unknown"]]
    return "\n".join(lines)


@click.command(context_settings={"ignore_unknown_options": True})  # VALUE may be -1
@click.argument("key", required=False)
@click.argument("value", required=False)
@click.option("--global", "user", is_flag=True,
              help="Set the value in your global git config, not this repository's.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def config(key: str | None, value: str | None, user: bool, as_json: bool) -> None:
    """Show the aide.* settings (value, default, origin), one, or set one."""
    from git_aide.app import configure
    from git_aide.core.errors import UsageError
    from git_aide.gitio.repo import open_repo

    if user and value is None:
        raise UsageError("--global goes with KEY VALUE (setting a value)")
    repo = open_repo()
    if key is None:
        doc = configure.config_doc(repo)
    elif value is None:
        doc = configure.one_doc(repo, key)
    else:
        doc = configure.set_value(repo, key, value, user=user)
        wanted = "global" if user else "local"
        if doc["scope"] != wanted:
            warn([f"{doc['key']} set in the {wanted} config, but the {doc['scope']} "
                  f"value ({doc['value']}) still wins ({doc['origin']})"])
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
    elif key is None:
        out(_text(doc))
    else:
        out(_line(doc, len(doc["key"])))
