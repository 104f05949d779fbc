"""The command line's click group: the man page for --help, the hot commands built from
their declaration (option_table.py), the cold ones (read_commands.py, write_commands.py,
setup_commands.py, rules_commands.py, config.py, semantic.py, map.py), and the click
path's error boundary (`run`; the fast path's is commands.guarded, both ending in
app/boundary.py).
"""

from __future__ import annotations

import os
import sys

import click

from git_aide import __version__
from git_aide.cli import (
    commands,
    completion,
    read_commands,
    rules_commands,
    setup_commands,
    write_commands,
)
from git_aide.cli.config import config
from git_aide.cli.daemon import daemon
from git_aide.cli.map import map_
from git_aide.cli.option_table import COMMANDS as HOT
from git_aide.cli.option_table import Hot
from git_aide.cli.semantic import semantic


class AideGroup(click.Group):
    """Make a group's `-h` print usage and its `--help` open the man page, as git does."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        """Return the help option for -h only; --help is the man page (see get_params)."""
        opt = super().get_help_option(ctx)
        if opt is not None:
            opt.opts, opt.secondary_opts = ["-h"], []
        return opt

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """Return the group's parameters plus --help, which shows the man page."""
        def show_man(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
            if value and not ctx.resilient_parsing:
                _show_man(ctx)
                ctx.exit()

        man = click.Option(["--help", "show_man"], is_flag=True, expose_value=False, is_eager=True,
                           callback=show_man, help="Show the manual page.")
        return [*super().get_params(ctx), man]


def _show_man(ctx: click.Context) -> None:
    from git_aide.cli import manual

    manual.show(None, ctx.get_help)


def _no_pager(_ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # __main__ takes it off the front of the arguments (for the fast path too); this
    # option is its line in -h, and the same for a caller of run().
    if value:
        os.environ["GIT_PAGER"] = "cat"


@click.group(cls=AideGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="git-aide",
                      message="git-aide version %(version)s")
@click.option("--no-pager", "-P", is_flag=True, expose_value=False, is_eager=True,
              callback=_no_pager, help="Do not page the output (as git --no-pager).")
def main() -> None:
    """git-aide: a git-native memory for AI coding agents and the people beside them."""


class PathsAfterDash(click.Command):
    """Keep a command's `-- PATH...` apart from its revisions, as git does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Put everything after the first `--` in ctx.meta["paths"]."""
        if "--" in args:
            at = args.index("--")
            ctx.meta["paths"] = args[at + 1:]
            args = args[:at]
        else:
            ctx.meta["paths"] = []
        return super().parse_args(ctx, args)


def _hot_command(hot: Hot) -> click.Command:
    """Build the click command of a hot command from its declaration (option_table.py), as the fast
    parser reads it, calling the same function (commands.run)."""
    params: list[click.Parameter] = [
        click.Argument([hot.words], nargs=1 if hot.one_word else -1,
                       metavar=hot.words_metavar)]
    for opt in hot.options:
        kind: click.ParamType | None = None
        if opt.kind == "count":
            kind = click.IntRange(min=0)
        elif opt.choices is not None:
            kind = click.Choice(list(opt.choices()))
        flag = opt.kind == "flag"
        params.append(click.Option([*opt.names, opt.dest], is_flag=flag, multiple=opt.multiple,
                                   type=kind, help=opt.help, metavar=opt.metavar,
                                   default=False if flag else opt.default))

    def callback(**kwargs: object) -> None:
        # click gives tuples for the repeatable options and the words; cli/argv.py gives lists.
        got: dict[str, object] = {k: list(v) if isinstance(v, tuple) else v
                                  for k, v in kwargs.items()}
        if hot.paths_after_dash:
            got["paths"] = click.get_current_context().meta["paths"]
        status = commands.run(hot.name, got)
        if isinstance(status, int) and status:
            raise click.exceptions.Exit(status)

    cls = PathsAfterDash if hot.paths_after_dash else click.Command
    return cls(hot.name, params=params, callback=callback, help=hot.help)


for _hot in HOT.values():
    main.add_command(_hot_command(_hot))


#: The cold commands, in the order of the help and the completion scripts.
COLD: list[click.Command] = [
    setup_commands.init, write_commands.remember, read_commands.index, read_commands.stats,
    read_commands.list_, read_commands.show, write_commands.update, write_commands.forget,
    setup_commands.merge_driver, setup_commands.resolve, setup_commands.validate,
    setup_commands.doctor, read_commands.audit, setup_commands.textconv,
    rules_commands.import_, rules_commands.export, setup_commands.mcp, setup_commands.hook,
    config]
for _cold in COLD:
    main.add_command(_cold)
main.add_command(semantic)
main.add_command(map_)
main.add_command(daemon)
main.add_command(completion.command())


@main.command(name="help")
@click.argument("command", required=False)
def help_(command: str | None) -> None:
    """Show the commands; with COMMAND, its entry in the manual (as COMMAND --help)."""
    if command is None:
        commands.out(main.get_help(click.Context(main, info_name="git aide")), page=True)
        return
    if command not in main.commands:
        raise click.UsageError(f"no such command: {command!r}")
    _command_manual(command)


def _command_manual(command: str) -> None:
    """Show the man page at COMMAND's entry (`git aide help COMMAND`, `git aide COMMAND --help`)."""
    from git_aide.cli import manual

    cmd = main.commands[command]
    manual.show(command, lambda: cmd.get_help(click.Context(cmd, info_name=f"git aide {command}")))


def _asks_manual(args: list[str]) -> str | None:
    """Return the command whose --help is asked (before any `--`), as git's COMMAND --help."""
    if not args or args[0] not in main.commands:
        return None
    before = args[1:args.index("--")] if "--" in args else args[1:]
    return args[0] if "--help" in before else None


def run(argv: list[str] | None = None) -> int:
    """Run the command line; every error becomes one line and an exit status."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # as `git` alone: the usage on stdout, status 1, no error line
        click.echo(main.get_help(click.Context(main, info_name="git aide")))
        return 1
    try:
        try:
            commands.check_arguments(args)
            asked = _asks_manual(args)
            if asked is not None:
                _command_manual(asked)
                return 0
            rv = main.main(args=argv, prog_name="git aide", standalone_mode=False)
        finally:
            commands.end_paging()  # before an error's line, as git waits for its pager
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("git-aide: error: aborted", err=True)
        return 1
    except click.UsageError as e:
        # An option missing its value is raised without a context: the command is
        # then the first argument that names one.
        name = e.ctx.command_path.split()[-1] if e.ctx else next(
            (a for a in args if a in main.commands), "aide")
        hint = f" (see 'git aide {name} -h')" if name != "aide" else " (see 'git aide -h')"
        click.echo(f"git-aide: error: {commands.escape(e.format_message())}{hint}", err=True)
        return 2
    except click.ClickException as e:
        click.echo(f"git-aide: error: {commands.escape(e.format_message())}", err=True)
        return e.exit_code
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 -- the one error boundary
        from git_aide.app.boundary import report

        return report(e)
    return rv if isinstance(rv, int) else 0
