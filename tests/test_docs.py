"""The repository's own documents: every relative link in them resolves (file and heading), and
every document the code, the tests or a README cites exists, with the section it names.

A citation is a path ending in ``.md``. A path right after an ``owner/repo`` name
(``openai/harmony docs/format.md``) names a file of another repository and is not checked; a
section is cited as the page's path, a comma and the heading in double quotes.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Documents whose links must resolve.
DOCUMENTS = sorted(
    [
        ROOT / "README.md",
        ROOT / "corpora" / "README.md",
        ROOT / "benchmarks" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)

#: Files whose citations must resolve.
CITING = sorted(
    {
        *(
            p
            for d in ("guard", "signals", "recovery", "tests", "benchmarks")
            for p in (ROOT / d).rglob("*.py")
        ),
        *(p for d in ("guard", "signals", "recovery") for p in (ROOT / d).rglob("*.md")),
        *DOCUMENTS,
    }
)

#: Files being rewritten on other branches, which still cite documents the repository lacks.
#: Each entry must still fail the check (so the list only shrinks): when a branch that fixes one
#: is merged, the entry goes.
PENDING: frozenset[str] = frozenset()

_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
_MD_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
_OTHER_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+\s+$")
_SECTION = re.compile(r"(docs/[\w-]+\.md)(?:``)?,\s+\"([^\"\n]+)\"")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _ids(paths: list[Path]) -> list[str]:
    return [_rel(p) for p in paths]


def headings(path: Path) -> list[str]:
    """The headings of a Markdown file, outside fenced code, as plain text."""
    out: list[str] = []
    fence: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _FENCE.match(line)
        if m:
            run = m.group(1)
            if fence is None:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip(run[0] + " "):
                fence = None
            continue
        if fence is None:
            h = _HEADING.match(line)
            if h:
                out.append(h.group(2).replace("`", ""))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    kept = "".join(
        ch for ch in heading.lower() if ch in " -_" or unicodedata.category(ch)[0] in "LN"
    )
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for h in headings(path):
        base = slug(h)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def _resolve(target: str, citing: Path) -> Path | None:
    for base in (citing.parent, ROOT):
        candidate = (base / target).resolve()
        if candidate.exists():
            return candidate
    return None


def missing_citations(path: Path) -> list[str]:
    """Cited documents (and cited sections) of ``path`` that the repository lacks."""
    text = path.read_text(encoding="utf-8")
    problems: list[str] = []
    for m in _MD_PATH.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _OTHER_REPO.search(text, line_start, m.start()):
            continue  # a file of another repository
        if _resolve(m.group(1), path) is None:
            problems.append(f"{m.group(1)} (line {text.count(chr(10), 0, m.start()) + 1})")
    for m in _SECTION.finditer(text):
        doc = ROOT / m.group(1)
        if doc.exists() and m.group(2) not in headings(doc):
            problems.append(f'{m.group(1)}, "{m.group(2)}": no such heading')
    return problems


@pytest.mark.parametrize("document", DOCUMENTS, ids=_ids(DOCUMENTS))
def test_relative_links_resolve(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    broken: list[str] = []
    for m in _LINK.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        resolved = document if not file_part else (document.parent / file_part).resolve()
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{_rel(document)}: broken links: {broken}"


@pytest.mark.parametrize("path", CITING, ids=_ids(CITING))
def test_cited_documents_exist(path: Path) -> None:
    if _rel(path) in PENDING:
        pytest.skip("rewritten on another branch (see PENDING)")
    problems = missing_citations(path)
    assert not problems, f"{_rel(path)} cites what the repository lacks: {problems}"


def test_pending_files_still_need_their_fix() -> None:
    stale = [
        name
        for name in sorted(PENDING)
        if not (ROOT / name).exists() or not missing_citations(ROOT / name)
    ]
    assert not stale, f"remove from PENDING (fixed or gone): {stale}"


def test_docs_index_lists_every_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "README.md")
    assert pages, "docs/ has no pages"
    unlisted = [name for name in pages if f"]({name})" not in index]
    assert not unlisted, f"docs/README.md does not link {unlisted}"


def test_slug_follows_github() -> None:
    assert slug("Leaks and on_leak") == "leaks-and-on_leak"
    assert slug("Llama 3") == "llama-3"
    assert slug("Batching and the prefilter") == "batching-and-the-prefilter"
    assert slug("guard_stream") == "guard_stream"
    assert slug("What is escaped?") == "what-is-escaped"


def test_citation_check_finds_a_missing_document(tmp_path: Path) -> None:
    cited = tmp_path / "module.py"
    # spelled in pieces so that this file does not cite them itself
    missing, page = "NOWHERE" + ".md", "docs/detection" + ".md"
    cited.write_text(
        f'"""See {missing} and {page}, "No such heading"; {page}, "Gate" is fine;'
        ' openai/harmony docs/format.md is another repository\'s."""\n',
        encoding="utf-8",
    )
    assert missing_citations(cited) == [
        f"{missing} (line 1)",
        f'{page}, "No such heading": no such heading',
    ]
