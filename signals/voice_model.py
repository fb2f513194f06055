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


def features(text: str) -> set[str]:
    """The distinct n-grams of ``text`` the model reads: ``w``/``b``/``t`` word uni-, bi- and
    trigrams (words are runs of ASCII letters and apostrophes, single CJK ideographs and single
    punctuation marks) and ``c`` character three- to five-grams of the lower-cased text with
    its blanks collapsed to one space and a space added at each end."""
    low = text.lower()
    read = _WORD.findall(low)
    out: set[str] = set()
    add = out.add
    n = len(read)
    for i, word in enumerate(read):
        add("w " + word)
        if i + 1 < n:
            pair = word + " " + read[i + 1]
            add("b " + pair)
            if i + 2 < n:
                add("t " + pair + " " + read[i + 2])
    flat = " " + _BLANKS.sub(" ", low) + " "
    for size in (3, 4, 5):
        for i in range(len(flat) - size + 1):
            add("c" + flat[i : i + size])
    return out


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

    def score(self, text: str, *, top: int = 3) -> Score:
        grams = features(text)
        get = self.weights.get
        scale = 1.0 / math.sqrt(max(1, len(grams)))
        total = 0.0
        named: list[tuple[float, str]] = []
        for gram in grams:
            weight = get(gram)
            if weight is None:
                continue
            total += weight
            if weight > 0:
                named.append((weight, gram))
        named.sort(key=lambda pair: (-pair[0], pair[1]))
        margin = self.bias + total * scale - self.threshold
        return Score(margin, tuple((_shown(gram), w * scale) for w, gram in named[:top]))


def _shown(gram: str) -> str:
    """A feature as a verdict names it: a word n-gram as its words, a character n-gram as its
    characters between bars (``|er wa|``)."""
    return gram[2:] if gram[0] in "wbt" and gram[1] == " " else f"|{gram[1:]}|"


def parse_model(data: Any, where: str) -> VoiceModel:
    """A :class:`VoiceModel` from the decoded JSON of a model file (``where`` names it in
    errors)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ConfigError(f"{where}: expected format {FORMAT}, got {data.get('format')!r}")
    weights = data.get("weights")
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
        for k, v in weights.items()
    ):
        raise ConfigError(f"{where}: expected 'weights' to map n-grams to numbers")
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
