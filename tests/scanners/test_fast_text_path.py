"""``DialectScanner.FAST_MARKERS``: a dialect that declares the markers of its text and
reasoning states takes a chunk that holds none of their first characters without the state
machine, with the events the machine gives; a dialect that declares none keeps its own feed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.scanning import merge, scan

from guard.models import Text, ThinkingDelta, ThinkingStart
from guard.scanners import scanner
from guard.scanners._dialect import DialectScanner
from guard.scanners.anthropic import AnthropicScanner
from guard.scanners.base import ScannerBase
from guard.scanners.chatml import ChatMLScanner
from guard.scanners.gemma import GemmaScanner


def test_every_marker_of_the_text_and_reasoning_states_is_a_lead() -> None:
    for cls in (ChatMLScanner, AnthropicScanner):
        leads = {s[0] for m in cls.FAST_MARKERS for s in m.spellings}
        assert leads and cls._fast_leads == leads
        assert cls.feed is not ScannerBase.feed
    assert GemmaScanner.FAST_MARKERS == () and "feed" not in GemmaScanner.__dict__
    assert DialectScanner._fast_leads == frozenset()


def test_marker_free_chunks_are_one_event_each() -> None:
    s = scanner("chatml")
    assert s.feed("Hello") == [Text("Hello", "Hello")]
    assert s.feed("<think>") == [ThinkingStart("<think>")]  # a marker goes through the machine
    assert s.feed("plan") == [ThinkingDelta("plan", "plan")]


@pytest.mark.parametrize("dialect", ["chatml", "qwen3_coder", "anthropic"])
@settings(max_examples=80, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(
            [
                "Hi ",
                "there",
                "<think>",
                "</think>",
                "<tool_call>",
                '{"name": "f", ',
                '"arguments": {}}',
                "</tool_call>",
                "<thinking>",
                "</thinking>",
                "<",
                "\n",
                "<|im_end|>",
                "x<y",
                "\n\nHuman:",
            ]
        ),
        max_size=12,
    )
)
def test_the_fast_path_gives_the_machines_events(dialect: str, pieces: list[str]) -> None:
    text = "".join(pieces)
    whole = merge(scan(scanner(dialect), [text]))
    assert merge(scan(scanner(dialect), pieces)) == whole
