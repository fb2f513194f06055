"""P under GLM: an ``<arg_key>``/``<arg_value>`` pair glued to the value before it, with no call
opener before it in its string, is the rest of a call that collapsed into the value (H+P on
``tool_arg``); a documented call that opens with ``<tool_call>`` in its string and prose that
names the tags between blanks stay clean. Read with the parse boundary computed (``parsed_end``
left ``None``) and given explicitly (the whole text parsed), and fed in two chunks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from guard import detect
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.models import Surface
from guard.signals.argument_token import paired_in_string


def args(**values: Any) -> str:
    return json.dumps(values, ensure_ascii=False)


# the JSON text holds the escape `\n` inside the string, not a raw line break
COLLAPSED = args(path="src/app.ts<arg_key>limit</arg_key>\n<arg_value>200</arg_value>")
DOCUMENTED = args(
    content="<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
)
PROSE = args(content="GLM writes each argument as <arg_key>...</arg_key> and then its value.")


def judge(text: str, parsed: bool, dialect: str = "glm") -> Any:
    end = len(text) if parsed else None
    return detect(text, "tool_arg", dialect=dialect, tool_name="read", parsed_end=end)


def test_the_collapsed_text_holds_an_escaped_line_break() -> None:
    assert "\\n<arg_value>" in COLLAPSED and "\n" not in COLLAPSED


@pytest.mark.parametrize("parsed", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        COLLAPSED,
        args(path="src/app.ts<arg_key>limit</arg_key><arg_value>200</arg_value>"),
        args(query="cats<arg_key>page</arg_key>\n<arg_value>2</arg_value>", lang="en"),
        # a call opener in another string of the arguments does not make this one a document
        args(note="<tool_call>x", path="src/app.ts<arg_key>limit</arg_key><arg_value>2"),
    ],
)
def test_a_pair_glued_to_the_value_trips(text: str, parsed: bool) -> None:
    v = judge(text, parsed)
    assert v.leak and {"H", "P"} <= set(v.signals), v.explain()
    p = [h for h in v.hits if "P" in h.signals]
    assert any(h.evidence == "<arg_key>" for h in p)
    assert v.cut is not None and v.cut <= text.index("<arg_key>")


@pytest.mark.parametrize("parsed", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        DOCUMENTED,
        PROSE,
        args(content="GLM writes each argument as <arg_key> name </arg_key> then a value."),
        args(path="src/app.ts <arg_key>limit</arg_key>"),  # a blank before the pair
        args(path="src/app.ts\n<arg_key>limit</arg_key>"),  # a line break before the pair
        args(content="<tool_call>search\n<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>"),
        args(content="`src/app.ts<arg_key>limit</arg_key>`"),  # a code span
        args(content="'src/app.ts<arg_key>limit</arg_key>'"),  # a quoted literal
        args(content="{{ path }}<arg_key>{{ k }}</arg_key><arg_value>{{ v }}</arg_value>"),
    ],
)
def test_documented_or_named_pairs_pass(text: str, parsed: bool) -> None:
    v = judge(text, parsed)
    assert not v.leak and "P" not in v.signals, v.explain()


def test_the_documented_call_is_h_only() -> None:
    # every tag of the documented call is an H anchor, and none of them is P
    v = judge(DOCUMENTED, parsed=True)
    assert {h.evidence for h in v.hits} >= {"<tool_call>", "<arg_key>", "</tool_call>"}
    assert all(h.signals == ("H",) for h in v.hits)


def test_a_dialect_without_the_tags_reads_them_as_another_dialects_markers() -> None:
    # GLM's argument tags are no HTML or XML: under ChatML they are another dialect's call
    # syntax (X), and bare in the string they trip with P (blind set heldout46a)
    v = judge(COLLAPSED, parsed=True, dialect="chatml")
    assert v.leak and {"X", "P"} <= set(v.signals)


def test_all_reads_the_glm_tags() -> None:
    v = judge(COLLAPSED, parsed=True, dialect="all")
    assert v.leak and {"H", "P"} <= set(v.signals)


def test_past_the_boundary_is_t_not_p() -> None:
    text = '{"path": "src/app.ts"}<arg_key>limit</arg_key>'
    v = detect(text, "tool_arg", dialect="glm", tool_name="read")
    assert v.leak and "T" in v.signals and "P" not in v.signals, v.explain()


@pytest.mark.parametrize(
    ("text", "openers", "paired"),
    [
        (COLLAPSED, (), False),  # glued to the value: no document
        (COLLAPSED, ("<tool_call>",), False),  # no opener before it in its string
        (DOCUMENTED, ("<tool_call>",), True),  # the call opener before it: a document
        (DOCUMENTED, (), False),  # glued to the name, and no opener known: collapsed
        (args(path="src/app.ts <arg_key>limit</arg_key>"), (), True),
    ],
)
def test_paired_in_string(text: str, openers: tuple[str, ...], paired: bool) -> None:
    start = text.index("<arg_key>")
    assert paired_in_string(text, start, start + len("<arg_key>"), openers) is paired


@pytest.mark.parametrize("text", [COLLAPSED, DOCUMENTED, PROSE])
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, "tool_arg", dialect="glm", tool_name="read")
    for cut in range(1, len(text)):
        monitor = SurfaceMonitor(
            Surface.TOOL_ARG, get_dialect("glm"), DEFAULT_POLICY, tool_name="read"
        )
        monitor.feed(text[:cut])
        monitor.feed(text[cut:])
        assert monitor.finish() == whole, cut


@pytest.mark.parametrize(
    "text",
    [
        # a pair with nothing of a call after it: prose, a query, a pattern
        args(path="src/app.ts<arg_key>limit</arg_key>"),
        args(content="GLM writes each argument as key<arg_key>...</arg_key> pairs."),
        args(query="how does glm format<arg_key>x</arg_key>"),
        args(pattern="name<tool_call>x</tool_call>"),
    ],
)
def test_a_pair_that_nothing_of_a_call_follows_passes(text: str) -> None:
    v = judge(text, False)
    assert not v.leak, v.explain()
