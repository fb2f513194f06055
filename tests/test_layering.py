"""The import-layering contract (docs/architecture.md, "Layering"), checked on the source.

* ``signals``, ``recovery`` and ``guard.scanners`` import only ``guard.models``,
  ``guard.dialects`` and ``guard.errors`` of the project (plus themselves);
* ``guard.models`` and ``guard.errors`` import nothing else of the project (but each other);
* ``guard.dialects`` imports only ``guard.models`` and ``guard.errors``;
* ``guard.testing`` (the renderers of tests, benchmarks and corpora) imports only the scanners'
  layers, and no module of the library imports it;
* no module imports another subpackage's private (``_x``) modules or names;
* the leaf helpers of :data:`LEAVES` (JSON depth checks, the stack-free JSON walk, the packages'
  lazy names, ...) import nothing of the project but ``guard.errors``, so every layer may use
  them.

Every ``import`` and ``from ... import`` statement is read with :mod:`ast`, including those inside
functions (lazy imports count too); ``if TYPE_CHECKING:`` blocks count as well.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT

#: The one import package, and where its parts sit in the repository: the top-level
#: ``signals/`` and ``recovery/`` folders install as ``guard.signals`` and ``guard.recovery``.
PACKAGES = ("guard",)
FOLDERS = {"guard": "guard", "signals": "guard.signals", "recovery": "guard.recovery"}


def _modules() -> Iterator[tuple[str, Path]]:
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [*package.split("."), *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def _imports(module: str, path: Path) -> Iterator[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import of the project."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FOLDERS:
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] not in FOLDERS:
                continue
            for alias in node.names:
                yield target, alias.name, node.lineno


def _owner(module: str) -> str:
    """The unit a module belongs to: a top-level package, or ``guard.<subpackage>``, or
    ``guard`` for guard's own top-level modules."""
    parts = module.split(".")
    if parts[0] != "guard" or len(parts) == 1:
        return parts[0]
    candidate = ROOT / "guard" / parts[1]
    return f"guard.{parts[1]}" if candidate.is_dir() else "guard"


ALLOWED = {
    "guard.signals": {"guard.signals", "guard.models", "guard.dialects", "guard.errors"},
    "guard.recovery": {"guard.recovery", "guard.models", "guard.dialects", "guard.errors"},
    "guard.scanners": {"guard.scanners", "guard.models", "guard.dialects", "guard.errors"},
    "guard.dialects": {"guard.dialects", "guard.models", "guard.errors"},
    "guard.models": {"guard.models", "guard.errors"},
    # the renderers of tests, benchmarks and corpora: they spell what the scanners read
    "guard.testing": {
        "guard.testing",
        "guard.scanners",
        "guard.models",
        "guard.dialects",
        "guard.errors",
    },
}


#: guard's own top-level helpers that any layer may import: they import only ``guard.errors``
#: and one another
LEAVES = frozenset(
    {"guard._depth", "guard._json_walk", "guard._lazy", "guard._regex_source", "guard._windows"}
)


def _target_owner(target: str) -> str:
    if target == "guard.errors":
        return "guard.errors"
    return _owner(target)


MODULES = list(_modules())


def test_every_package_module_is_seen() -> None:
    names = {m for m, _ in MODULES}
    assert {"guard", "guard.models", "guard.signals", "guard.recovery", "guard.gate"} <= names


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_layering_contract(module: str, path: Path) -> None:
    owner = "guard.errors" if module == "guard.errors" else _owner(module)
    problems = []
    for target, name, line in _imports(module, path):
        if target.split(".")[0] != "guard":
            problems.append(f"line {line}: {module} imports {target}, outside the guard package")
        target_owner = _target_owner(target)
        if owner == "guard.errors" and target_owner not in {"guard.errors", "guard.models"}:
            problems.append(f"line {line}: guard.errors imports {target}")
        allowed = ALLOWED.get(owner)
        version = target == "guard" and name == "__version__"
        if module in LEAVES and target not in {"guard.errors", *LEAVES}:
            problems.append(f"line {line}: the leaf {module} imports {target}")
        leaf = target in LEAVES
        if target_owner == "guard.testing" and owner != "guard.testing":
            problems.append(f"line {line}: the library may not import {target} (tests' helpers)")
        if allowed is not None and target_owner not in allowed and not version and not leaf:
            problems.append(f"line {line}: {owner} may not import {target}")
        if target_owner != owner:
            private_module = any(p.startswith("_") for p in target.split(".")[1:])
            private_name = name is not None and name.startswith("_") and name != "__version__"
            top_level_shared = target_owner == "guard" and target.count(".") == 1
            if (private_module and not top_level_shared) or private_name:
                problems.append(
                    f"line {line}: {module} imports a private name of another package:"
                    f" {target}{'.' + name if name else ''}"
                )
    assert not problems, "\n".join(problems)
