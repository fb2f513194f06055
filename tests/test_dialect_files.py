"""Dialect records as TOML files: every built-in file loads to the record its module exposes,
bad files fail naming the file and the field, and a made-up dialect goes from a TOML file to
``register`` and works like a built-in one."""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import marshal
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


# --- faults of a file, found at load (never a hang, a crash or a late surprise) ----------------


def _levels(count: int, width: int = 2, first: str = '["x"]') -> str:
    """``sets.a0`` and ``count`` lists each using the one before ``width`` times."""
    lines = ["[sets]", f"a0 = {first}"]
    for i in range(1, count + 1):
        use = '{ use = "sets.a' + str(i - 1) + '" }'
        lines.append(f"a{i} = [{', '.join([use] * width)}]")
    return "\n".join(['name = "x"', f'reserved = [{{ use = "sets.a{count}" }}]', *lines, ""])


def test_a_list_used_twice_per_level_is_expanded_once_per_file() -> None:
    assert load_dialect(_levels(40)).reserved == ("x",)  # 2**40 splices without the memo


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _levels(2, width=200, first=str([f"<{i}>" for i in range(1000)])),
            r"sets.a1\[100\]: use 'sets.a0': the file splices more than 100000 items",
        ),
        (_levels(70, width=1), "nested more than 64 deep"),
        ('name = "x"\nreserved = ' + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        (
            'name = "x"\nreserved = ["<a>"]\naliases = [{ use = "sets.a" }, { x = 1 }]\n'
            '[sets]\na = ["b"]\n',
            r"aliases\[1\]: expected `str`, got `object`",
        ),
        ('name = "x"\nreserved = ["<a>"]\nreserved_patterns = ["<(a"]\n', "reserved_patterns"),
        ('name = "x"\nreserved = ["<a>"]\nescape_patterns = ["a{2,1}"]\n', "escape_patterns"),
        ('name = "x"\nreserved = ["<a>"]\noutput_patterns = ["<\\\\|a{2,1}"]\n', "output_patterns"),
        # an output pattern H could never find (no bar, no plain first character)
        ('name = "x"\nreserved = ["<a>"]\noutput_patterns = ["\\\\w+!!"]\n', "output_patterns"),
        ('name = "x"\nreserved = ["<a>"]\nresult_open_patterns = ["(?P<"]\n', "result_open_p"),
        ('name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["(x"]]\n', "transcript.turns"),
        (
            'name = "x"\nreserved = ["<a>"]\n[transcript]\nturns = [["x"]]\nresults = ["[x"]\n',
            "transcript.results",
        ),
    ],
)
def test_a_fault_is_a_dialect_file_error_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(DialectFileError, match=message) as caught:
        load_dialect(text)
    assert str(caught.value).startswith("<dialect text>: ")


def test_a_bad_pattern_fails_at_load_naming_the_field_and_the_regex_error() -> None:
    with pytest.raises(DialectFileError, match=r"reserved_patterns\[1\]: invalid regex: "):
        load_dialect('name = "x"\nreserved = ["<a>"]\nreserved_patterns = ["<b>", "<(b"]\n')


def test_a_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "x"\nreserved = ["<é>"]\n'.encode("latin-1"))
    with pytest.raises(DialectFileError, match="not UTF-8 text") as caught:
        load_dialect(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_threads_loading_files_that_use_built_in_lists_do_not_see_a_circle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guard.dialects import _load

    inside, go = threading.Event(), threading.Event()
    expand = _load._File.expand

    def slow(self: Any, value: Any, where: str, *more: Any) -> Any:
        if self.source.endswith("chatml.toml") and not where and not inside.is_set():
            inside.set()  # the first thread is expanding chatml.toml: hold it there
            go.wait(5)
        return expand(self, value, where, *more)

    monkeypatch.setattr(_load._File, "expand", slow)
    _load._expanded.cache_clear()
    text = 'name = "x{}"\nreserved = [{{ use = "chatml:reserved" }}]\n'
    errors: list[BaseException] = []

    def load(i: int) -> None:
        try:
            assert load_dialect(text.format(i)).reserved == get_dialect("chatml").reserved
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            go.set()

    first = threading.Thread(target=load, args=(0,))
    first.start()
    assert inside.wait(5)
    second = threading.Thread(target=load, args=(1,))
    second.start()
    second.join(0.5)  # before the fix it failed at once; after it, waits for the first
    go.set()
    first.join(10)
    second.join(10)
    assert errors == []
    _load._expanded.cache_clear()


# --- guard from a zip, and a damaged kept file ---------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=env.get("CWD"), env=env, capture_output=True, text=True
    )


def test_guard_imports_and_escapes_from_a_zip(tmp_path: Path) -> None:
    archive = tmp_path / "guard.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for folder, dirs, files in os.walk(ROOT / "guard", followlinks=True):  # as installed
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                path = Path(folder, name)
                zipped.write(path, path.relative_to(ROOT))
    code = (
        "import guard\n"
        "from guard.dialects import DIALECTS, load_dialect\n"
        "assert 'guard.zip' in guard.__file__\n"
        'assert load_dialect(\'name = "z"\\nreserved = [{ use = "chatml:reserved" }]\\n\')\n'
        "print(len(DIALECTS), guard.escape('<|im_start|>', dialect='chatml'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(archive), "CWD": str(tmp_path)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = _python(code, env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(len(DIALECTS)), guard.escape("<|im_start|>", "chatml")]
    assert not list(tmp_path.rglob("*.marshal"))  # nothing kept for files not in a folder


@pytest.mark.parametrize("damage", ["empty", "one_table"])
def test_a_damaged_kept_file_is_derived_again_and_rewritten(damage: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(tmp_path), CWD=str(ROOT))
    code = "import guard.dialects as d; print(len(d.DIALECTS), d.get_dialect('chatml').name)"
    first = _python(code, env)
    assert first.returncode == 0, first.stderr
    (kept,) = tmp_path.rglob("records*.marshal")
    texts, tables = marshal.loads(kept.read_bytes())
    broken = {} if damage == "empty" else {**tables, "chatml": {"name": 1}}
    kept.write_bytes(marshal.dumps((texts, broken)))
    for _ in range(2):  # derived again, and kept again whole
        run = _python(code, env)
        assert (run.returncode, run.stdout) == (0, first.stdout), run.stderr
    assert marshal.loads(kept.read_bytes()) == (texts, tables)
