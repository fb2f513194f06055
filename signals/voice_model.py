"""The learned reasoning voice: the model signal D's learned path reads (not a signal itself).

The voice rules of :mod:`._voice` name the register a reasoning model plans in; leaked
reasoning is open-ended prose, and rules written from one set of reports reach only part of the
next. This module scores a text with a logistic regression over its word n-grams (one to three
words) and character n-grams (three to five characters, lower-cased, blanks collapsed), trained
by :mod:`guard.training` on the labelled corpora (answers that are leaked reasoning against hard
benign answers) and shipped as package data (``voice_model.json``).

It is linear, so it explains itself: the score is the bias plus the weights of the n-grams the
text holds (divided by the square root of how many distinct n-grams it holds), and a verdict
names the n-grams that pushed it up most. The threshold ships with the weights: the
training script sets it above every benign training answer that D would have scored, so the
model flags none of the corpora's benign texts by construction; the held-apart sets measure it.

The model is loaded on first use (a few milliseconds) and cached; a missing or malformed file is
a :class:`guard.errors.ConfigError` that names the file and what was wrong, never a silent pass.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any

from guard.errors import ConfigError
from guard.models import lazy_re as re

__all__ = ["MODEL_FILE", "Score", "VoiceModel", "features", "load_model", "words"]

#: the package data file that holds the shipped model
MODEL_FILE = "voice_model.json"
#: the model file's format version this code reads
FORMAT = 1

_WORD = re.compile(r"[a-z']+|[\u3400-\u9fff]|[?.!,:;]")
_BLANKS = re.compile(r"\s+")


def words(text: str) -> list[str]:
    """The words the model reads, in order: runs of ASCII letters and apostrophes, single CJK
    ideographs and single punctuation marks, lower-cased."""
    return _WORD.findall(text.lower())


def _grams(text: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """The distinct word uni-, bi- and trigrams and character three- to five-grams of ``text``
    (``zip`` and ``join`` build them in C, about twice as fast as slicing in a loop)."""
    low = text.lower()
    read = _WORD.findall(low)
    one = set(read)
    two = set(map(" ".join, pairwise(read)))
    three = set(map(" ".join, zip(read, read[1:], read[2:], strict=False)))
    flat = " " + _BLANKS.sub(" ", low) + " "
    shifted = flat[1:], flat[2:], flat[3:], flat[4:]
    chars = set(map("".join, zip(flat, *shifted[:2], strict=False)))
    chars.update(map("".join, zip(flat, *shifted[:3], strict=False)))
    chars.update(map("".join, zip(flat, *shifted, strict=False)))
    return one, two, three, chars


#: the prefix of each kind of n-gram in a feature's name, in :func:`_grams`'s order
_KINDS = ("w ", "b ", "t ", "c")


def features(text: str) -> set[str]:
    """The distinct n-grams of ``text`` the model reads, by name: ``w``/``b``/``t`` word uni-,
    bi- and trigrams (words are runs of ASCII letters and apostrophes, single CJK ideographs and
    single punctuation marks) and ``c`` character three- to five-grams of the lower-cased text
    with its blanks collapsed to one space and a space added at each end."""
    return {kind + gram for kind, grams in zip(_KINDS, _grams(text), strict=True) for gram in grams}


@dataclass(frozen=True, slots=True)
class Score:
    """A text's learned score: ``margin`` is the logit minus the model's threshold (positive:
    the model calls it leaked reasoning); ``top`` the n-grams that raised it most, with their
    contributions, strongest first."""

    margin: float
    top: tuple[tuple[str, float], ...]

    def explain(self) -> str:
        words = ", ".join(f"'{name}' {weight:+.2f}" for name, weight in self.top)
        return f"learned voice {self.margin:+.2f} over its threshold ({words})"


@dataclass(frozen=True, slots=True)
class VoiceModel:
    """The weights, the bias and the threshold (in logits) of the learned voice."""

    weights: dict[str, float]
    bias: float
    threshold: float
    trained_on: dict[str, Any]
    #: the weights split by kind of n-gram, keyed without the prefix (what scoring looks up)
    by_kind: tuple[dict[str, float], ...] = ()

    def __post_init__(self) -> None:
        if not self.by_kind:
            split: tuple[dict[str, float], ...] = tuple({} for _ in _KINDS)
            for name, weight in self.weights.items():
                for kind, table in zip(_KINDS, split, strict=True):
                    if name.startswith(kind):
                        table[name[len(kind) :]] = weight
                        break
            object.__setattr__(self, "by_kind", split)

    def margin(self, text: str) -> float:
        """The logit of ``text`` minus the threshold (positive: leaked reasoning)."""
        grams = _grams(text)
        count = sum(map(len, grams))
        total = sum(
            sum(filter(None, map(table.get, found)))
            for table, found in zip(self.by_kind, grams, strict=True)
        )
        return self.bias + total / math.sqrt(max(1, count)) - self.threshold

    def score(self, text: str, *, top: int = 3) -> Score:
        """:meth:`margin`, with the ``top`` n-grams that raised it most."""
        grams = _grams(text)
        scale = 1.0 / math.sqrt(max(1, sum(map(len, grams))))
        named = [
            (weight, kind + gram)
            for kind, table, found in zip(_KINDS, self.by_kind, grams, strict=True)
            for gram in found
            if (weight := table.get(gram, 0.0)) > 0
        ]
        named.sort(key=lambda pair: (-pair[0], pair[1]))
        return Score(self.margin(text), tuple((_shown(gram), w * scale) for w, gram in named[:top]))


def _shown(gram: str) -> str:
    """A feature as a verdict names it: a word n-gram as its words, a character n-gram as its
    characters between bars (``|er wa|``)."""
    return gram[2:] if gram[1] == " " and gram[0] in "wbt" else f"|{gram[1:]}|"


def parse_model(data: Any, where: str) -> VoiceModel:
    """A :class:`VoiceModel` from the decoded JSON of a model file (``where`` names it in
    errors)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ConfigError(f"{where}: expected format {FORMAT}, got {data.get('format')!r}")
    weights = data.get("weights")
    if not isinstance(weights, dict) or not all(
        isinstance(k, str)
        and isinstance(v, (int, float))
        and not isinstance(v, bool)
        and math.isfinite(v)
        for k, v in weights.items()
    ):
        raise ConfigError(f"{where}: expected 'weights' to map n-grams to finite numbers")
    numbers = {}
    for key in ("bias", "threshold"):
        value = data.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(f"{where}: expected a finite number for {key!r}, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{where}: expected a finite number for {key!r}, got {value!r}")
        numbers[key] = float(value)
    trained_on = data.get("trained_on")
    return VoiceModel(
        {k: float(v) for k, v in weights.items()},
        numbers["bias"],
        numbers["threshold"],
        trained_on if isinstance(trained_on, dict) else {},
    )


@cache
def load_model() -> VoiceModel:
    """The shipped model, read once per process."""
    where = f"guard.signals/{MODEL_FILE}"
    try:
        raw = resources.files("guard.signals").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read the learned voice model ({exc})") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"{where}: expected JSON ({exc})") from exc
    return parse_model(data, where)
