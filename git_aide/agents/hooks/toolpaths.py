"""Which files an agent's tool call is about: a file tool's path, the files of a Codex or
VS Code `apply_patch`, Gemini's `read_many_files` paths and globs, and the files a shell
command reads (`cat`, `sed -n`, `rg` ...), so that a hook can recall their memories.

Read liberally and bounded: an unknown tool or a command this module cannot follow
yields no path, never an error, and no event names more than MAX_EVENT_PATHS files.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

#: Where a file tool names its file, across the agents' tools (Claude Code and Cursor
#: `file_path`, Gemini CLI `file_path`/`absolute_path`/`dir_path`, VS Code `filePath`,
#: Copilot CLI `path`, Claude's notebooks `notebook_path`).
PATH_KEYS = ("file_path", "absolute_path", "filePath", "path", "target_file", "notebook_path",
              "dir_path", "dirPath")
#: The shell tools, whose command is read for the files it reads.
SHELL_TOOLS = frozenset({"Bash", "bash", "Shell", "shell", "run_shell_command",
                          "run_in_terminal", "exec_command", "shell_command", "local_shell"})
#: The most files one event is about: a `read_many_files` or a long command names many.
MAX_EVENT_PATHS = 16
#: The most characters of a patch or a command read for the files they name.
MAX_PATCH_CHARS = 1 << 20
#: git-aide's own MCP tools that return memories (the agent fetched those itself).
AIDE_READS = ("aide_recall", "aide_search", "aide_memories", "aide_diff", "aide_log")


def tool_paths(data: JSONObject) -> list[str]:
    """Return the files (and folders) the tool of a tool event reads or writes, as absolute
    paths, at most MAX_EVENT_PATHS: a file tool's path, the files of an `apply_patch`,
    `read_many_files`' paths and globs (a glob stands for its leading folder), and the
    files a shell command reads. Nothing is run: commands are only read."""
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        return []
    name = str(data.get("tool_name") or "")
    if aide_tool(name, data, everything=True):
        return []  # the agent is asking git-aide itself
    cwd = data.get("cwd")
    base = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd()
    shell = name in SHELL_TOOLS
    found: list[str] = []
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and not (shell and key in ("dir_path", "dirPath")):
            found.append(absolute(value, base, glob=False))
    for key in ("files", "paths", "include"):
        values = tool_input.get(key)
        if isinstance(values, str):
            values = [values]
        if isinstance(values, list) and (key != "include" or name == "read_many_files"):
            found += [absolute(v, base, glob=True) for v in values[:64] if isinstance(v, str)]
    replacements = tool_input.get("replacements")  # VS Code's multi_replace_string_in_file
    if isinstance(replacements, list):
        found += [absolute(r["filePath"], base, glob=False) for r in replacements[:64]
                  if isinstance(r, dict) and isinstance(r.get("filePath"), str)]
    patch = next((v for k in ("command", "input", "patch") if isinstance(v := tool_input.get(k),
                  str) and v.lstrip().startswith("*** Begin Patch")), None)
    if patch is not None:
        found += [absolute(p, base, glob=False) for p in patch_paths(patch)]
    elif shell:
        folder = tool_input.get("dir_path") or tool_input.get("workdir")
        if isinstance(folder, str) and folder:
            base = os.path.join(base, folder)
        found += shell_paths(tool_input.get("command"), base)
    out: list[str] = []
    for path in found:
        if path and path not in out:
            out.append(path)
    return out[:MAX_EVENT_PATHS]


def absolute(raw: str, base: str, glob: bool) -> str:
    """Return `raw` made absolute against `base`; a glob stands for its leading folder; "" for
    what names no path of ours (`-`, `~/...`, a variable)."""
    raw = raw.strip()
    if not raw or raw == "-" or raw.startswith("~") or any(c in raw for c in "$`\0\n"):
        return ""
    if glob and any(c in raw for c in "*?["):
        head: list[str] = []
        for part in raw.replace("\\", "/").split("/"):
            if any(c in part for c in "*?[{"):
                break
            head.append(part)
        if not any(head):
            return ""  # `**/*.py`: the whole tree, not a place
        raw = "/".join(head) or "/"
    return os.path.normpath(os.path.join(base, raw))


def patch_paths(patch: str) -> list[str]:
    """Return the files an `apply_patch` adds, updates, deletes or moves to (`*** Update File:
    path`, `*** Move to: path`), as written in the patch."""
    out: list[str] = []
    for line in patch[:MAX_PATCH_CHARS].splitlines():
        line = line.strip()
        for mark in ("*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"):
            if line.startswith(mark):
                path = line[len(mark):].strip()
                if path and path not in out:
                    out.append(path)
                    if len(out) >= MAX_EVENT_PATHS:
                        return out
    return out


#: The shells whose `-c SCRIPT` is read in turn (Codex runs `bash -lc "..."`).
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
#: Words that run the command after them.
_WRAPPERS = frozenset({"sudo", "command", "builtin", "exec", "nice", "nohup", "time", "env"})
#: The characters of shell operators: a run of them ends a simple command, unless it is
#: a redirection (`<`, `>`, `2>&`...), whose target word is skipped.
_OPERATOR_CHARS = frozenset("();<>|&")
#: The commands that read the files they are given: (options that take a value,
#: operands before the files, the options that give that operand instead).
_NO_VALUE: frozenset[str] = frozenset()
_LINES = frozenset({"-n", "-c", "--lines", "--bytes"})
_GREP = frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file",
                   "--max-count", "--after-context", "--before-context", "--context",
                   "--include", "--exclude", "--exclude-dir", "--label", "--color", "--colour",
                   "--binary-files", "--devices", "--directories", "-G", "--ignore-dir"})
_LISTS = frozenset({"-I", "--ignore", "-w", "--width", "-T", "--tabsize", "-L", "-P",
                    "--level", "--sort", "--format", "--time-style", "--block-size",
                    "--charset", "-o"})
_PATTERN_OPTIONS = frozenset({"-e", "-f", "--regexp", "--file"})
_READERS: dict[str, tuple[frozenset[str], int, frozenset[str]]] = {
    **dict.fromkeys(("cat", "tac", "wc", "realpath", "readlink"), (_NO_VALUE, 0, _NO_VALUE)),
    **dict.fromkeys(("less", "more"), (frozenset({"-x", "-y", "-b", "-h", "-j", "-p", "-P",
                                                  "-t", "-T", "-z", "-o", "-O"}), 0,
                                       _NO_VALUE)),
    **dict.fromkeys(("bat", "batcat"), (frozenset({
        "-l", "--language", "-r", "--line-range", "-H", "--highlight-line", "--style",
        "--theme", "--tabs", "-m", "--map-syntax", "--wrap", "--terminal-width", "--color",
        "--decorations", "--paging", "--pager", "--file-name"}), 0, _NO_VALUE)),
    "stat": (frozenset({"-c", "--format", "--printf"}), 0, _NO_VALUE),
    "file": (frozenset({"-m", "-f", "-F", "-e", "-P"}), 0, _NO_VALUE),
    "xxd": (frozenset({"-l", "-s", "-c", "-g", "-o"}), 0, _NO_VALUE),
    "od": (frozenset({"-j", "-N", "-t", "-A", "-w"}), 0, _NO_VALUE),
    "strings": (frozenset({"-n", "-t", "-e"}), 0, _NO_VALUE),
    "hexdump": (frozenset({"-n", "-s", "-e", "-f"}), 0, _NO_VALUE),
    "head": (_LINES, 0, _NO_VALUE),
    "tail": (_LINES | {"-s", "--pid", "--sleep-interval"}, 0, _NO_VALUE),
    "nl": (frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"}), 0,
           _NO_VALUE),
    "sed": (frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"}), 1,
            frozenset({"-e", "-f", "--expression", "--file"})),
    "awk": (frozenset({"-f", "-v", "-F", "--file", "--assign", "--field-separator"}), 1,
            frozenset({"-f", "--file"})),
    **dict.fromkeys(("grep", "egrep", "fgrep", "ag", "ack"), (_GREP, 1, _PATTERN_OPTIONS)),
    "rg": (frozenset({"-e", "-f", "-g", "--glob", "--iglob", "-t", "--type", "-T",
                      "--type-not", "-m", "--max-count", "-A", "-B", "-C", "--after-context",
                      "--before-context", "--context", "-M", "--max-columns", "-j",
                      "--threads", "-E", "--encoding", "--type-add", "--sort", "--sortr",
                      "-r", "--replace", "--max-depth", "-d", "--max-filesize",
                      "--path-separator", "--color", "--colors", "--pre", "--pre-glob",
                      "--engine", "--regexp", "--file"}),
           1, _PATTERN_OPTIONS | {"--files"}),
    **dict.fromkeys(("ls", "tree", "exa", "eza", "du"), (_LISTS, 0, _NO_VALUE)),
}
#: Words and tokens read per command at most: a hook reads a command, it does not audit
#: a script.
_MAX_TOKENS = 4000


def shell_paths(command: JSON, cwd: str) -> list[str]:
    """Return the files (and folders) a shell command reads with the common read commands
    (`cat`, `sed -n`, `head`, `tail`, `less`, `nl`, `rg`/`grep` with a path, `ls`, ...),
    as absolute paths that exist: pipes, `&&`, `;`, quotes and `cd DIR &&` are followed,
    `bash -lc "..."` is read in turn. Nothing is executed."""
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        found: list[str] = []
        _simple(list(command), [cwd], found, 0)
        return found
    if not isinstance(command, str):
        return []
    found = []
    _script(command, cwd, found, 0)
    return found


def _script(text: str, cwd: str, found: list[str], depth: int) -> None:
    import shlex

    # a newline ends a command as `;` does; inside quotes it only changes a word
    text = text[:65536].replace("\\\n", "").replace("\n", " ; ")
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    tokens: list[str] = []
    try:
        for token in lex:
            tokens.append(token)
            if len(tokens) >= _MAX_TOKENS:
                break
    except ValueError:  # an unclosed quote: read the words as they stand
        tokens = text.split()[:_MAX_TOKENS]
    here = [cwd]
    words: list[str] = []
    skip = False
    for token in tokens:
        if skip:
            skip = False
            continue
        if token in ("{", "}") or (token and set(token) <= _OPERATOR_CHARS
                                   and not set(token) & set("<>")):
            _simple(words, here, found, depth)
            words = []
        elif token and set(token) <= _OPERATOR_CHARS:
            skip = not token.endswith(("(", ")"))  # a redirection: its target follows
        else:
            words.append(token)
    _simple(words, here, found, depth)


def _simple(argv: list[str], here: list[str], found: list[str], depth: int) -> None:
    """Read one simple command: `cd` moves `here[0]` for the commands after it; a reader's files go
    into `found`."""
    import re

    while argv and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]) or argv[0] in _WRAPPERS):
        argv = argv[1:]
    if not argv:
        return
    name = os.path.basename(argv[0])
    args = argv[1:]
    if name in ("cd", "pushd"):
        target = next((a for a in args if not a.startswith("-")), None)
        if target is not None:
            folder = absolute(target, here[0], glob=False)
            if folder and os.path.isdir(folder):
                here[0] = folder
        return
    if name in _SHELLS and depth < 2:
        for i, a in enumerate(args):
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:] and i + 1 < len(args):
                _script(args[i + 1], here[0], found, depth + 1)
                return
        return
    if name == "find":
        operands = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            operands.append(a)
        _keep(operands, here[0], found)
        return
    spec = _READERS.get(name)
    if spec is None:
        return
    takes_value, leading, gives_leading = spec
    operands = []
    given = False
    options = True
    i = 0
    while i < len(args):
        a = args[i]
        if options and a == "--":
            options = False
        elif options and a.startswith("-") and a != "-":
            option = a.split("=", 1)[0]
            given = given or option in gives_leading
            if "=" not in a and option in takes_value:
                i += 1  # its value
        else:
            operands.append(a)
        i += 1
    _keep(operands[0 if given else leading:], here[0], found)


def _keep(operands: list[str], cwd: str, found: list[str]) -> None:
    for a in operands:
        if len(found) >= MAX_EVENT_PATHS:
            return
        path = absolute(a, cwd, glob=True)
        if path and path not in found and os.path.exists(path):
            found.append(path)


def aide_tool(name: str, data: JSONObject, everything: bool = False) -> bool:
    """Tell whether a tool is one of git-aide's MCP tools that return memories (or any of its
    tools, `everything`), whatever the agent calls it: `mcp__git-aide__aide_recall`
    (Claude Code, Codex), `mcp_git-aide_aide_recall` (Gemini CLI), `git-aide/aide_recall`."""
    context = data.get("mcp_context")  # Gemini CLI names the server and the tool apart
    if isinstance(context, dict) and isinstance(context.get("tool_name"), str):
        name = context["tool_name"]
    tools = AIDE_READS if not everything else ("aide_",)
    for tool in tools:
        at = name.rfind(tool)
        if at >= 0 and (everything or at + len(tool) == len(name)) and (
                at == 0 or name[at - 1] in "_/.-:"):
            return True
    return False
