"""The junk of bench/gate drawn at run time: machine output of 37 kinds (stack traces,
diffs and patches, git's output, listings of files, tools' output), from templates and a
seed, each pasted as an agent pastes it a third of the time (`framed`). run.py reads it.

Longer than most modules: it is one table of small templates, which split in files
would only be harder to read side by side.
"""

from __future__ import annotations

import random

MODULES = ("billing", "auth", "orders", "search", "export", "ledger", "webhooks", "users",
           "sessions", "invoices", "reports", "cache", "queue", "storage", "payments")
VERBS = ("load", "save", "parse", "render", "fetch", "handle", "validate", "resolve",
         "dispatch", "build", "flush", "apply", "sync", "encode", "lookup")
NOUNS = ("config", "request", "response", "record", "token", "payload", "row", "event",
         "batch", "item", "session", "order", "user", "job", "entry")
AUTHORS = (("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.org"),
           ("Linus Torvalds", "linus@example.net"), ("Margaret Hamilton", "mh@example.com"))
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
SUBJECTS = ("fix the retry loop in the {m} worker", "add {n} validation to {m}",
            "bump dependencies", "refactor {m}: split {v}_{n} into two steps",
            "{m}: handle an empty {n}", "docs: explain the {m} settings",
            "tests: cover {v}_{n} with a real database", "revert \"{m}: cache every {n}\"",
            "Merge pull request #{i} from team/{m}-{n}", "release {a}.{b}.{c}")


class Draw:
    """Seeded random pieces of machine output."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, seq: tuple[str, ...]) -> str:
        return self.rng.choice(seq)

    def n(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def hexid(self, n: int = 40) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def func(self) -> str:
        return f"{self.pick(VERBS)}_{self.pick(NOUNS)}"

    def camel(self) -> str:
        return self.pick(VERBS) + self.pick(NOUNS).capitalize()

    def cls(self) -> str:
        return self.pick(MODULES).capitalize() + self.pick(NOUNS).capitalize()

    def path(self, ext: str, root: str = "src") -> str:
        depth = self.n(0, 2)
        folders = [self.pick(MODULES) for _ in range(depth)]
        return "/".join([root, *folders, f"{self.pick(VERBS)}_{self.pick(NOUNS)}.{ext}"])

    def date(self) -> str:
        return (f"{self.pick(DAYS)} {self.pick(MONTHS)} {self.n(1, 28)} "
                f"{self.n(0, 23):02}:{self.n(0, 59):02}:{self.n(0, 59):02} 20{self.n(18, 26)} "
                f"{self.pick(('+0000', '+0200', '-0500'))}")

    def subject(self) -> str:
        return self.pick(SUBJECTS).format(m=self.pick(MODULES), n=self.pick(NOUNS),
                                          v=self.pick(VERBS), i=self.n(10, 999),
                                          a=self.n(0, 4), b=self.n(0, 20), c=self.n(0, 9))


# -- stack traces ------------------------------------------------------------------------

def python_traceback(d: Draw) -> str:
    lines = ["Traceback (most recent call last):"]
    for _ in range(d.n(2, 6)):
        lines += [f'  File "/app/{d.path("py", d.pick(MODULES))}", line {d.n(1, 900)}, '
                  f"in {d.func()}", f"    {d.func()}(self.{d.pick(NOUNS)})"]
    exc = d.pick(("KeyError: 'user_id'", "ValueError: invalid literal for int() with base "
                  "10: 'abc'", "AttributeError: 'NoneType' object has no attribute 'id'",
                  "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
                  "sqlalchemy.exc.IntegrityError: duplicate key value violates unique "
                  "constraint", "ModuleNotFoundError: No module named 'yaml'"))
    if d.n(0, 3) == 0:
        lines = [f"ERROR:{d.pick(MODULES)}:{d.func()} failed", *lines]
    return "\n".join([*lines, exc])


def java_trace(d: Draw) -> str:
    pkg = f"com.example.{d.pick(MODULES)}"
    lines = [d.pick((f'Exception in thread "main" java.lang.IllegalStateException: '
                     f"{d.pick(NOUNS)} is closed",
                     f"java.lang.NullPointerException: Cannot invoke \"{pkg}.{d.cls()}."
                     f"{d.camel()}()\" because \"{d.pick(NOUNS)}\" is null",
                     f"org.springframework.beans.factory.BeanCreationException: Error "
                     f"creating bean with name '{d.camel()}'"))]
    for _ in range(d.n(3, 8)):
        c = d.cls()
        lines.append(f"\tat {pkg}.{c}.{d.camel()}({c}.java:{d.n(10, 500)})")
    if d.n(0, 1):
        lines += [f"Caused by: java.io.IOException: {d.pick(NOUNS)} not found",
                  f"\tat {pkg}.{d.cls()}.{d.camel()}({d.cls()}.java:{d.n(10, 500)})",
                  f"\t... {d.n(3, 40)} more"]
    return "\n".join(lines)


def js_trace(d: Draw) -> str:
    lines = [d.pick((f"TypeError: Cannot read properties of undefined (reading '{d.pick(NOUNS)}')",
                     f"Error: ENOENT: no such file or directory, open '/app/{d.pick(NOUNS)}.json'",
                     f"ReferenceError: {d.camel()} is not defined",
                     "UnhandledPromiseRejection: This error originated either by throwing "
                     "inside of an async function"))]
    for _ in range(d.n(2, 7)):
        where = d.pick((f"/app/{d.path('js')}", f"file:///home/dev/app/{d.path('mjs')}",
                        f"node:internal/{d.pick(('modules/cjs/loader', 'process/task_queues'))}",
                        f"webpack:///./{d.path('ts')}"))
        at = d.pick((f"{d.camel()} (", f"async {d.cls()}.{d.camel()} (", "Object.<anonymous> (",
                     ""))
        end = ")" if at else ""
        lines.append(f"    at {at}{where}:{d.n(1, 400)}:{d.n(1, 80)}{end}")
    return "\n".join(lines)


def go_panic(d: Draw) -> str:
    lines = [d.pick(("panic: runtime error: invalid memory address or nil pointer dereference",
                     "panic: runtime error: index out of range [3] with length 3",
                     f"panic: {d.pick(NOUNS)} already closed")), ""]
    if d.n(0, 1):
        lines.insert(1, "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]")
    lines.append(f"goroutine {d.n(1, 90)} [running]:")
    for _ in range(d.n(2, 6)):
        lines += [f"github.com/acme/{d.pick(MODULES)}.({d.cls()}).{d.camel().capitalize()}"
                  f"(0xc000{d.hexid(6)})",
                  f"\t/go/src/github.com/acme/{d.path('go', d.pick(MODULES))}:{d.n(5, 700)} "
                  f"+0x{d.hexid(3)}"]
    lines.append(f"exit status {d.n(1, 2)}")
    return "\n".join(lines)


def rust_panic(d: Draw) -> str:
    lines = [f"thread 'main' panicked at src/{d.pick(MODULES)}.rs:{d.n(1, 300)}:{d.n(1, 60)}:",
             d.pick(("called `Option::unwrap()` on a `None` value",
                     "index out of bounds: the len is 3 but the index is 7",
                     f"called `Result::unwrap()` on an `Err` value: {d.cls()}Error")),
             "stack backtrace:"]
    for i in range(d.n(3, 8)):
        lines += [f"  {i:2}: {d.pick(MODULES)}::{d.func()}",
                  f"             at ./src/{d.pick(MODULES)}.rs:{d.n(1, 300)}:{d.n(1, 60)}"]
    lines.append("note: Some details are omitted, run with `RUST_BACKTRACE=full` for a "
                 "verbose backtrace.")
    return "\n".join(lines)


def ruby_trace(d: Draw) -> str:
    lines = [f"/app/{d.path('rb', 'app')}:{d.n(1, 200)}:in `{d.func()}': undefined method "
             f"`{d.func()}' for nil:NilClass (NoMethodError)"]
    for _ in range(d.n(2, 6)):
        lines.append(f"\tfrom /app/{d.path('rb', 'lib')}:{d.n(1, 200)}:in `{d.func()}'")
    return "\n".join(lines)


def dotnet_trace(d: Draw) -> str:
    ns = f"Acme.{d.pick(MODULES).capitalize()}"
    lines = ["System.InvalidOperationException: Sequence contains no elements"]
    for _ in range(d.n(2, 6)):
        c = d.cls()
        lines.append(f"   at {ns}.{c}.{d.camel().capitalize()}(String {d.pick(NOUNS)}) in "
                     f"C:\\src\\{ns}\\{c}.cs:line {d.n(10, 400)}")
    if d.n(0, 1):
        lines.append("--- End of stack trace from previous location ---")
        lines.append(f"   at {ns}.Program.Main(String[] args) in C:\\src\\Program.cs:line 12")
    return "\n".join(lines)


def php_trace(d: Draw) -> str:
    lines = [f"PHP Fatal error:  Uncaught Error: Call to a member function {d.camel()}() on "
             f"null in /var/www/{d.path('php', 'app')}:{d.n(1, 300)}", "Stack trace:"]
    for i in range(d.n(2, 5)):
        lines.append(f"#{i} /var/www/{d.path('php', 'app')}({d.n(1, 300)}): "
                     f"{d.cls()}->{d.camel()}()")
    lines.append(f"#{i + 1} {{main}}")
    return "\n".join(lines)


def gdb_backtrace(d: Draw) -> str:
    lines = ["Program received signal SIGSEGV, Segmentation fault."]
    for i in range(d.n(3, 7)):
        lines.append(f"#{i}  0x0000{d.hexid(8)} in {d.func()} (ctx=0x{d.hexid(8)}) at "
                     f"{d.path('c')}:{d.n(1, 900)}")
    return "\n".join(lines)


# -- git ---------------------------------------------------------------------------------

def hunk(d: Draw) -> list[str]:
    start = d.n(1, 300)
    body = []
    for _ in range(d.n(3, 9)):
        sign = d.pick((" ", " ", "-", "+"))
        body.append(f"{sign}    {d.func()}({d.pick(NOUNS)}, {d.pick(NOUNS)}={d.n(0, 99)})")
    return [f"@@ -{start},{len(body)} +{start},{len(body) + 1} @@ def {d.func()}():", *body]


def git_diff(d: Draw) -> str:
    lines: list[str] = []
    for _ in range(d.n(1, 3)):
        p = d.path(d.pick(("py", "ts", "go", "rs")))
        lines += [f"diff --git a/{p} b/{p}", f"index {d.hexid(7)}..{d.hexid(7)} 100644",
                  f"--- a/{p}", f"+++ b/{p}", *hunk(d)]
    return "\n".join(lines)


def plain_diff(d: Draw) -> str:
    p = d.path("py")
    return "\n".join([f"--- {p}.orig\t2024-03-0{d.n(1, 9)} 10:00:00",
                      f"+++ {p}\t2024-03-0{d.n(1, 9)} 10:05:00", *hunk(d)])


def bare_hunks(d: Draw) -> str:
    return "\n".join([*hunk(d), *hunk(d)])


def patch(d: Draw) -> str:
    name, mail = d.pick(AUTHORS)
    return "\n".join([f"From {d.hexid()} Mon Sep 17 00:00:00 2001", f"From: {name} <{mail}>",
                      f"Date: {d.date()}", f"Subject: [PATCH] {d.subject()}", "", "---",
                      f" {d.path('py')} | {d.n(2, 9)} +++--", " 1 file changed, 3 insertions(+), "
                      "2 deletions(-)", "", git_diff(d)])


def git_log(d: Draw) -> str:
    out = []
    for _ in range(d.n(2, 5)):
        name, mail = d.pick(AUTHORS)
        out += [f"commit {d.hexid()}", f"Author: {name} <{mail}>", f"Date:   {d.date()}", "",
                f"    {d.subject()}", ""]
    return "\n".join(out)


def git_log_oneline(d: Draw) -> str:
    lines = []
    for i in range(d.n(3, 20)):
        refs = " (HEAD -> main, origin/main)" if i == 0 and d.n(0, 1) else ""
        graph = d.pick(("", "* ", "| * ")) if d.n(0, 2) == 0 else ""
        lines.append(f"{graph}{d.hexid(d.pick((7, 8, 12)))}{refs} {d.subject()}")
    return "\n".join(lines)


def git_log_stat(d: Draw) -> str:
    out = []
    for _ in range(d.n(1, 3)):
        name, mail = d.pick(AUTHORS)
        out += [f"commit {d.hexid()}", f"Author: {name} <{mail}>", f"Date:   {d.date()}", "",
                f"    {d.subject()}", ""]
        files = [d.path(d.pick(("py", "md", "ts"))) for _ in range(d.n(1, 6))]
        out += [f" {p:<40} | {d.n(1, 80):3} {'+' * d.n(0, 9)}{'-' * d.n(0, 5)}" for p in files]
        out += [f" {len(files)} files changed, {d.n(1, 200)} insertions(+), {d.n(1, 90)} "
                "deletions(-)", ""]
    return "\n".join(out)


def git_status(d: Draw) -> str:
    out = [f"On branch {d.pick(MODULES)}-{d.pick(NOUNS)}"]
    if d.n(0, 1):
        out.append("Your branch is ahead of 'origin/main' by 2 commits.")
        out.append('  (use "git push" to publish your local commits)')
    out += ["", "Changes not staged for commit:",
            '  (use "git add <file>..." to update what will be committed)']
    out += [f"\tmodified:   {d.path('py')}" for _ in range(d.n(1, 4))]
    if d.n(0, 1):
        out += ["", "Untracked files:",
                '  (use "git add <file>..." to include in what will be committed)',
                f"\t{d.path('md', 'docs')}"]
    out += ["", 'no changes added to commit (use "git add" and/or "git commit -a")']
    return "\n".join(out)


def git_status_short(d: Draw) -> str:
    lines = [f"## main...origin/main [ahead {d.n(1, 5)}]"] if d.n(0, 1) else []
    for _ in range(d.n(3, 10)):
        lines.append(f"{d.pick((' M', 'M ', 'A ', '??', ' D', 'MM', 'R '))} "
                     f"{d.path(d.pick(('py', 'ts', 'md')))}")
    return "\n".join(lines)


def git_branch(d: Draw) -> str:
    names = [f"{d.pick(MODULES)}-{d.pick(NOUNS)}" for _ in range(d.n(3, 8))]
    cur = d.n(0, len(names) - 1)
    return "\n".join(f"{'*' if i == cur else ' '} {b}" for i, b in enumerate(names))


# -- listings ----------------------------------------------------------------------------

def ls_plain(d: Draw) -> str:
    return "\n".join(f"{d.func()}.{d.pick(('py', 'ts', 'json', 'md', 'yml'))}"
                     for _ in range(d.n(6, 25)))


def ls_long(d: Draw) -> str:
    lines = [f"total {d.n(8, 400)}"]
    for _ in range(d.n(5, 15)):
        kind = d.pick(("-rw-r--r--", "drwxr-xr-x", "-rwxr-xr-x"))
        lines.append(f"{kind}  1 dev  staff  {d.n(64, 90000):6} {d.pick(MONTHS)} {d.n(1, 28):2} "
                     f"{d.n(0, 23):02}:{d.n(0, 59):02} {d.func()}.{d.pick(('py', 'sh', 'txt'))}")
    return "\n".join(lines)


def find_listing(d: Draw) -> str:
    return "\n".join(f"./{d.path(d.pick(('py', 'ts', 'go')))}" for _ in range(d.n(6, 30)))


def tree_listing(d: Draw) -> str:
    lines = ["."]
    for top in range(d.n(3, 6)):
        lines.append(f"├── {d.pick(MODULES)}{top}")
        for _ in range(d.n(1, 4)):
            lines.append(f"│   ├── {d.func()}.{d.pick(('py', 'ts'))}")
    lines.append(f"└── {d.pick(('README.md', 'setup.cfg', 'Makefile'))}")
    lines.append("")
    lines.append(f"{d.n(3, 20)} directories, {d.n(10, 99)} files")
    return "\n".join(lines)


def du_listing(d: Draw) -> str:
    return "\n".join(f"{d.n(1, 999)}{d.pick(('K', 'M', ''))}\t"
                     f"{d.path('', d.pick(MODULES)).rstrip('.')}" for _ in range(d.n(6, 15)))


def pip_list(d: Draw) -> str:
    names = ("requests", "urllib3", "pydantic", "numpy", "click", "rich", "pytest", "mypy",
             "ruff", "attrs", "idna", "certifi", "anyio", "httpx", "orjson")
    lines = ["Package    Version", "---------- -------"]
    lines += [f"{d.pick(names):<18} {d.n(0, 9)}.{d.n(0, 30)}.{d.n(0, 9)}"
              for _ in range(d.n(6, 14))]
    return "\n".join(lines)


def one_line_paths(d: Draw) -> str:
    return " ".join(d.path(d.pick(("py", "ts", "md"))) for _ in range(d.n(8, 30)))


# -- tools' output -----------------------------------------------------------------------

def pytest_output(d: Draw) -> str:
    n = d.n(5, 60)
    failed = d.n(1, 4)
    test = f"tests/test_{d.pick(MODULES)}.py"
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0",
             f"collected {n} items", "",
             f"{test} ..F.{'.' * d.n(0, 20)}F{' ' * 38}[ {d.n(10, 99)}%]",
             "", "=================================== FAILURES ===================================",
             f"___________________________ test_{d.func()} ___________________________", "",
             f"    def test_{d.func()}():", f">       assert {d.func()}() == {d.n(1, 9)}",
             f"E       assert {d.n(10, 99)} == {d.n(1, 9)}", "",
             f"{test}:{d.n(5, 200)}: AssertionError",
             "=========================== short test summary info ============================",
             f"FAILED {test}::test_{d.func()} - assert {d.n(10, 99)} == {d.n(1, 9)}",
             f"{'=' * 25} {failed} failed, {n - failed} passed in "
             f"{d.n(1, 40)}.{d.n(10, 99)}s {'=' * 25}"]
    start = d.n(0, 6)
    return "\n".join(lines[start:])


def jest_output(d: Draw) -> str:
    lines = [f" FAIL  src/{d.pick(MODULES)}/{d.camel()}.test.ts",
             f"  ● {d.cls()} › {d.pick(VERBS)}s the {d.pick(NOUNS)}", "",
             "    expect(received).toBe(expected) // Object.is equality", "",
             f"    Expected: {d.n(1, 9)}", f"    Received: {d.n(10, 99)}", "",
             f" PASS  src/{d.pick(MODULES)}/{d.camel()}.test.ts",
             f"Test Suites: 1 failed, {d.n(2, 30)} passed, {d.n(3, 31)} total",
             f"Tests:       1 failed, {d.n(10, 300)} passed, {d.n(11, 301)} total",
             f"Time:        {d.n(1, 30)}.{d.n(100, 999)} s"]
    return "\n".join(lines)


def go_test(d: Draw) -> str:
    lines = [f"=== RUN   Test{d.cls()}", f"--- FAIL: Test{d.cls()} (0.00s)",
             f"    {d.pick(MODULES)}_test.go:{d.n(5, 99)}: got {d.n(1, 9)}, want {d.n(10, 99)}",
             "FAIL", f"FAIL\tgithub.com/acme/{d.pick(MODULES)}\t0.{d.n(100, 999)}s",
             f"ok  \tgithub.com/acme/{d.pick(MODULES)}\t0.{d.n(100, 999)}s"]
    return "\n".join(lines)


def compiler_output(d: Draw) -> str:
    style = d.n(0, 3)
    lines = []
    for _ in range(d.n(2, 6)):
        f = d.path(d.pick(("c", "ts", "py", "rs")))
        if style == 0:
            lines.append(f"{f}:{d.n(1, 300)}:{d.n(1, 80)}: error: '{d.pick(NOUNS)}' undeclared "
                         "(first use in this function)")
        elif style == 1:
            lines.append(f"{f}({d.n(1, 300)},{d.n(1, 80)}): error TS2345: Argument of type "
                         f"'string' is not assignable to parameter of type 'number'.")
        elif style == 2:
            lines.append(f"{f}:{d.n(1, 300)}: error: Incompatible types in assignment "
                         "(expression has type \"str\", variable has type \"int\")  [assignment]")
        else:
            lines += ["error[E0308]: mismatched types", f"  --> {f}:{d.n(1, 300)}:{d.n(1, 80)}",
                      "   |", f"{d.n(1, 300):<3}|     let x: u32 = \"{d.pick(NOUNS)}\";",
                      "   |                  ^^^^^^^ expected `u32`, found `&str`"]
    if style == 2:
        lines.append(f"Found {len(lines)} errors in {d.n(1, 4)} files (checked "
                     f"{d.n(5, 90)} source files)")
    return "\n".join(lines)


def eslint_output(d: Draw) -> str:
    lines = []
    for _ in range(d.n(1, 3)):
        lines.append(f"/home/dev/app/{d.path('ts')}")
        for _ in range(d.n(1, 4)):
            lines.append(f"  {d.n(1, 300)}:{d.n(1, 80)}  {d.pick(('error', 'warning'))}  "
                         f"'{d.camel()}' is defined but never used  no-unused-vars")
        lines.append("")
    lines.append(f"✖ {d.n(2, 12)} problems ({d.n(1, 9)} errors, {d.n(0, 3)} warnings)")
    return "\n".join(lines)


def npm_output(d: Draw) -> str:
    if d.n(0, 1):
        return "\n".join(["npm ERR! code ERESOLVE", "npm ERR! ERESOLVE unable to resolve "
                          "dependency tree", "npm ERR! ", f"npm ERR! While resolving: "
                          f"{d.pick(MODULES)}-app@{d.n(0, 3)}.{d.n(0, 9)}.0",
                          f"npm ERR! Found: react@{d.n(16, 18)}.2.0",
                          "npm ERR! A complete log of this run can be found in: "
                          "/home/dev/.npm/_logs/debug-0.log"])
    return "\n".join([f"npm WARN deprecated {d.pick(NOUNS)}@{d.n(1, 4)}.0.0: no longer supported",
                      "", f"added {d.n(10, 900)} packages, and audited {d.n(10, 900)} packages in "
                      f"{d.n(2, 40)}s", "", f"{d.n(10, 200)} packages are looking for funding",
                      "  run `npm fund` for details", "",
                      f"found {d.n(0, 9)} vulnerabilities"])


def pip_output(d: Draw) -> str:
    names = ("requests", "pydantic", "numpy", "click", "rich", "httpx")
    lines = []
    for _ in range(d.n(2, 5)):
        n = d.pick(names)
        lines += [f"Collecting {n}", f"  Downloading {n}-{d.n(1, 3)}.{d.n(0, 30)}.0-py3-none-"
                  f"any.whl ({d.n(50, 900)} kB)"]
    lines += ["Installing collected packages: " + ", ".join(names[:3]),
              "Successfully installed " + " ".join(f"{n}-1.{d.n(0, 9)}.0" for n in names[:3])]
    return "\n".join(lines)


def cargo_output(d: Draw) -> str:
    lines = [f"   Compiling {d.pick(NOUNS)} v0.{d.n(1, 9)}.{d.n(0, 9)}" for _ in range(d.n(2, 8))]
    lines.append(f"    Finished `dev` profile [unoptimized + debuginfo] target(s) in "
                 f"{d.n(1, 60)}.{d.n(10, 99)}s")
    lines.append(f"     Running `target/debug/{d.pick(MODULES)}`")
    return "\n".join(lines)


def docker_output(d: Draw) -> str:
    lines = []
    for i in range(1, d.n(3, 6)):
        step = d.pick(("RUN pip install -r requirements.txt", "COPY . /app", "WORKDIR /app",
                       "RUN npm ci"))
        lines += [f"#{i} [{i}/5] {step}",
                  f"#{i} {d.pick(('DONE', 'CACHED'))} {d.n(0, 40)}.{d.n(0, 9)}s"]
    return "\n".join(lines)


def maven_output(d: Draw) -> str:
    return "\n".join([f"[INFO] Building {d.pick(MODULES)} 1.{d.n(0, 9)}-SNAPSHOT",
                      "[INFO] ------------------------------------------------------------",
                      f"[ERROR] /app/src/main/java/{d.cls()}.java:[{d.n(1, 300)},{d.n(1, 80)}] "
                      "cannot find symbol", "[INFO] BUILD FAILURE",
                      f"[INFO] Total time:  {d.n(1, 59)}.{d.n(100, 999)} s"])


def shell_session(d: Draw) -> str:
    lines = []
    for _ in range(d.n(2, 4)):
        cmd = d.pick((f"ls {d.pick(MODULES)}", f"cat {d.path('py')}", "git status -s",
                      f"grep -rn {d.func()} src", "python -m pytest -q", "make build"))
        prompt = d.pick(("$ ", "dev@box:~/app$ ", "❯ "))
        lines.append(prompt + cmd)
        lines += [f"{d.path('py')}:{d.n(1, 300)}:    {d.func()}()" for _ in range(d.n(1, 3))]
    return "\n".join(lines)


GENERATORS = {
    "python traceback": python_traceback, "java stack trace": java_trace,
    "javascript stack trace": js_trace, "go panic": go_panic, "rust panic": rust_panic,
    "ruby backtrace": ruby_trace, ".net stack trace": dotnet_trace, "php stack trace": php_trace,
    "gdb backtrace": gdb_backtrace, "git diff": git_diff, "diff -u": plain_diff,
    "bare hunks": bare_hunks, "format-patch": patch, "git log": git_log,
    "git log --oneline": git_log_oneline, "git log --stat": git_log_stat,
    "git status": git_status, "git status -s": git_status_short, "git branch": git_branch,
    "ls": ls_plain, "ls -l": ls_long, "find": find_listing, "tree": tree_listing, "du": du_listing,
    "pip list": pip_list, "paths on one line": one_line_paths, "pytest": pytest_output,
    "jest": jest_output, "go test": go_test, "compiler": compiler_output, "eslint": eslint_output,
    "npm": npm_output, "pip install": pip_output, "cargo": cargo_output,
    "docker build": docker_output, "maven": maven_output, "shell session": shell_session,
}


#: What an agent writes before what it pastes, when it writes anything.
INTROS = ("Output of the last run:", "Got this when running the migration:",
          "Error seen in CI:", "For reference, the current state:", "Full log below.",
          "This is what happens:")


def framed(d: Draw, text: str) -> str:
    """The output as an agent pastes it: as it is, in a code fence, or after a line of
    its own (a third each)."""
    how = d.n(0, 2)
    if how == 1:
        return f"```\n{text}\n```"
    if how == 2:
        return f"{d.pick(INTROS)}\n{text}"
    return text
