"""The error of a framework integration imported without its extra, worded once."""

from __future__ import annotations

__all__ = ["missing_extra"]


def missing_extra(module: str, needs: str, extra: str) -> ImportError:
    """The :class:`ImportError` for ``module`` when ``needs`` (the framework, as a reader
    names it) is not installed: it names the extra that installs it."""
    return ImportError(f"{module} needs {needs}: pip install 'inband-guard[{extra}]'")
