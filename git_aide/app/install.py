"""`git aide init`: the folders, the ignore and attribute lines, the driver config.

Every step checks before it writes, so running init again changes nothing.
"""

from __future__ import annotations

import os

from git_aide.app.store import PERSONAL_IGNORE
from git_aide.core.errors import AideError
from git_aide.core.files import write_atomic
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR
from git_aide.gitio import folders
from git_aide.gitio.repo import Repo

#: The line init puts in .gitignore.
IGNORE_LINE = PERSONAL_DIR + "/"
#: The line init puts in .gitattributes.
ATTRIBUTE_LINE = MEMORIES_DIR + "/**/*.json merge=aide diff=aide"
#: The line an earlier init wrote, before the textconv diff driver: init upgrades it.
OLD_ATTRIBUTE_LINE = MEMORIES_DIR + "/**/*.json merge=aide"
#: The git config that registers the merge driver (repo-local), key -> value.
DRIVER_CONFIG: dict[str, str] = {
    "merge.aide.name": "git-aide: field-by-field merge of memories",
    "merge.aide.driver": "git-aide merge-driver %O %A %B %L %P",
}
#: The git config that registers the textconv diff driver (repo-local), key -> value.
DIFF_CONFIG: dict[str, str] = {
    "diff.aide.textconv": "git-aide textconv",
}
_FOLDERS = ("area_context", "technical", "preferences/shared", "preferences/personal",
            "guidelines")
def ensure_line(path: str, line: str) -> bool:
    """Append a line to a text file unless it is there already; True when it wrote."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    if line in (x.strip() for x in text.splitlines()):
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    write_atomic(path, (text + line + "\n").encode())
    return True


def replace_line(path: str, old: str, new: str) -> bool:
    """Turn a line that reads exactly `old` into `new` unless `new` is there; True if it wrote."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return False
    lines = text.splitlines(keepends=True)
    stripped = [x.strip() for x in lines]
    if new in stripped or old not in stripped:
        return False
    at = stripped.index(old)
    ending = lines[at][len(lines[at].rstrip("\r\n")):]
    lines[at] = new + (ending or "\n")
    write_atomic(path, "".join(lines).encode())
    return True


def init(repo: Repo, with_hooks: bool = True) -> list[str]:
    """Set a repository up for git-aide; returns what changed (empty when nothing did)."""
    top = repo.require_worktree("init")
    # Checked before anything is made: a folder that leads out of the working tree
    # (a committed symlink, say) would put the folders or the ignore file elsewhere.
    unsafe = folders.problems(top)
    if unsafe:
        raise AideError(unsafe[0][1])
    done: list[str] = []
    for folder in _FOLDERS:
        path = os.path.join(top, MEMORIES_DIR, folder)
        if not os.path.isdir(path):
            os.makedirs(path)
            done.append(f"created {MEMORIES_DIR}/{folder}/")
    personal_ignore = os.path.join(top, PERSONAL_DIR, ".gitignore")
    if not os.path.exists(personal_ignore):
        write_atomic(personal_ignore, PERSONAL_IGNORE.encode())
        done.append(f"created {PERSONAL_DIR}/.gitignore")
    if ensure_line(os.path.join(top, ".gitignore"), IGNORE_LINE):
        done.append(f"added {IGNORE_LINE} to .gitignore")
    attributes = os.path.join(top, ".gitattributes")
    if replace_line(attributes, OLD_ATTRIBUTE_LINE, ATTRIBUTE_LINE):
        done.append(f"changed '{OLD_ATTRIBUTE_LINE}' to '{ATTRIBUTE_LINE}' in .gitattributes")
    elif ensure_line(attributes, ATTRIBUTE_LINE):
        done.append(f"added '{ATTRIBUTE_LINE}' to .gitattributes")
    done += register_driver(repo)
    if with_hooks:
        from git_aide.app import hooks

        done += hooks.install(repo)
    return done


def ignore_problem(repo: Repo) -> tuple[str, str] | None:
    """Return (what hides the shared memory files, the line that stops it) when the ignore
    rules hide them (`*.json` in .gitignore, say; gitio/staging.py), else None: git-aide
    stages its own writes anyway, but `git status` and `git add -A` do not see them."""
    from git_aide.gitio import staging

    found = staging.shared_hidden(repo)
    if not found:
        return None
    where = (f"{MEMORIES_DIR}/**/*.json" if len(found) == len(staging.SHARED) else
             ", ".join(dict.fromkeys(h.path.rsplit("/", 1)[0] + "/" for h in found)))
    return (f"{found[0].rule()} ignores the shared memory files ({where}): git-aide "
            "stages the ones it writes anyway, but `git status` and `git add` do not "
            "see them", staging.fix(repo, found))


def register_driver(repo: Repo) -> list[str]:
    """Set merge.aide.* and diff.aide.* in the repo's own config unless they are so already."""
    done: list[str] = []
    for key, value in {**DRIVER_CONFIG, **DIFF_CONFIG}.items():
        now = repo.git("config", "--local", "--get", key, check=False).stdout.decode()
        if now.rstrip("\n") != value:
            repo.git("config", "--local", key, value)
            done.append(f"set git config {key} = {value}")
    return done


def unregister_driver(repo: Repo) -> list[str]:
    """Remove the merge driver's and the textconv's config (merge.aide.*, diff.aide.*)."""
    return (_unset(repo, "merge.aide", DRIVER_CONFIG)
            + _unset(repo, "diff.aide", DIFF_CONFIG))


def _unset(repo: Repo, section: str, config: dict[str, str]) -> list[str]:
    """Remove `config`'s keys; the section too if nothing else is in it."""
    done: list[str] = []
    for key in config:
        if repo.git("config", "--local", "--unset-all", key, check=False).returncode == 0:
            done.append(f"removed git config {key}")
    rest = repo.git("config", "--local", "--get-regexp", "^" + section.replace(".", r"\.")
                    + r"\.", check=False)
    if done and not rest.stdout.strip():
        # `--unset` leaves an empty [merge "aide"] header behind.
        repo.git("config", "--local", "--remove-section", section, check=False)
    return done


def uninstall(repo: Repo) -> list[str]:
    """Undo what init set up outside the files: the driver config and the hook blocks."""
    from git_aide.app import hooks

    return unregister_driver(repo) + hooks.uninstall(repo)
