"""No new state in module globals (issue 38): what a long-lived process keeps belongs to
an object it owns (warm/state.py's ServerState and what it hands down), with a visible
lifetime, not to a module. A module-level container that starts empty (`{}`, `[]`,
`set()`, a weak dict) or a one-item counter (`[0]`) is filled at run time: state."""

from __future__ import annotations

import ast

from helpers import ROOT

PACKAGE = ROOT / "git_aide"
#: Calls that make an empty container.
EMPTY_CALLS = frozenset(("dict", "list", "set", "defaultdict", "OrderedDict", "deque",
                         "WeakKeyDictionary", "WeakValueDictionary", "WeakSet", "Counter"))
#: Module state that stays where it is: the command line's one pager (a process runs one
#: command and writes one standard output, as sys.stdout is one).
KEPT = {("cli/commands.py", "_pager"), ("cli/commands.py", "_paged")}


def _is_state(value: ast.expr) -> bool:
    """Whether a module-level value is a container filled at run time."""
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.List, ast.Set)):
        return not value.elts or (
            len(value.elts) == 1 and isinstance(value.elts[0], ast.Constant)
            and type(value.elts[0].value) is int)
    if isinstance(value, ast.Call) and not value.args:
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        return name in EMPTY_CALLS
    return False


def state_names(tree: ast.Module) -> list[str]:
    """The names a module's top level binds to a container of state, in order."""
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if _is_state(value):
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def module_state() -> set[tuple[str, str]]:
    """(module path under git_aide/, name) of every module-level container of state."""
    found: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found.update((rel, name) for name in state_names(tree))
    return found


def test_no_module_keeps_new_state() -> None:
    state = module_state()
    outside_warm = {(m, n) for m, n in state if not m.startswith("warm/")}
    new = outside_warm - KEPT
    assert not new, ("module-level state: make it a field of an object its owner "
                     f"creates (warm/ for a long-lived process): {sorted(new)}")


def test_the_scan_finds_what_state_looks_like() -> None:
    source = ("A: dict[str, int] = {}\nB = []\nC = set()\nD = weakref.WeakKeyDictionary()\n"
              "E = [0]\nTABLE = {'a': 1}\nNAMES = ('x',)\nF = [1, 2]\nG: int\n")
    assert state_names(ast.parse(source)) == ["A", "B", "C", "D", "E"]
