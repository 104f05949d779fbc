"""The shape the code keeps (issue 38; docs/architecture.md): modules of one idea, types
that say what a value is, docstrings that open with what a function does, and no pointer
to a document outside the repository. Each check scans git_aide/ as a newcomer reads it."""

from __future__ import annotations

import ast
import re

from helpers import ROOT

PACKAGE = ROOT / "git_aide"
#: The most lines a module has: past ~400 a module is probably two ideas.
MOST_LINES = 500
#: Where a parameter or a return may be typed plain `Any`: the names of decoded JSON,
#: and a stand-in that passes any arguments through to the function it stands for.
ANY_ALLOWED = {("core/jsonvalue.py", "*"), ("cache/analysis.py", "urlretrieve")}
#: First words that make a docstring a noun phrase, not what the function does.
NOUN_OPENINGS = frozenset(("The", "A", "An", "What", "Whether", "Its", "Their", "Each",
                           "Every", "How", "Which", "One", "This", "Where", "When", "All"))


def modules() -> list[tuple[str, str]]:
    """Return (path under git_aide/, source) of every module."""
    return [(p.relative_to(PACKAGE).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_module_is_over_500_lines() -> None:
    long = {rel: n for rel, text in modules() if (n := text.count("\n")) > MOST_LINES}
    assert not long, f"split these by idea: {long}"


def plain_any(tree: ast.Module) -> list[str]:
    """Return the functions whose parameters or return are annotated plain `Any`."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = node.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
        notes = [p.annotation for p in params] + [node.returns]
        if any(isinstance(n, ast.Name) and n.id == "Any" for n in notes):
            out.append(node.name)
    return out


def test_no_plain_any_where_a_type_says_more() -> None:
    found = {(rel, name) for rel, text in modules() for name in plain_any(ast.parse(text))}
    found = {(rel, name) for rel, name in found
             if (rel, name) not in ANY_ALLOWED and (rel, "*") not in ANY_ALLOWED}
    assert not found, ("name the type (a class, a Protocol, a Callable, core/jsonvalue's "
                       f"JSON for decoded JSON): {sorted(found)}")


def test_the_scan_finds_plain_any() -> None:
    tree = ast.parse("def f(x: Any, *, y: int) -> int: ...\n"
                     "def g(x: dict[str, Any]) -> Any: ...\ndef h(x: int) -> int: ...\n")
    assert plain_any(tree) == ["f", "g"]


def test_no_pointer_to_a_section_of_an_outside_document() -> None:
    cited = re.compile(r"DESIGN\.md|\bsection \d|§")
    found = [f"{rel}:{i}" for rel, text in modules()
             for i, line in enumerate(text.splitlines(), 1) if cited.search(line)]
    assert not found, found


def noun_openings(tree: ast.Module) -> list[str]:
    """Return the functions whose docstring opens with a noun phrase."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc and doc.split()[0].strip("`(") in NOUN_OPENINGS:
                out.append(node.name)
    return out


def test_docstrings_open_with_what_the_function_does() -> None:
    found = [f"{rel}: {name}" for rel, text in modules()
             for name in noun_openings(ast.parse(text))]
    assert not found, f"open with the verb (Return, Tell whether, Read, ...): {found}"


def test_the_scan_finds_noun_openings() -> None:
    tree = ast.parse('def f():\n    """The memories of a path."""\n'
                     'def g():\n    """Return the memories of a path."""\n'
                     'def h():\n    """Whether it is."""\n')
    assert noun_openings(tree) == ["f", "h"]
