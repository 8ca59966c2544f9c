"""The import graph of ``pipelines``: no cycle, and the ground modules never reach up.

Read from the source with ``ast`` (every import, including those inside functions and under
``TYPE_CHECKING``): a lazy import is still a dependency. A *part* is what sits directly
under ``pipelines/`` (a module, or a sub-package with everything in it).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "pipelines"
GROUND = {
    "vocabulary",
    "model",
    "catalogue",
    "termbase",
    "cards",
    "files",
    "fastjson",
    "hashing",
    "memo",
    "text",
    "settings",
    "thresholds",
    "checklists",
    "allowlists",
}
"""The lower layer: what every stage may use."""
STAGES = {"ingest", "align", "check", "report"}
RUNNING = {"stages", "pipeline", "outputs", "manifest", "masters", "api", "cli", "console"}
RUNNING |= {"project"}
"""Run sequencing and the interfaces: above the stages."""


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str) -> set[str]:
    """The pipelines modules ``module`` imports: a name taken from a package is its
    sub-module when there is one, else the package (the parent packages Python imports on
    the way are no dependency of their own)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            names = (f"{base}.{alias.name}" for alias in node.names)
            targets = [name if name in MODULES else base for name in names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pipelines"


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph (its nodes in order, the first repeated), or []."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        trail.append(node)
        for following in sorted(graph.get(node, ())):
            if state.get(following) == "open":
                return [*trail[trail.index(following) :], following]
            if following not in state and (found := visit(following)):
                return found
        state[node] = "done"
        trail.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_graph_is_read() -> None:
    assert "pipelines.model" in GRAPH["pipelines.check.registry"] | GRAPH["pipelines.catalogue"]
    assert "pipelines.ingest.langid" in GRAPH["pipelines.ingest.languages"]
    assert {"ingest", "align", "check", "report"} <= {_part(m) for m in GRAPH["pipelines.stages"]}


def test_no_cycle_between_parts() -> None:
    parts: dict[str, set[str]] = {}
    for module, imported in GRAPH.items():
        parts.setdefault(_part(module), set()).update(
            _part(target) for target in imported if _part(target) != _part(module)
        )
    assert _cycle(parts) == []


def test_no_cycle_between_modules() -> None:
    """A module that takes a name from its own package (``from . import shared_embedder``)
    is part of that package: that edge is no cycle."""
    graph = {
        module: {t for t in imported if not module.startswith(t + ".")}
        for module, imported in GRAPH.items()
    }
    assert _cycle(graph) == []


def test_ground_modules_import_no_stage_and_nothing_above() -> None:
    upward = sorted(
        f"{module} -> {target}"
        for module, imported in GRAPH.items()
        if _part(module) in GROUND
        for target in imported
        if _part(target) in STAGES | RUNNING
    )
    assert upward == []


def test_stages_import_no_other_stage() -> None:
    """Stages hand each other tables (corpus, alignment, findings), never code."""
    across = sorted(
        f"{module} -> {target}"
        for module, imported in GRAPH.items()
        if _part(module) in STAGES
        for target in imported
        if _part(target) in STAGES - {_part(module)}
    )
    assert across == []


def test_the_per_unit_cache_exists_once() -> None:
    """Units of work are looked up, computed and kept by ``work`` alone (issue 36): the
    stages declare their units and call ``work.execute``; only ``work``'s callers that open a
    cache (the stage runner and the ``cache`` command) know the store."""
    store_users = sorted(m for m, imported in GRAPH.items() if "pipelines.store" in imported)
    assert store_users == ["pipelines.cli", "pipelines.stages"]
    for stage in ("pipelines.ingest", "pipelines.align", "pipelines.check"):
        assert "pipelines.work" in GRAPH[stage], f"{stage} runs its units through work"
    assert not any("WorkCache" in path.read_text(encoding="utf-8") for path in MODULES.values())
