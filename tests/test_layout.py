"""The house rules anyone can check (DESIGN section 2, the developers' guide): small modules, engine/ never
importing pipeline/, module docstrings of at most 60 lines, no import cycle, no module using another's private
names.  Read from the source with ast, so a breach fails here, naming the file, before a reader meets it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "pipeline")
MAX_LINES = 1200
MAX_DOCSTRING_LINES = 60  # issue 50: what a module holds and why; lab notes go to docs/


def _modules() -> dict[str, Path]:
    """Every module of engine/ and pipeline/ by dotted name."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _imports(name: str, path: Path, module_level_only: bool) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for each import of ``path`` (a from-import's relative level
    resolved); under ``module_level_only`` not those inside a function or an ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if module_level_only:
            up, nested = node, False
            while up in parents:
                up = parents[up]
                nested |= isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef)
            if nested or _type_checking_only(node, parents):
                continue
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            out.append((base, [a.name for a in node.names], node.lineno))
    return out


def test_no_module_of_engine_or_pipeline_is_over_1200_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in _modules().values()}
    long = {path: n for path, n in sizes.items() if n > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


def test_module_docstrings_say_what_and_why_in_at_most_60_lines():
    """The readable references (engine/reference/) keep their rules in words at any length."""
    sizes = {}
    for path in _modules().values():
        doc = ast.get_docstring(ast.parse(path.read_text(), str(path)), clean=False) or ""
        if "reference" not in path.relative_to(ROOT).parts:
            sizes[str(path.relative_to(ROOT))] = len(doc.splitlines())
    long = {path: n for path, n in sizes.items() if n > MAX_DOCSTRING_LINES}
    assert sizes and not long, f"module docstrings over {MAX_DOCSTRING_LINES} lines: {long}"


def test_engine_never_imports_pipeline():
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {mod}"
        for name, path in _modules().items()
        if name.startswith("engine")
        for mod, _, line in _imports(name, path, module_level_only=False)
        if mod == "pipeline" or mod.startswith("pipeline.")
    ]
    assert not found, found


def _graph() -> dict[str, set[str]]:
    """Each module's module-level imports among engine/ and pipeline/ (``from pkg import mod`` counted as mod)."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = set()
        for mod, names, _ in _imports(name, path, module_level_only=True):
            deps |= {f"{mod}.{n}" for n in names if f"{mod}.{n}" in mods} or ({mod} & mods.keys())
        graph[name] = deps - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None (depth first, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d) :] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_among_the_modules():
    assert _cycle(_graph()) is None


def test_no_module_imports_another_modules_private_names():
    mods = _modules()
    found = [
        f"{path.relative_to(ROOT)}:{line} takes {n} from {mod}"
        for name, path in mods.items()
        for mod, names, line in _imports(name, path, module_level_only=False)
        if mod != name and (mod in mods or mod.split(".")[0] in PACKAGES)
        for n in names
        if n.startswith("_") and f"{mod}.{n}" not in mods
    ]
    assert not found, found
