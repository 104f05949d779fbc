"""Shell completion: `git aide completion bash|zsh` and the `__complete` helper.

The script is written at run time from the click group (the hot commands' click
commands are built from option_table.py's table), so it never drifts from the commands: their
names, options, the values of each option that takes a choice (the layers, `--agent`),
and what their words are (paths, memory ids, revisions, a group's subcommands). Git's
own completion calls it: bash's calls the function `_git_aide` (loaded from a file
named `git-aide` in bash-completion's folder), zsh's `_git` the function `_git-aide`
(a file of that name on fpath).

`git aide __complete ids PREFIX` prints the uuids that start with PREFIX, one a line:
the file names under .aide/memories, read from the filesystem (no git, no click:
__main__ runs it before anything else, on every TAB).
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click

#: The shells `completion` writes for.
SHELLS = ("bash", "zsh")

#: A word that goes into the script unquoted (option names, choices, command names).
_PLAIN = re.compile(r"[A-Za-z0-9_.+-]+")

#: The commands git or an agent runs, not a person (git's merge and diff drivers, the
#: agents' hooks and MCP server): never offered, though -h and the man page list them.
INTERNAL = frozenset({"merge-driver", "textconv", "hook", "mcp"})

#: What a command's positional words are, by the name of its click argument.
_WORDS = {"paths": "files", "files": "files", "file": "files", "ident": "ids",
          "idents": "ids", "revs": "refs", "folder": "files"}
#: What an option's value is, by its destination, when it is not a choice.
_VALUES = {"ident": "ids", "rev": "refs", "html": "files"}


# -- __complete: the memories' ids, from the file names --------------------------------------

def memory_ids(prefix: str = "", start: str | None = None) -> list[str]:
    """Return the uuids of the memories in the working tree around `start` (default: the current
    directory) and in the user's own store that start with `prefix`, sorted: the
    `*.json` names under .aide/memories and its subfolders (preferences/shared,
    preferences/personal)."""
    from git_aide import MEMORIES_DIR
    from git_aide.core.memory import user_store

    key = prefix.lower()
    found: set[str] = set()
    here = _memories(os.path.abspath(start or os.getcwd()), MEMORIES_DIR)
    for folder in (here, os.path.join(user_store(), MEMORIES_DIR)):
        if folder is None:
            continue
        for top, dirs, names in os.walk(folder):
            if top.count(os.sep) - folder.count(os.sep) >= 2:
                dirs[:] = []
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            found.update(n[:-5] for n in names if n.endswith(".json")
                         and not n.startswith(".") and n.startswith(key))
    return sorted(found)


def _memories(here: str, memories_dir: str) -> str | None:
    """Find the memories folder of the working tree that holds `here`, if any."""
    while True:
        candidate = os.path.join(here, memories_dir)
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(here)
        if os.path.exists(os.path.join(here, ".git")) or parent == here:
            return None
        here = parent


def helper(argv: list[str]) -> int:
    """Print the matching uuids for `git aide __complete ids [PREFIX]`, one a line; never an error
    (a completion must not print one into the user's command line)."""
    import sys

    if argv[:1] == ["ids"]:
        try:
            ids = memory_ids(argv[1] if len(argv) > 1 else "")
        except OSError:
            ids = []
        sys.stdout.write("".join(f"{uuid}\n" for uuid in ids))
        return 0
    return 2


# -- what the script knows: read from the click group ------------------------------------

class Spec:
    """Hold one command (a group's subcommand is named "group sub") as the script sees it."""

    __slots__ = ("name", "help", "options", "values", "words")

    def __init__(self, name: str, help: str) -> None:
        #: Its name ("semantic fetch" for a subcommand).
        self.name = name
        #: Its first line of help.
        self.help = help
        #: Its options' spellings and their help: (spelling, help).
        self.options: list[tuple[str, str]] = []
        #: What the value of each option taking one is: "text", "ids", "refs", "files"
        #: or "choice A B C", by spelling.
        self.values: dict[str, str] = {}
        #: What its words are: "", "files", "ids", "refs", "choice A B" or "commands A B".
        self.words = ""


def specs(group: click.Group) -> list[Spec]:
    """List every visible command of `group` and of its subgroups, in order (not the
    INTERNAL ones)."""
    import click

    found: list[Spec] = []

    def visit(cmd: click.Command, name: str) -> None:
        spec = Spec(name, _first_line(cmd.get_short_help_str(limit=200)))
        found.append(spec)
        for param in cmd.params:
            if isinstance(param, click.Option):
                if param.hidden:
                    continue
                names = [n for n in (*param.opts, *param.secondary_opts) if _PLAIN.fullmatch(n)]
                spec.options += [(n, _first_line(param.help or "")) for n in names]
                if not param.is_flag and not param.count:
                    kind = _kind(param.type) or _VALUES.get(param.name or "", "text")
                    spec.values.update(dict.fromkeys(names, kind))
            elif isinstance(param, click.Argument) and not spec.words:
                spec.words = _kind(param.type) or _WORDS.get(param.name or "", "")
        if isinstance(cmd, click.Group):
            subs = [(n, c) for n, c in cmd.commands.items() if not c.hidden and _PLAIN.fullmatch(n)]
            spec.words = "commands " + " ".join(n for n, _ in subs)
            for sub, c in subs:
                visit(c, f"{name} {sub}")

    for name, cmd in group.commands.items():
        if not cmd.hidden and name not in INTERNAL and _PLAIN.fullmatch(name):
            visit(cmd, name)
    return found


def _kind(kind: click.ParamType) -> str | None:
    import click

    if isinstance(kind, click.Choice):
        words = [str(c) for c in kind.choices if _PLAIN.fullmatch(str(c))]
        return "choice " + " ".join(words)
    return None


def _first_line(text: str) -> str:
    return " ".join(text.split("\n\n", 1)[0].split()).rstrip(".")


def script(shell: str, group: click.Group) -> str:
    """Make the completion script for `shell` (bash or zsh), with `group`'s commands in it."""
    return (_bash if shell == "bash" else _zsh)(specs(group))


def command() -> click.Command:
    """Build the `completion` command, for main.py's group."""
    import click

    @click.command()
    @click.argument("shell", type=click.Choice(list(SHELLS)))
    def completion(shell: str) -> None:
        """Print the shell completion script for bash or zsh (see the man page)."""
        root = click.get_current_context().find_root().command
        assert isinstance(root, click.Group)
        click.echo(script(shell, root), nl=False)

    return completion


# -- bash ---------------------------------------------------------------------------------

_BASH_HEAD = """\
# bash completion for git-aide: `git aide <TAB>` (git's completion calls _git_aide)
# and `git-aide <TAB>`. Written by `git aide completion bash`; install it as
#   git aide completion bash > ~/.local/share/bash-completion/completions/git-aide
# or add `source <(git aide completion bash)` to ~/.bashrc.

__git_aide_commands="{commands}"

# __git_aide_spec CMD: CMD's options in __git_aide_o, what its words are in __git_aide_w.
__git_aide_spec ()
{{
	case "$1" in
{specs}
	*) __git_aide_o= __git_aide_w= ;;
	esac
}}

# __git_aide_value CMD OPTION: what OPTION's value is in __git_aide_k ("": a flag).
__git_aide_value ()
{{
	case "$1 $2" in
{values}
	*) __git_aide_k= ;;
	esac
}}
"""

_BASH_BODY = r"""
# __git_aide_add WORDS: those of WORDS that start with $cur, as the replies.
__git_aide_add ()
{
	local c IFS=$' \t\n'
	COMPREPLY=()
	for c in $1; do
		case "$c" in
		"$cur"*) COMPREPLY+=("$c ") ;;
		esac
	done
}

# __git_aide_complete KIND: complete $cur as a KIND (see __git_aide_value).
__git_aide_complete ()
{
	local IFS=$'\n'
	case "$1" in
	choice\ *|commands\ *)
		__git_aide_add "${1#* }" ;;
	ids)
		if declare -F __git >/dev/null; then
			__git_aide_add "$(__git aide __complete ids "$cur")"
		else
			__git_aide_add "$(git aide __complete ids "$cur" 2>/dev/null)"
		fi ;;
	refs)
		if declare -F __git_complete_refs >/dev/null; then
			__git_complete_refs --cur="$cur"
		fi ;;
	revs)
		if declare -F __git_complete_revlist >/dev/null; then
			__git_complete_revlist
		fi ;;
	files)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames +o nospace 2>/dev/null || true ;;
	*)
		COMPREPLY=() ;;
	esac
}

_git_aide ()
{
	local i=$(( ${__git_cmd_idx:-1} + 1 )) w cmd= pending= dashdash=
	local __git_aide_o __git_aide_w __git_aide_k
	while [ $i -lt $cword ]; do
		w="${words[i]}"
		if [ -n "$dashdash" ]; then
			:
		elif [ "$w" = "--" ] && [ -n "$cmd" ]; then
			dashdash=1
		elif [ -z "$cmd" ]; then
			case "$w" in -*) ;; *) cmd="$w" ;; esac
		else
			case "$w" in
			--*=*) ;;
			-*)
				__git_aide_value "$cmd" "$w"
				if [ -n "$__git_aide_k" ]; then
					((i++))
					[ $i -eq $cword ] && pending="$__git_aide_k"
				fi ;;
			*)
				__git_aide_spec "$cmd"
				case "$__git_aide_w" in
				"commands "*)
					case " ${__git_aide_w#commands } " in
					*" $w "*) cmd="$cmd $w" ;;
					esac ;;
				esac ;;
			esac
		fi
		((i++))
	done
	if [ -z "$cmd" ]; then
		case "$cur" in
		-*) __git_aide_add "--version -h --help" ;;
		*) __git_aide_add "$__git_aide_commands" ;;
		esac
		return
	fi
	if [ -n "$pending" ]; then
		__git_aide_complete "$pending"
		return
	fi
	__git_aide_spec "$cmd"
	if [ -n "$dashdash" ]; then
		__git_aide_complete files
		return
	fi
	case "$cur" in
	--*=*)
		__git_aide_value "$cmd" "${cur%%=*}"
		cur="${cur#*=}"
		__git_aide_complete "$__git_aide_k" ;;
	-*)
		__git_aide_add "$__git_aide_o" ;;
	*)
		[ "$__git_aide_w" = refs ] && __git_aide_w=revs
		__git_aide_complete "$__git_aide_w" ;;
	esac
}

# `git-aide <TAB>`, without git in front.
__git_aide_standalone ()
{
	local cur words cword prev __git_cmd_idx=0
	if declare -F _get_comp_words_by_ref >/dev/null; then
		_get_comp_words_by_ref -n =: cur words cword prev
	else
		cur="${COMP_WORDS[COMP_CWORD]}" words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	_git_aide
}
complete -o bashdefault -o default -o nospace -F __git_aide_standalone git-aide
"""


def _cases(s: Spec) -> list[tuple[str, str]]:
    """Return, per kind of value, the case pattern of the options of `s` that take it
    ("recall --layer"|"recall --layers") and the kind."""
    by_kind: dict[str, list[str]] = {}
    for opt, kind in s.values.items():
        by_kind.setdefault(kind, []).append(opt)
    return [("|".join(f'"{s.name} {o}"' for o in opts), kind) for kind, opts in by_kind.items()]


def _bash(all_specs: list[Spec]) -> str:
    top = [s.name for s in all_specs if " " not in s.name]
    specs_lines = []
    value_lines = []
    for s in all_specs:
        options = " ".join(n for n, _ in s.options)
        specs_lines.append(f'\t"{s.name}") __git_aide_o="{options}" __git_aide_w="{s.words}" ;;')
        value_lines += [f'\t{pattern}) __git_aide_k="{kind}" ;;' for pattern, kind in _cases(s)]
    return _BASH_HEAD.format(commands=" ".join(top), specs="\n".join(specs_lines),
                             values="\n".join(value_lines)) + _BASH_BODY


# -- zsh ----------------------------------------------------------------------------------

_ZSH_HEAD = """\
#compdef git-aide
#description a git-native memory for AI coding agents
# zsh completion for git-aide: `git aide <TAB>` (git's _git calls _git-aide) and
# `git-aide <TAB>`. Written by `git aide completion zsh`; install it as a file named
# _git-aide in a folder on $fpath (before compinit runs), e.g.
#   git aide completion zsh > ~/.zfunc/_git-aide   # with fpath=(~/.zfunc $fpath) in ~/.zshrc
# or `source <(git aide completion zsh)` after compinit (then `git-aide <TAB>` only).

__git_aide_commands=(
{commands}
)

# __git_aide_spec CMD: CMD's options and their help in __git_aide_o, its words in __git_aide_w.
__git_aide_spec () {{
  case "$1" in
{specs}
  (*) __git_aide_o=() __git_aide_w= ;;
  esac
}}

# __git_aide_value CMD OPTION: what OPTION's value is in __git_aide_k ("": a flag).
__git_aide_value () {{
  case "$1 $2" in
{values}
  (*) __git_aide_k= ;;
  esac
}}
"""

_ZSH_BODY = r"""
# __git_aide_complete KIND: complete the current word as a KIND (see __git_aide_value).
__git_aide_complete () {
  case "$1" in
  (choice\ *|commands\ *)
    local -a choices
    choices=(${=1#* })
    compadd -a choices ;;
  (ids)
    local -a ids
    ids=(${(f)"$(git aide __complete ids "$PREFIX" 2>/dev/null)"})
    compadd -a ids ;;
  (refs)
    if (( $+functions[__git_commit_ranges] )); then __git_commit_ranges; else _default; fi ;;
  (files)
    _files ;;
  (*)
    _default ;;
  esac
}

_git-aide () {
  local cmd= pending= dashdash= w
  local -a __git_aide_o
  local __git_aide_w __git_aide_k
  integer i=2
  while (( i < CURRENT )); do
    w=${words[i]}
    if [[ -n $dashdash ]]; then
      :
    elif [[ $w == -- && -n $cmd ]]; then
      dashdash=1
    elif [[ -z $cmd ]]; then
      [[ $w == -* ]] || cmd=$w
    elif [[ $w == --*=* ]]; then
      :
    elif [[ $w == -* ]]; then
      __git_aide_value "$cmd" "$w"
      if [[ -n $__git_aide_k ]]; then
        (( i++ ))
        (( i == CURRENT )) && pending=$__git_aide_k
      fi
    else
      __git_aide_spec "$cmd"
      if [[ $__git_aide_w == commands\ * && " ${__git_aide_w#commands } " == *" $w "* ]]; then
        cmd="$cmd $w"
      fi
    fi
    (( i++ ))
  done
  if [[ -z $cmd ]]; then
    if [[ $PREFIX == -* ]]; then
      compadd -- --version -h --help
    else
      _describe -t commands 'git aide command' __git_aide_commands
    fi
    return
  fi
  if [[ -n $pending ]]; then
    __git_aide_complete "$pending"
    return
  fi
  __git_aide_spec "$cmd"
  if [[ -n $dashdash ]]; then
    _files
  elif [[ $PREFIX == --*=* ]]; then
    __git_aide_value "$cmd" "${PREFIX%%=*}"
    compset -P '*='
    __git_aide_complete "$__git_aide_k"
  elif [[ $PREFIX == -* ]]; then
    _describe -t options option __git_aide_o
  else
    __git_aide_complete "$__git_aide_w"
  fi
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _git-aide "$@"
elif (( $+functions[compdef] )); then
  compdef _git-aide git-aide
fi
"""


def _zq(text: str) -> str:
    """Put `text` in single quotes for zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


def _described(name: str, help: str) -> str:
    return _zq(f"{name}:{help.replace(':', chr(92) + ':')}" if help else name)


def _zsh(all_specs: list[Spec]) -> str:
    top = [f"  {_described(s.name, s.help)}" for s in all_specs if " " not in s.name]
    specs_lines = []
    value_lines = []
    for s in all_specs:
        options = " ".join(_described(n, h) for n, h in s.options)
        specs_lines.append(f'  ("{s.name}") __git_aide_o=({options}) __git_aide_w="{s.words}" ;;')
        value_lines += [f'  ({pattern}) __git_aide_k="{kind}" ;;' for pattern, kind in _cases(s)]
    return _ZSH_HEAD.format(commands="\n".join(top), specs="\n".join(specs_lines),
                            values="\n".join(value_lines)) + _ZSH_BODY
