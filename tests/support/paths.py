"""Where the repository's files are, for tests and benchmarks that read them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["DATA", "EXAMPLES", "ROOT", "load_generator"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "corpora" / "examples"
DATA = ROOT / "tests" / "data"


def load_generator() -> ModuleType:
    """The example data's generator (``corpora/examples/generate.py``) as a module."""
    name = "guard_examples_generate"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module
