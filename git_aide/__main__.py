"""Entry point of the `git-aide` executable (and `python -m git_aide`)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts


def main() -> None:
    """Run git-aide and exit with its status."""
    argv = sys.argv[1:]
    while argv and argv[0] in ("--no-pager", "-P"):
        # As `git --no-pager aide ...` does (cli/pager.py).
        import os

        os.environ["GIT_PAGER"] = "cat"
        argv = argv[1:]
    if argv and argv[0] == "merge-driver":
        # Git starts the driver once per conflicting file: skip click and go straight
        # to the merge (its budget: under 80 ms a call).
        from git_aide.drivers.merge import main as merge_main

        sys.exit(merge_main(argv[1:]))
    if argv and argv[0] == "textconv":
        # Git starts the textconv once per memory file it shows: as cheap as the driver.
        from git_aide.drivers.textconv import main as textconv_main

        sys.exit(textconv_main(argv[1:]))
    if argv and argv[0] == "hook" and "-h" not in argv and "--help" not in argv:
        # Agents run hooks on every file they touch: no click, and never a failure;
        # asked of the repository's warm server when one runs (warm/client.py).
        event = None
        if sys.stdin is not None and not sys.stdin.isatty():
            event = sys.stdin.buffer.read()
            status = _ask(argv, event)
            if status is not None:
                sys.exit(status)
        from git_aide.agents.hooks.events import main as hook_main

        sys.exit(hook_main(argv[1:], event=event))
    if argv and argv[0] == "__complete":
        # Shell completion asks on every TAB: no click, no git.
        from git_aide.cli.completion import helper

        sys.exit(helper(argv[1:]))
    if argv == ["mcp"]:
        from git_aide.agents import serve

        sys.exit(serve(served))
    if not all(arg.isascii() for arg in argv):
        from git_aide.cli import commands

        status = commands.guarded(lambda: commands.check_arguments(argv))
        if status:
            sys.exit(status)
    # The hot commands (cli/option_table.py), which agents call on every file they touch: their
    # plain forms skip click; for recall and search the questions for git are started
    # first, to run while Python imports the rest.
    from git_aide.cli.option_table import COMMANDS

    if argv and argv[0] in COMMANDS and sys.stdout is not None and not sys.stdout.isatty():
        # An agent's `recall FILE`: the warm server answers it when one runs.
        status = _ask(argv, None)
        if status is not None:
            sys.exit(status)
    from git_aide.cli.argv import parse

    parsed = parse(argv)
    if parsed is not None:
        command, kwargs = parsed
        cached, rev = bool(kwargs.get("cached")), kwargs.get("rev")
        if COMMANDS[command].early and not (cached and rev is not None):
            from git_aide.gitio.spawn import early

            # parse() checked each value for its option: a revision is a str.
            kwargs["asked"] = early(cached, rev if isinstance(rev, str) else None)
        from git_aide.cli import commands

        sys.exit(commands.guarded(lambda: commands.run(command, kwargs)))
    from git_aide.cli.main import run

    sys.exit(run(argv))


def _ask(argv: list[str], event: bytes | None) -> int | None:
    """Run `argv` through the repository's warm server (warm/client.py): its exit status,
    or None to run it here (no server, GIT_AIDE_SERVER=0, or the server declined)."""
    from git_aide.warm import address

    if address.off():
        return None
    from git_aide.warm.client import ask

    return ask(argv, event)


def served(argv: list[str], event: bytes | None, contexts: Contexts) -> int | None:
    """Run a command the warm server was handed (cli/served.py), for warm/listener.py:
    the MCP server is started from here, above the layer that runs commands."""
    from git_aide.cli.served import run

    return run(argv, event, contexts)


if __name__ == "__main__":
    main()
