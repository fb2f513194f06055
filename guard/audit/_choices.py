"""The choices of ``guard audit``'s options, kept free of imports: the command line builds its
``--help`` from them without loading the audit."""

from __future__ import annotations

__all__ = [
    "DEFAULT_FAIL_ON",
    "FAIL_ON",
    "FORMATS",
    "MAX_LINE_BYTES",
    "check_count",
    "check_format",
    "parse_fail_on",
]

#: Transcript formats ``guard audit`` reads; ``auto`` sniffs each file.
FORMATS = ("auto", "openai", "responses", "harmony", "chatglm3", "sharegpt", "raw", "text")
#: ``--fail-on`` conditions: ``leak`` (leaks and forgeries), ``injection`` (any finding),
#: ``error`` (a line or message that could not be read), ``none`` (never on findings or errors).
FAIL_ON = ("leak", "injection", "error", "none")
#: What fails a run unless told otherwise: model output gone wrong, and input not read.
DEFAULT_FAIL_ON = "leak,error"


def parse_fail_on(value: str | tuple[str, ...] | list[str] | frozenset[str]) -> frozenset[str]:
    """The conditions of a ``--fail-on`` value: comma-separated names from :data:`FAIL_ON`
    (``leak,error``), or an iterable of them; ``none`` alone is the empty set.

    Raises:
        ValueError: an unknown name, an empty value, or ``none`` combined with another name.
    """
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [n.strip() if isinstance(n, str) else n for n in items]
    if not names or any(n not in FAIL_ON for n in names):
        raise ValueError(
            f"fail_on must be comma-separated names from {', '.join(FAIL_ON)}, got {value!r}"
        )
    if "none" in names:
        if len(names) > 1:
            raise ValueError(f"fail_on 'none' cannot be combined with other names, got {value!r}")
        return frozenset()
    return frozenset(names)


#: The default cap on one line of a transcript file (``--max-line-bytes``): a longer line is an
#: error entry and is never held whole.
MAX_LINE_BYTES = 64 << 20


def check_format(format: str) -> None:
    """Raise ``ValueError`` unless ``format`` is one of :data:`FORMATS`."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of: {', '.join(FORMATS)}")


def check_count(name: str, value: object) -> None:
    """Raise ``ValueError`` unless ``value`` is an int >= 1 (``True`` is no count)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
