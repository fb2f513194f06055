"""Dialect records as TOML files: every built-in file loads to the record its module exposes,
bad files fail naming the file and the field, and a made-up dialect goes from a TOML file to
``register`` and works like a built-in one."""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import guard
from guard.dialects import (
    DIALECTS,
    Dialect,
    DialectFileError,
    dialect_for_model,
    get_dialect,
    load_dialect,
    register,
    unregister,
)
from guard.dialects._cache import cache_path, derived
from guard.dialects._load import DATA, ROLE, builtin
from guard.models import ToolEnd, TurnGrammar
from guard.scanners import scanner

BUILTIN = sorted(p.stem for p in DATA.glob("*.toml"))
#: the module that exposes each built-in record, and the constant's name
MODULES = {name: ("deepseek" if name == "deepseek_v32" else name) for name in BUILTIN}


def _fields(record: Dialect | TurnGrammar | None) -> object:
    """Every field, ``sources`` too (equality leaves it out)."""
    if record is None:
        return None
    return {
        f.name: _fields(v) if isinstance(v := getattr(record, f.name), TurnGrammar) else v
        for f in dataclasses.fields(record)
        if f.init
    }


def test_every_built_in_dialect_has_a_file_and_every_file_a_dialect() -> None:
    assert sorted(DIALECTS) == BUILTIN


@pytest.mark.parametrize("name", BUILTIN)
def test_a_built_in_file_loads_to_the_record_the_module_exposes(name: str) -> None:
    module = importlib.import_module(f"guard.dialects.{MODULES[name]}")
    exposed = getattr(module, name.upper())
    assert get_dialect(name) is exposed is builtin(name).record
    loaded = load_dialect(DATA / f"{name}.toml")
    assert loaded == exposed
    assert _fields(loaded) == _fields(exposed)
    assert load_dialect(str(DATA / f"{name}.toml")) == exposed  # a path as a str
    assert load_dialect((DATA / f"{name}.toml").read_text(encoding="utf-8")) == exposed  # text


def test_module_constants_come_from_the_files() -> None:
    from guard.dialects import anthropic, harmony, kimi, kimi_k3, llama3, pythonic, qwen3_coder

    assert (kimi_k3.OPEN, kimi_k3.CLOSE, kimi_k3.SEP, kimi_k3.END_OF_MSG) == (
        "<|open|>",
        "<|close|>",
        "<|sep|>",
        "<|end_of_msg|>",
    )
    assert harmony.CORE[0] == "<|return|>" and len(harmony.CORE) == 7
    assert qwen3_coder.CALL_TAGS == ("<function=", "</function>", "<parameter=", "</parameter>")
    assert set(kimi_k3.KIMI_K3.reserved[:4]) <= set(kimi.KIMI.reserved)
    # a spliced list keeps each spelling once, first come
    assert len(set(llama3.LLAMA3.reserved)) == len(llama3.LLAMA3.reserved)
    assert set(pythonic.LLAMA4) <= set(llama3.LLAMA3.reserved)
    # the prefixed tags are the plain ones with Claude's namespace after `<` or `</`
    prefixed = builtin("anthropic").sets["prefixed_tags"]
    ns = anthropic.NS
    assert prefixed == tuple(
        "</" + ns + t[2:] if t.startswith("</") else "<" + ns + t[1:] for t in anthropic.TAGS
    )


def test_role_placeholder_and_one_item_turns() -> None:
    record = load_dialect(
        'name = "turny"\nreserved = ["<t>"]\n[transcript]\n'
        "turns = [['<t>${role}\\n'], ['<u>', \"user\"]]\n"
    )
    assert record.transcript is not None
    assert record.transcript.turns == ((f"<t>{ROLE}\\n", None), ("<u>", "user"))


BAD = [
    ('name = "x"\nreserved = ["<a>", 3]\n', r"reserved\[1\]: expected `str`, got `int`"),
    ('name = "x"\n\n', r"reserved: missing \(required\)"),
    ('name = "x"\nreserved = ["<a>"]\ncolour = "red"\n', r"colour: unknown key 'colour'; expected"),
    ('name = "x\nreserved = 1\n', "not valid TOML"),
    ('name = "X"\nreserved = ["<a>"]\n', "lower case, got 'X'"),
    ('name = "x"\nreserved = ["<a>"]\ncall_body = "xml"\n', r"call_body: invalid enum value 'xml'"),
    ('name = "x"\nreserved = ["<a>"]\nthinking = [["<t>"]]\n', r"thinking\[0\]: expected `array`"),
    ('name = "x"\nreserved = "<a>"\n', "reserved: expected `array`, got `str`"),
    (
        'name = "x"\nreserved = [{ use = "sets.none" }]\n',
        "use 'sets.none': no such",
    ),
    ('name = "x"\nreserved = [{ use = "nope:reserved" }]\n', "no built-in dialect 'nope'"),
    ('name = "x"\nreserved = [{ use = "name" }]\n', "expected an array, got a string"),
    (
        'name = "x"\nreserved = [{ use = "sets.a" }]\n[sets]\na = [{ use = "sets.a" }]\n',
        r"sets.a\[0\]: use 'sets.a': the list uses itself",
    ),
    ('name = "x"\nreserved = ["<a>"]\n[sets]\na = [1]\n', r"sets.a\[0\]: expected `str`"),
    ('name = "x"\nreserved = ["<a>"]\n[transcript]\nends = ["<e>"]\n', "transcript.turns: missing"),
    ('name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = []\n', "at least one turn opening"),
    ('name = "x"\nreserved = ["<a>"]\ntranscript = 1\n', "transcript: expected a table, got int"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_a_bad_file_names_the_file_and_the_field(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DialectFileError, match=message) as caught:
        load_dialect(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, guard.GuardError)
    with pytest.raises(ValueError, match=message):
        load_dialect(text if "\n" in text else text + "\n")


ACME_TOML = """\
# A made-up dialect, to register from its file.
name = "acme"
aliases = ["acme-chat"]
reserved = [
    "<|acme_call|>",
    "<|acme_end|>",
    "<|acme_result|>",
    "<|acme_stop|>",
    "<acme:think>",
    "</acme:think>",
]
call_open = ["<|acme_call|>"]
call_close = ["<|acme_end|>"]
result_open = ["<|acme_result|>"]
thinking = [["<acme:think>", "</acme:think>"]]
stop = ["<|acme_stop|>"]
models = ["acme-"]
family = "Acme (a made-up dialect)"

[transcript]
turns = [['<\\|acme_turn\\|>${role}\\n']]
ends = ["<|acme_stop|>"]
"""


@pytest.fixture
def acme_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "acme.toml"
    path.write_text(ACME_TOML, encoding="utf-8")
    yield path
    unregister("acme")


def test_load_and_register_a_made_up_dialect(acme_file: Path) -> None:
    acme = load_dialect(acme_file)
    register(acme)
    assert get_dialect("ACME-Chat") is acme and DIALECTS["acme"] is acme
    assert dialect_for_model("acme-7b") == "acme"
    assert acme.transcript is not None
    assert acme.transcript.turns == ((rf"<\|acme_turn\|>{ROLE}\n", None),)
    escaped = guard.escape("use <|acme_call|> or <acme:think>", dialect="acme")
    assert escaped != "use <|acme_call|> or <acme:think>"
    assert guard.unescape(escaped, dialect="acme") == "use <|acme_call|> or <acme:think>"
    assert guard.detect("Sure! <|acme_call|>", "text", dialect="acme").leak
    output = '<|acme_call|>{"name": "get_weather", "arguments": {"city": "Oslo"}}<|acme_end|>'
    s = scanner("acme")
    events = [*s.feed(output[:17]), *s.feed(output[17:]), *s.flush()]
    call = next(e for e in events if isinstance(e, ToolEnd))
    assert (call.name, call.arguments) == ("get_weather", '{"city": "Oslo"}')


def test_a_user_file_may_use_a_built_in_list() -> None:
    record = load_dialect(
        'name = "qwenish"\nreserved = [{ use = "chatml:reserved" }, "<|mine|>", "<|im_end|>"]\n'
    )
    chatml = get_dialect("chatml")
    assert record.reserved == (*chatml.reserved, "<|mine|>")


def test_a_use_item_holding_other_keys_is_refused() -> None:
    with pytest.raises(DialectFileError, match=r'expected \{ use = "REF" \} alone'):
        load_dialect('name = "x"\nreserved = [{ use = "chatml:reserved", more = 1 }]\n')


#: the stdlib checker's strictness and messages beyond BAD (the record's own field types)
STRICT = [
    (
        'name = "x"\nreserved = ["<a>"]\naliases = [true]\n',
        r"aliases\[0\]: expected `str`, got `bool`",
    ),
    ('name = 3\nreserved = ["<a>"]\n', "name: expected `str`, got `int`"),
    ('name = "x"\nreserved = ["<a>"]\nfamily = 1979-05-27\n', "family: expected `str`, got `date`"),
    ('name = "x"\nreserved = ["<a>"]\ncall_body = 3\n', "call_body: expected `str`, got `int`"),
    ('name = "x"\nreserved = ["<a>"]\ncolour = 1\n', r"colour: unknown key .*\bsets\b"),
    (
        'name = "x"\nreserved = ["<a>"]\nthinking = [{ a = 1 }]\n',
        r"thinking\[0\]: expected `array`",
    ),
    ('name = "x"\nreserved = ["<a>"]\nmodels = [" "]\n', "empty model-name key"),
    (
        'name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["<t>", 3]]\n',
        r"transcript.turns\[0\]\[1\]: expected `str`, got `int`",
    ),
    (
        'name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["<t>", "a", "b"]]\n',
        r"transcript.turns\[0\]: expected `array` of length 2, got `array` of length 3",
    ),
    (
        'name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["<t>"]]\nend_before_tool = 1\n',
        "transcript.end_before_tool: expected `bool`, got `int`",
    ),
    (
        'name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["<t>"]]\ncolour = 1\n',
        "transcript.colour: unknown key 'colour'; expected bos, ",
    ),
]


@pytest.mark.parametrize(("text", "message"), STRICT)
def test_the_checker_is_strict_and_names_the_field(text: str, message: str) -> None:
    with pytest.raises(DialectFileError, match=message):
        load_dialect(text)


def test_the_checker_builds_tuples_and_the_nested_record() -> None:
    record = load_dialect(
        'name = "x"\nreserved = ["<a>"]\nthinking = [["<t>", "</t>"]]\n'
        '[transcript]\nturns = [["<u>", "user"]]\nend_before_tool = false\n'
    )
    assert record.thinking == (("<t>", "</t>"),) and isinstance(record.reserved, tuple)
    assert record.transcript == TurnGrammar(turns=(("<u>", "user"),), end_before_tool=False)


def test_loading_the_records_does_not_import_msgspec() -> None:
    code = "import sys, guard.dialects; sys.exit('msgspec' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=root)
    assert done.returncode == 0


# --- the kept tables (guard.dialects._cache) ---------------------------------------------------


def test_the_kept_tables_are_the_parsed_ones() -> None:
    from guard.dialects._load import _builtin_names, _builtins, _expanded

    assert _builtins() == {name: _expanded(name) for name in _builtin_names()}


def test_a_kept_value_is_used_only_for_the_same_texts(tmp_path: Path) -> None:
    calls: list[str] = []

    def derive(value: str) -> Callable[[], dict[str, list[str]]]:
        return lambda: calls.append(value) or {"v": [value]}

    path = str(tmp_path / "__pycache__" / "x.marshal")
    assert derived({"a": "1"}, derive("first"), path) == {"v": ["first"]}
    assert derived({"a": "1"}, derive("second"), path) == {"v": ["first"]}  # kept
    assert derived({"a": "2"}, derive("third"), path) == {"v": ["third"]}  # a text changed
    assert derived({"a": "2", "b": ""}, derive("fourth"), path) == {"v": ["fourth"]}  # a new file
    Path(path).write_bytes(b"\x00garbage")
    assert derived({"a": "2"}, derive("fifth"), path) == {"v": ["fifth"]}  # unreadable: derived
    assert derived({"a": "2"}, derive("sixth"), path) == {"v": ["fifth"]}  # and kept again
    assert calls == ["first", "third", "fourth", "fifth"]
    assert derived({"a": "2"}, derive("none"), None) == {"v": ["none"]}  # nowhere to keep it


def test_a_kept_value_is_not_written_when_it_must_not_or_cannot_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "kept.marshal"
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert derived({"a": "1"}, lambda: [1], str(path)) == [1]
    assert not path.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    when = datetime.date(1979, 5, 27)
    assert derived({"a": "1"}, lambda: [when], str(path)) == [when]  # marshal cannot hold it
    assert not path.exists()
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")  # a file where the folder would be
    assert derived({"a": "1"}, lambda: [2], str(blocked / "kept.marshal")) == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # no partial file left


def test_the_kept_tables_follow_pycache_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    path = cache_path(DATA, "records")
    assert path is not None and path.startswith(str(tmp_path)) and path.endswith(".marshal")


def test_a_start_with_kept_tables_parses_no_toml(tmp_path: Path) -> None:
    code = "import sys, guard.dialects; print('tomllib' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["True"], ["False"]]
