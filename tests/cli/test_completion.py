"""Shell completion: `git aide completion bash|zsh`, driven by the real shells through
git's own completion (bash's __git_main calls _git_aide; zsh's _git calls _git-aide), in
a real repository with memories."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import BASE_ENV, aide, aide_ok, git, make_repo, remember

from git_aide.cli.option_table import COMMANDS as HOT

LAYERS = ["area_context", "technical", "preferences", "guidelines"]


def _bash_git_completion() -> Path | None:
    for candidate in ("/usr/share/bash-completion/completions/git", "/etc/bash_completion.d/git",
                      "/usr/share/git/completion/git-completion.bash",
                      "/usr/local/share/bash-completion/completions/git",
                      "/opt/homebrew/share/bash-completion/completions/git"):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def _zsh_git_completion() -> bool:
    zsh = shutil.which("zsh")
    if zsh is None:
        return False
    found = subprocess.run([zsh, "-f", "-c", "print -rl -- $^fpath/_git(N)"],
                           capture_output=True, text=True, check=False).stdout
    return bool(found.strip())


@pytest.fixture
def memories(tmp_path: Path) -> tuple[Path, list[str]]:
    """A repository with three memories (one personal) and a file src/app.py."""
    repo = make_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    ids = [remember(repo, "Tokens are rotated hourly", "--layer", "area_context",
                    "--scope", "src/**")["uuid"],
           remember(repo, "Use tabs", "--layer", "preferences", "--personal")["uuid"],
           remember(repo, "Postgres 16")["uuid"]]
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    return repo, ids


# -- bash ---------------------------------------------------------------------------------

BASH_DRIVER = r"""
[ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
. "$1"
. "$2"
shift 2
for line in "$@"; do
	COMP_LINE="$line" COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMPREPLY=()
	case "$line" in
	git-aide*) __git_aide_standalone ;;
	*) __git_wrap__git_main ;;
	esac 2>/dev/null
	printf '=== %s\n' "$line"
	printf '%s\n' "${COMPREPLY[@]}"
done
"""


def _split(out: str, lines: list[str]) -> dict[str, list[str]]:
    got: dict[str, list[str]] = {}
    current = None
    for row in out.splitlines():
        if row.startswith("=== "):
            current = row[4:].rstrip()
            got[current] = []
        elif current is not None and row:
            got[current].append(row)
    assert list(got) == [line.rstrip() for line in lines], out
    return got


def bash_complete(repo: Path, *lines: str) -> dict[str, list[str]]:
    """What bash's completion of git (COMPREPLY) offers for each command line."""
    git_completion = _bash_git_completion()
    if shutil.which("bash") is None or git_completion is None:
        pytest.skip("needs bash and git's bash completion (apt-get install bash-completion)")
    script = repo.parent / "git-aide.bash"
    script.write_text(aide_ok(repo, "completion", "bash").stdout)
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", BASH_DRIVER, "driver",
                           str(git_completion), str(script), *lines],
                          cwd=repo, capture_output=True, text=True, env=BASE_ENV, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return _split(proc.stdout, list(lines))


@pytest.mark.quick
def test_bash_completes_commands_options_and_layers(memories: tuple[Path, list[str]]) -> None:
    repo, _ = memories
    got = bash_complete(repo, "git aide rec", "git aide recall --la", "git aide recall --layer ",
                        "git aide recall --layer=te", "git aide init --agent cl",
                        "git aide semantic ", "git-aide rem", "git ai")
    assert got["git aide rec"] == ["recall "]
    assert got["git aide recall --la"] == ["--layer "]
    assert got["git aide recall --layer"] == [f"{layer} " for layer in LAYERS]
    assert got["git aide recall --layer=te"] == ["technical "]
    assert got["git aide init --agent cl"] == ["claude "]
    assert got["git aide semantic"] == ["fetch ", "status "]
    assert got["git-aide rem"] == ["remember "]
    assert "aide " in got["git ai"]  # git's own list, which then hands over to _git_aide


def test_bash_completes_memory_ids(memories: tuple[Path, list[str]]) -> None:
    repo, ids = memories
    prefix = ids[0][:3]
    got = bash_complete(repo, f"git aide forget {prefix}", "git aide show ",
                        "git aide update --layer technical ", "git aide log --uuid ",
                        "git aide forget zzzz")
    assert got[f"git aide forget {prefix}"] == sorted(f"{u} " for u in ids if u.startswith(prefix))
    every = sorted(f"{u} " for u in ids)
    assert got["git aide show"] == every  # the personal memory too
    assert got["git aide update --layer technical"] == every
    assert got["git aide log --uuid"] == every
    assert got["git aide forget zzzz"] == []


def test_bash_completes_paths_and_revisions(memories: tuple[Path, list[str]]) -> None:
    repo, _ = memories
    got = bash_complete(repo, "git aide recall sr", "git aide recall src/a", "git aide import sr",
                        "git aide log -- sr", "git aide diff ma")
    assert got["git aide recall sr"] == ["src"]
    assert got["git aide recall src/a"] == ["src/app.py"]
    assert got["git aide import sr"] == ["src"]
    assert got["git aide log -- sr"] == ["src"]
    assert got["git aide diff ma"] == ["main "]


def test_bash_offers_no_command_meant_for_git_or_agents(memories: tuple[Path, list[str]]
                                                      ) -> None:
    """merge-driver, textconv (git runs them), hook and mcp (agents run them) are not
    offered; every other command is."""
    from git_aide.cli.completion import INTERNAL
    from git_aide.cli.main import main

    repo, _ = memories
    got = bash_complete(repo, "git aide ", "git aide mer", "git aide tex", "git aide hoo",
                        "git aide mc", "git-aide ")
    offered = {w.strip() for w in got["git aide"]}
    assert offered == set(main.commands) - INTERNAL
    assert {w.strip() for w in got["git-aide"]} == offered
    for line in ("git aide mer", "git aide tex", "git aide hoo", "git aide mc"):
        assert got[line] == [], line


def test_the_internal_commands_are_commands() -> None:
    """INTERNAL names real commands (a renamed one would be offered again unnoticed), and
    they stay in -h and the manual."""
    from git_aide.cli.completion import INTERNAL, specs
    from git_aide.cli.main import main

    assert INTERNAL <= set(main.commands)
    assert not INTERNAL & {s.name.split()[0] for s in specs(main)}


def test_bash_offers_every_option_of_the_hot_table(memories: tuple[Path, list[str]]) -> None:
    """The options come from the commands themselves (option_table.py's table for the hot ones)."""
    repo, _ = memories
    lines = [f"git aide {name} --" for name in HOT] + ["git aide remember --"]
    got = bash_complete(repo, *lines)
    for name, hot in HOT.items():
        want = {f"{n} " for opt in hot.options for n in opt.names if n.startswith("--")}
        assert set(got[f"git aide {name} --"]) == want, name
    assert "--personal " in got["git aide remember --"]
    assert "--no-stage " in got["git aide remember --"]


# -- zsh ----------------------------------------------------------------------------------

ZSH_DRIVER = r"""
# zsh -f driver FPATH_DIR OUT LINE...: each LINE completed (TAB) by zsh's own completion
# (compinit, git's _git) in an interactive zsh on a pseudo-terminal; OUT gets the matches
# of each after a line "=== LINE".
zmodload zsh/zpty
fdir=$1 out=$2; shift 2
integer n=0
wait_for () {
  local i
  for i in {1..400}; do
    (( $(grep -c '^===' $out) >= $1 )) && return 0
    sleep 0.05
  done
  print -u2 "timed out"; exit 1
}
: > $out
zpty z zsh -f -i
zpty -w z "fpath=($fdir \$fpath); autoload -U compinit; compinit -u -D; unsetopt beep"
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __hits
  builtin compadd -A __hits "$@"
  (( $#__hits )) && print -rl -- $__hits >> '$out'
  builtin compadd "$@"
}'
zpty -w z '__done () { zle complete-word; print -r -- "=== done" >> '$out'; BUFFER=; }'
zpty -w z "zle -N __done; bindkey '^X' __done; print -r -- '=== ready' >> $out"
wait_for $(( ++n ))
for line in "$@"; do
  print -r -- "=== $line" >> $out
  (( n++ ))
  zpty -wn z "$line"$'\C-x'
  wait_for $(( ++n ))
done
zpty -d z
"""


def zsh_complete(repo: Path, *lines: str) -> dict[str, list[str]]:
    """The matches zsh's completion of git adds for each command line."""
    if not _zsh_git_completion():
        pytest.skip("needs zsh and its completion functions (apt-get install zsh)")
    fdir = repo.parent / "zfunc"
    fdir.mkdir()
    (fdir / "_git-aide").write_text(aide_ok(repo, "completion", "zsh").stdout)
    out = repo.parent / "zsh-matches"
    proc = subprocess.run(["zsh", "-f", "-c", ZSH_DRIVER, "driver", str(fdir), str(out), *lines],
                          cwd=repo, capture_output=True, text=True, env=BASE_ENV, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    got: dict[str, list[str]] = {}
    current = None
    for row in text.splitlines():
        if row in ("=== ready", "=== done"):
            continue
        if row.startswith("=== "):
            current = row[4:].rstrip()
            got[current] = []
        elif current is not None and row:
            got[current].append(row)
    assert list(got) == [line.rstrip() for line in lines], text
    return got


def test_zsh_completes_through_git(memories: tuple[Path, list[str]]) -> None:
    repo, ids = memories
    prefix = ids[0][:3]
    got = zsh_complete(repo, "git ai", "git aide rec", "git aide recall --la",
                       "git aide recall --layer ", "git aide recall --layer=te",
                       f"git aide forget {prefix}", "git aide show ", "git aide recall sr",
                       "git-aide rec")
    assert "aide" in got["git ai"]
    assert got["git aide rec"] == ["recall"]
    assert got["git aide recall --la"] == ["--layer"]
    assert sorted(got["git aide recall --layer"]) == sorted(LAYERS)
    assert got["git aide recall --layer=te"] == ["technical"]
    assert got[f"git aide forget {prefix}"] == sorted(u for u in ids if u.startswith(prefix))
    assert sorted(got["git aide show"]) == sorted(ids)
    assert got["git aide recall sr"] == ["src"]
    assert got["git-aide rec"] == ["recall"]


def test_zsh_offers_no_command_meant_for_git_or_agents(memories: tuple[Path, list[str]]
                                                     ) -> None:
    repo, _ = memories
    got = zsh_complete(repo, "git aide mer", "git aide tex", "git aide hoo", "git aide mc",
                       "git aide re")
    for line in ("git aide mer", "git aide tex", "git aide hoo", "git aide mc"):
        assert got[line] == [], line
    assert sorted(got["git aide re"]) == ["recall", "remember", "resolve"]


# -- the helper and the command ------------------------------------------------------------

def test_complete_ids_outside_a_repository_prints_nothing(tmp_path: Path) -> None:
    r = aide(tmp_path, "__complete", "ids", "ab")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_complete_ids_holds_the_user_stores_too(tmp_path: Path, repo: Path,
                                                user_store: dict[str, str]) -> None:
    here = remember(repo, "auth tokens rotate")["uuid"]
    mine = aide_ok(repo, "remember", "I like terse answers", "--user", "--json",
                   env=user_store).json()["uuid"]
    r = aide(repo, "__complete", "ids", env=user_store)
    assert r.stdout.split() == sorted([here, mine])
    r = aide(tmp_path, "__complete", "ids", env=user_store)  # outside a repository
    assert r.stdout.split() == [mine]


def test_completion_refuses_an_unknown_shell(tmp_path: Path) -> None:
    r = aide(tmp_path, "completion", "fish")
    assert r.returncode == 2
    assert "fish" in r.stderr


def test_bash_completes_map_folders_pages_and_options(memories: tuple[Path, list[str]]) -> None:
    repo, _ = memories
    got = bash_complete(repo, "git aide ma", "git aide map sr", "git aide map --de",
                        "git aide map --html sr", "git aide map --rev ma")
    assert got["git aide ma"] == ["map "]
    assert got["git aide map sr"] == ["src"]
    assert got["git aide map --de"] == ["--depth "]
    assert got["git aide map --html sr"] == ["src"]
    assert got["git aide map --rev ma"] == ["main "]
