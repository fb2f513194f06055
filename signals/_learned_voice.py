"""A learned score of the reasoning voice in an answer's opening (private; signal L reads it).

The rules of :mod:`._voice` name the register a model reasons in; a short note that leaks before
the answer ("The user asks to convert 5 km to miles. 5 x 0.621 = 3.1. Answer briefly.") often
holds one strong cue and too little else for their score. This module adds one piece of
evidence the rules cannot write down: how much the opening's words, as a whole, read like the
reasoning leaks of the labelled corpora rather than like their benign answers.

The model is a logistic regression over the opening's first :data:`WINDOW` characters: its
lower-cased words and pairs of adjacent words, its first four words, and the first word of each
sentence, counted and divided by the square root of their total; words holding ``user`` are not
seen (:data:`_BLIND`). It ships as package data (``learned_voice.json``:
a bias and one weight per feature; features without a weight count zero), trained by
``corpora/train_learned_voice.py`` from the corpora with the :func:`features` of this module, so
the features of training and of use are one code. Loading checks the file's shape and its
SHA-256 (:data:`SHA256`); a damaged file raises :class:`~guard.errors.PackageDataError` naming what
was expected.

The score is evidence, never a verdict on its own: L counts it as one weak cue, and only in an
opening whose rules already found a strong cue there (see :mod:`.reasoning_preamble`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources

from guard.errors import PackageDataError
from guard.models import lazy_re as re

__all__ = ["WINDOW", "Model", "Score", "features", "score", "using"]

#: characters of the opening the model reads
WINDOW = 600
#: the file the training script writes, next to this module
MODEL_FILE = "learned_voice.json"
#: SHA-256 of :data:`MODEL_FILE`; the training script prints the new value when it writes one
SHA256 = "68732b85fa771f2419add0cc2475549dfb214da378a274aba94fbe42b8ecce76"

_WORD = re.compile(r"[a-z']+|[0-9]+|[^\sa-z0-9]")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)([A-Za-z']+)")
#: words the model does not see: the rules' strong cue is most often the user in the third
#: person, and the score must be evidence beside it, not the same evidence counted twice
_BLIND = re.compile(r"\buser")


def features(text: str) -> dict[str, float]:
    """The features of ``text``'s first :data:`WINDOW` characters: each count divided by the
    square root of all counts (so length alone does not make an opening weigh more).

    ``w:`` a word, ``b:`` two adjacent words, ``s0:`` to ``s3:`` the first four words, ``s01:``
    the first two together, ``si:`` a word that opens a sentence or a line."""
    text = text[:WINDOW]
    words = _WORD.findall(text.lower())
    counts: Counter[str] = Counter()
    for i, word in enumerate(words):
        counts["w:" + word] += 1
        if i + 1 < len(words):
            counts["b:" + word + " " + words[i + 1]] += 1
    for i, word in enumerate(words[:4]):
        counts[f"s{i}:" + word] += 1
    if words:
        counts["s01:" + " ".join(words[:2])] += 1
    for m in _SENTENCE_START.finditer(text):
        counts["si:" + m.group(1).lower()] += 1
    for key in [k for k in counts if _BLIND.search(k)]:
        del counts[key]
    norm = math.sqrt(sum(counts.values()) or 1)
    return {k: v / norm for k, v in counts.items()}


@dataclass(frozen=True)
class Model:
    bias: float
    weights: dict[str, float]


@dataclass(frozen=True)
class Score:
    """The probability that the opening is leaked reasoning, and the features that pushed it
    up most (for the verdict's explanation)."""

    probability: float
    top: tuple[str, ...]

    def explain(self) -> str:
        shown = ", ".join(repr(f) for f in self.top)
        return f"learned voice {self.probability:.2f} ({shown})"


def parse_model(raw: bytes) -> Model:
    """The model in ``raw`` (the JSON the training script writes), or :class:`PackageDataError`."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise PackageDataError(f"{MODEL_FILE}: expected JSON, got a parse error ({exc})") from None
    if not isinstance(data, dict) or set(data) != {"bias", "weights", "window"}:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise PackageDataError(f"{MODEL_FILE}: expected keys bias, weights, window; got {got}")
    bias, weights, window = data["bias"], data["weights"], data["window"]
    if window != WINDOW:
        raise PackageDataError(f"{MODEL_FILE}: expected window {WINDOW}, got {window!r}")
    if not isinstance(bias, int | float) or not isinstance(weights, dict):
        raise PackageDataError(f"{MODEL_FILE}: expected a number bias and an object of weights")
    if not all(isinstance(k, str) and isinstance(v, int | float) for k, v in weights.items()):
        raise PackageDataError(f"{MODEL_FILE}: expected every weight to be a number under a string")
    return Model(float(bias), {k: float(v) for k, v in weights.items()})


@cache
def _model() -> Model:
    try:
        raw = resources.files(__package__).joinpath(MODEL_FILE).read_bytes()
    except OSError as exc:
        raise PackageDataError(
            f"{MODEL_FILE}: expected the file beside {__name__}, could not read it ({exc})"
        ) from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        raise PackageDataError(
            f"{MODEL_FILE}: expected SHA-256 {SHA256}, got {digest} (a damaged or edited file;"
            " retrain with corpora/train_learned_voice.py)"
        )
    return parse_model(raw)


def _readable(feature: str) -> str:
    kind, _, words = feature.partition(":")
    return {"s0": "opens with ", "s01": "opens with ", "si": "sentence opens with "}.get(
        kind, ""
    ) + words


#: the models :func:`using` put in place of the shipped one, innermost last
_in_place: list[Model | None] = []


@contextmanager
def using(model: Model | None) -> Iterator[None]:
    """Score with ``model`` instead of the shipped one inside the block, or with no model when
    ``None`` (every score 0): the training script's leave-one-set-out evaluation and the tests.
    Not for concurrent use."""
    _in_place.append(model)
    try:
        yield
    finally:
        _in_place.pop()


def score(text: str, model: Model | None = None) -> Score:
    """The learned score of ``text``'s opening (the shipped model unless ``model``)."""
    if model is None:
        model = _in_place[-1] if _in_place else _model()
        if model is None:
            return Score(0.0, ())
    x = features(text)
    parts = [(model.weights.get(k, 0.0) * v, k) for k, v in x.items()]
    z = model.bias + sum(p for p, _ in parts)
    probability = 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))
    top = tuple(_readable(k) for p, k in sorted(parts, reverse=True)[:3] if p > 0)
    return Score(probability, top)
