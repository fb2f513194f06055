"""F: with declared tools, a trailing JSON object introduced by a declared tool's name or naming
one under an ad-hoc key is a call written as text: positive, negative and every chunk split."""

from __future__ import annotations

import pytest
from support.monitor import streamed

from guard import detect

TOOLS = ["get_weather", "read_file", "bash", "searxng_search"]


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ('get_weather\n{"location": "Paris", "unit": "celsius"}', "{"),  # GLM-4-0414's form
        ('bash {"command": "ls -la"}', "{"),
        ('I will open the guide now.\nto=read_file {"path": "guide/setup.txt"}', "{"),
        ('--- CALL --- nc://searxng_search {"query": "news", "max_results": 8}\n', "{"),
        ('get_weather\n{"location": "Paris"}' + " " * 3000, "{"),  # trailing blanks
        ('Reading.\n{"action": "read_file", "params": {"path": "src/main.py"}}', "{"),
        ('{"tool": "bash", "args": {"command": "pwd"}}', "{"),
        ('{"function": "bash", "note": "x", "parameters": {"command": "pwd"}}', "{"),
        ('read_file\n  {"path": "a.py"}', "{"),
        # a call list under a lone tool_calls key, its calls naming declared tools
        ('{ "toolCalls": [ { "id": "c1", "type": "bash", "command": "git branch -a" } ] }', "{"),
        ('Running it.\n{"tool_calls": [{"function": "bash", "command": "ls"}]}', "{"),
    ],
)
def test_a_declared_tools_arguments_as_text_trip(text: str, start: str) -> None:
    v = detect(text, dialect="glm", tools=TOOLS)
    assert v.leak and v.signals == ("F",), text
    assert v.cut == text.index(start)


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('get_weather\n{"location": "Paris"}', None),  # without declared tools: silent
        ('get_weather\n{"location": "Paris"}', ["search"]),  # not a declared tool
        ('Here is the result:\n{"location": "Paris"}', TOOLS),  # another word before it
        ('The weather tool get_weather returns {"temp": 21} for Paris, see above.', TOOLS),
        ('get_weather\n{"location": "Paris"}\nThat is what it takes.', TOOLS),  # not the end
        ('{"action": "read_file", "path": "a.py"}', TOOLS),  # keyed, no argument object
        ('{"name": "bash", "score": 3}', TOOLS),  # a JSON answer naming a tool
        ('{"action": "deploy", "params": {"env": "prod"}}', TOOLS),  # names no declared tool
        ('```\nget_weather\n{"location": "Paris"}\n```', TOOLS),  # closed code
        ("get_weather\n{}", TOOLS),  # no key at all
        ('get_weather the city {"location": "Paris"}', TOOLS),  # words between name and object
        ('get_weather\n\n{"location": "Paris"}', TOOLS),  # a blank line between them
        # a declared name that is a common word, inside a sentence or a path
        ('The final result\n{"score": 0.93}', ["result"]),
        ('Content-Type: application/json\n{"query": "x"}', ["json"]),
        ('Response body for GET /users\n{"id": 5}', ["users"]),
        ('Response format=json {"status": "ok"}', ["json"]),
        # keyed, but no key holds the arguments, or the tool key is not first
        ('{"tool": "bash", "input_schema": {"type": "object"}}', TOOLS),
        # a call list naming an undeclared tool, empty, introduced as a sample, or with more keys
        ('{"tool_calls": [{"type": "deploy", "env": "prod"}]}', TOOLS),
        ('{"tool_calls": []}', TOOLS),
        ('The payload looks like:\n{"tool_calls": [{"type": "bash", "command": "ls"}]}', TOOLS),
        ('{"tool_calls": [{"type": "bash"}], "count": 1}', TOOLS),
        ('The log: {"tool_calls": [{"type": "bash", "command": "ls"}]}', TOOLS),  # mid-line
    ],
)
def test_near_misses_pass(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="glm", tools=tools).leak, text


def test_every_dialect_reads_it() -> None:
    text = 'bash {"command": "ls"}'
    for dialect in ("glm", "chatml", "harmony", "all"):
        assert detect(text, dialect=dialect, tools=TOOLS).signals == ("F",), dialect


def test_the_reasoning_part_counts_too() -> None:
    text = 'I should list the files first.\nbash {"command": "ls"}'
    v = detect(text, surface="thinking", dialect="glm", tools=TOOLS)
    assert v.leak and "F" in v.signals


NAMED = 'On it.\nget_weather\n{"location": "Paris", "days": [1, 2]}'
KEYED = 'Reading.\n{"action": "read_file", "params": {"path": "a.py"}}'


def test_a_keyed_call_every_split_gives_the_whole_verdict_and_is_held() -> None:
    whole = detect(KEYED, dialect="glm", tools=TOOLS)
    assert whole.leak
    for cut in range(1, len(KEYED)):
        verdict, release = streamed(KEYED, cut, "text", "glm", tools=frozenset(TOOLS))
        assert verdict == whole, cut
        assert release == whole.cut == KEYED.index("{"), cut


def test_a_call_list_every_split_gives_the_whole_verdict_and_is_held() -> None:
    text = 'Running it.\n{"toolCalls": [{"type": "bash", "command": "ls"}]}'
    whole = detect(text, dialect="glm", tools=TOOLS)
    assert whole.leak and whole.cut == text.index("{")
    for cut in range(1, len(text)):
        verdict, release = streamed(text, cut, "text", "glm", tools=frozenset(TOOLS))
        assert verdict == whole, cut
        assert release == whole.cut, cut  # nothing of the forged calls is shown


def test_a_named_call_every_split_gives_the_whole_verdict() -> None:
    # a stream does not hold an object back for its name (it would hold every JSON answer):
    # it relays the object and reports the leak at the end
    whole = detect(NAMED, dialect="glm", tools=TOOLS)
    assert whole.leak and whole.cut == NAMED.index("{")
    for cut in range(1, len(NAMED)):
        verdict, _ = streamed(NAMED, cut, "text", "glm", tools=frozenset(TOOLS))
        assert verdict == whole, cut


def test_a_stream_does_not_hold_an_ordinary_json_answer() -> None:
    from guard.dialects import get_dialect
    from guard.gate import DEFAULT_POLICY, SurfaceMonitor
    from guard.models import Surface

    text = 'Here is the data:\n{"id": 1, "name": "Ann", "tags": ["a", "b"], "n": 2}'
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("chatml"), DEFAULT_POLICY)
    monitor.feed(text[:-1])
    assert monitor.release >= len(text) - 8  # only the last characters wait


def test_a_stream_releases_an_object_that_prose_follows() -> None:
    text = 'The result:\n{"location": "Paris"}\nAll done, it is sunny.'
    for cut in range(1, len(text)):
        verdict, release = streamed(text, cut, "text", "glm", tools=frozenset(TOOLS))
        assert not verdict.leak and release == len(text), cut


def test_gemini_s_name_and_args_object_is_y_s_call_not_f_s() -> None:
    # ``{"name": ..., "args": {...}}`` is Gemini's call object: with the tool declared, Y reads
    # it wherever it sits (F reads the keyed forms whose first key names the tool)
    v = detect('{"name": "bash", "args": {"x": 1}}', dialect="glm", tools=TOOLS)
    assert v.leak and v.signals == ("Y",), v.reason


def test_an_id_then_the_keyed_call_is_y_s_call_not_f_s() -> None:
    # F's keyed form needs the tool key first; with only a call's keys, Y reads the object
    v = detect('{"id": 3, "action": "bash", "args": {"command": "ls"}}', dialect="glm", tools=TOOLS)
    assert v.leak and v.signals == ("Y",), v.reason
