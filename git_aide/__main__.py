"""Entry point of the `git-aide` executable (and `python -m git_aide`)."""

from __future__ import annotations

import sys


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
        # Agents run hooks on every file they touch: no click, and never a failure.
        from git_aide.agents.hooks.events import main as hook_main

        sys.exit(hook_main(argv[1:]))
    if argv and argv[0] == "__complete":
        # Shell completion asks on every TAB: no click, no git.
        from git_aide.cli.completion import helper

        sys.exit(helper(argv[1:]))
    if argv == ["mcp"]:
        from git_aide.agents import serve

        sys.exit(serve())
    if not all(arg.isascii() for arg in argv):
        from git_aide.cli import commands

        status = commands.guarded(lambda: commands.check_arguments(argv))
        if status:
            sys.exit(status)
    # The hot commands (cli/option_table.py), which agents call on every file they touch: their
    # plain forms skip click; for recall and search the questions for git are started
    # first, to run while Python imports the rest.
    from git_aide.cli.argv import parse

    parsed = parse(argv)
    if parsed is not None:
        from git_aide.cli.option_table import COMMANDS

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


if __name__ == "__main__":
    main()
