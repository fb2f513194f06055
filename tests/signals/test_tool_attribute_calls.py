"""J's ad-hoc wrapper form: any element that names its tool in a ``tool``, ``tool_name`` or
``function`` attribute and holds at least one ``<parameter name=...>``/``<param name=...>``
element, as the whole rest of the text. With declared tools it must name one of them; a
``name=`` attribute on an arbitrary tag (a Spring bean) is no call; text after it clears it."""

from __future__ import annotations

from typing import Any

import pytest
from support.splits import monitored, relayed

from guard import detect

RECORD = '<call_record tool="read"><parameter name="path">a.css</parameter></call_record>'
BEAN = '<bean name="ds"><param name="url">x</param></bean>'


@pytest.mark.parametrize(
    "text",
    [
        RECORD,
        "Let me read it.\n" + RECORD,
        "Let me read it.\n" + RECORD + "\n  ",  # trailing blanks
        '<x tool_name="grep"><param name="q">a</param></x>',
        '<x tool_name="grep"><param name="q">a</param>\n<param name="n">2</param></x>',
        # one-element-per-parameter children next to a named parameter
        '<x tool_name="grep"><limit>5</limit><param name="q">a</param></x>',
        '<tool.use tool="grep">\n  <parameter name="q">TODO</parameter>\n</tool.use>',
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "llama3", "gemma"])
def test_an_element_naming_its_tool_in_an_attribute_trips(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and v.signals == ("J",), v.explain()
    assert v.cut == text.index("<")


def test_all_reads_it_too() -> None:
    v = detect(RECORD, dialect="all")
    assert v.leak and "J" in v.signals and v.cut == 0


def test_the_thinking_surface_counts() -> None:
    v = detect(RECORD, surface="thinking", dialect="chatml")
    assert v.leak and v.signals == ("J",)


@pytest.mark.parametrize(
    ("tools", "leak"),
    [(["read"], True), (["read", "write"], True), (["write"], False), ([], False)],
)
def test_with_declared_tools_it_must_name_one(tools: Any, leak: bool) -> None:
    v = detect(RECORD, dialect="chatml", tools=tools)
    assert v.leak is leak, v.explain()
    if leak:
        assert "declared 'read'" in v.hits[0].detail


def test_the_wrappers_own_tag_name_is_no_tool_name() -> None:
    text = '<x tool="grep"><param name="q">a</param></x>'
    assert detect(text, dialect="llama3", tools=["grep"]).leak
    assert not detect(text, dialect="llama3", tools=["x"]).leak


@pytest.mark.parametrize(
    "text",
    [
        BEAN,  # `name=` on an arbitrary tag: configuration, not a call
        '<beans>\n  <bean name="ds">\n    <param name="url">x</param>\n  </bean>\n</beans>',
        '<x tool_name="grep"><limit>5</limit></x>',  # no parameter element
        '<field function="sum"><param name="x">1</param></field>',  # `function=` is XML's
        '<x tool="grep"></x>',
        '<x tool="grep"><param name="q">a</param></y>',  # closed by another tag
        '<x data-tool="grep"><param name="q">a</param></x>',  # another attribute
        RECORD + " That is what I sent.",  # text follows it
        RECORD + "\nDone.",
        f"`{RECORD}`",  # inline code
        f"```xml\n{RECORD}\n```",  # a fence
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "llama3"])
def test_near_misses_pass(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert not v.leak and "J" not in v.signals, v.explain()


@pytest.mark.parametrize("tools", [["ds"], ["bean"]])
def test_a_bean_is_no_call_with_declared_tools_either(tools: list[str]) -> None:
    assert not detect(BEAN, dialect="llama3", tools=tools).leak


def test_the_tool_attribute_after_another_attribute_counts() -> None:
    text = '<call_record id="c1" tool="read"><parameter name="path">a.css</parameter></call_record>'
    v = detect(text, dialect="chatml")
    assert v.leak and v.signals == ("J",)


# --- streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("Let me read it.\n" + RECORD, None),
        ("Let me read it.\n" + RECORD, frozenset({"read"})),
        (RECORD + " That is what I sent.", None),
        (BEAN, None),
    ],
)
def test_every_split_gives_the_whole_verdict(text: str, tools: Any) -> None:
    whole = detect(text, dialect="chatml", tools=tools)
    context = {} if tools is None else {"tools": tools}
    for cut in range(1, len(text)):
        verdict, shown = monitored(text, cut, "text", "chatml", **context)
        assert verdict == whole, cut
        out, _ = relayed([text[:cut], text[cut:]], "chatml", tools=tools)
        if whole.leak:
            assert whole.cut is not None and shown <= whole.cut, cut
            assert out == text[: whole.cut], cut
        else:
            assert out == text, cut
