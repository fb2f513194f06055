"""Training of the learned reasoning voice (``python -m guard.training``).

Signal D's learned path (see docs/detection.md) scores an answer with a logistic regression over
its word and character n-grams (:mod:`guard.signals.voice_model`). This script trains it from
the labelled corpora and writes the model file the package ships
(``signals/voice_model.json``). It needs numpy (``pip install 'inband-guard[train]'``); the
library does not: scoring is plain Python.

What it learns from: every case of the named sets of ``corpora/`` (``guard eval --set``) on the
``text`` surface whose text holds no markup (no control token, tag, bracketed marker or JSON
object: those are the token signals' evidence, and the model is to learn the voice), each read
as the path reads it (its paragraphs of the voice where the path would judge it, else the whole
text), labelled ``leak`` (reasoning shown as the answer) or ``benign``, except the folders in
:data:`HELD_APART`, which measure the model and are never read here. The read held-apart sets
(``heldout``, ``heldout2`` ...) are trained on, as the rules were tuned on them once read.

How: class-balanced logistic regression with an L2 penalty, full-batch Adam, a fixed number of
epochs, every order sorted so a run is reproducible. Each text's n-gram vector is divided by the
square root of its length in n-grams. The weights kept are the :data:`KEEP` largest in size.

The threshold: the highest score of a benign training text that D's learned path would score,
so the shipped model flags no benign text of the corpora; the held-apart sets, and each folder
scored by a model trained without it, say how it does on texts it never saw.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guard.evaluation import SETS, load_cases
from guard.models import Surface
from guard.signals.reasoning_notes import MARKUP, learned_window
from guard.signals.voice_model import FORMAT, MODEL_FILE, features

__all__ = ["HELD_APART", "KEEP", "main", "train"]

#: corpus folders never trained on: they measure the model
HELD_APART = frozenset({"heldout42", "heldout43"})
#: how many weights the model keeps (the largest in size)
KEEP = 40_000
EPOCHS = 300
L2 = 1e-3
RATE = 0.05

_ROOT = Path(__file__).resolve().parent.parent / "corpora"


def _cases(root: Path) -> list[tuple[str, str, bool]]:
    """(folder, text, is a leak) of every text-surface case of ``root``, sorted."""
    names = [name for name in SETS if name not in HELD_APART]
    folders = sorted(root / name for name in names if (root / name).is_dir())
    out = []
    for folder in folders:
        cases, errors = load_cases([folder])
        if errors:
            raise ValueError(f"{folder.name}: {errors[0]}")
        for _, case in cases:
            if case.surface is Surface.TEXT and case.label in ("leak", "benign"):
                out.append((folder.name, case.text, case.label == "leak"))
    out.sort()
    return out


def _fit(grams: list[set[str]], labels: list[bool]) -> tuple[dict[str, float], float]:
    import numpy as np  # the train extra; the library never imports it

    vocab = {g: k for k, g in enumerate(sorted(set().union(*grams)))}
    rows = np.concatenate([np.full(len(g), i) for i, g in enumerate(grams)])
    cols = np.concatenate([np.array(sorted(vocab[x] for x in g), dtype=np.int64) for g in grams])
    scale = np.array([1 / math.sqrt(max(1, len(g))) for g in grams])[rows]
    y = np.array(labels, dtype=float)
    n, size = len(grams), len(vocab)
    share = y.mean()
    balance = np.where(y == 1, 0.5 / share, 0.5 / (1 - share))
    w, b = np.zeros(size), 0.0
    m, v, mb, vb = np.zeros(size), np.zeros(size), 0.0, 0.0
    for epoch in range(1, EPOCHS + 1):
        z = np.bincount(rows, weights=w[cols] * scale, minlength=n) + b
        g = (1 / (1 + np.exp(-z)) - y) * balance / n
        gw = np.bincount(cols, weights=g[rows] * scale, minlength=size) + L2 * w
        gb = float(g.sum())
        m, v = 0.9 * m + 0.1 * gw, 0.999 * v + 0.001 * gw * gw
        mb, vb = 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb * gb
        w -= RATE * (m / (1 - 0.9**epoch)) / (np.sqrt(v / (1 - 0.999**epoch)) + 1e-8)
        b -= RATE * (mb / (1 - 0.9**epoch)) / (math.sqrt(vb / (1 - 0.999**epoch)) + 1e-8)
    names = sorted(vocab, key=vocab.__getitem__)
    order = sorted(range(size), key=lambda k: (-abs(w[k]), names[k]))[:KEEP]
    return {names[k]: round(float(w[k]), 5) for k in order}, round(b, 5)


def _logit(weights: dict[str, float], bias: float, text: str) -> float:
    grams = features(text)
    return bias + sum(weights.get(g, 0.0) for g in grams) / math.sqrt(max(1, len(grams)))


def train(root: Path = _ROOT) -> dict[str, Any]:
    """The model file's content, trained on the corpora under ``root``."""
    cases = _cases(root)
    # each text as the learned path reads it: its paragraphs of the voice where it would be
    # scored, else the whole text
    voice = [
        (learned_window(text) or text, leak)
        for _, text, leak in cases
        if MARKUP.search(text) is None
    ]
    weights, bias = _fit([features(t) for t, _ in voice], [leak for _, leak in voice])
    windows = [learned_window(text) for _, text, leak in cases if not leak]
    scored = [_logit(weights, bias, window) for window in windows if window is not None]
    threshold = max(scored) if scored else 0.0
    return {
        "format": FORMAT,
        "features": "word 1-3-grams and character 3-5-grams, lower-cased; see _voice_model",
        "trained_on": {
            "folders": sorted({folder for folder, _, _ in cases}),
            "held_apart": sorted(HELD_APART),
            "leaks": sum(leak for _, leak in voice),
            "benign": sum(not leak for _, leak in voice),
            "benign_at_the_gate": len(scored),
        },
        "bias": bias,
        "threshold": round(threshold + 1e-5, 5),
        "weights": weights,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m guard.training",
        description="Train signal D's learned reasoning voice on the labelled corpora.",
    )
    parser.add_argument("--corpora", type=Path, default=_ROOT, help="the corpora folder")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "signals" / MODEL_FILE,
        help="where to write the model (default: the package's own model file)",
    )
    args = parser.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"error: expected a corpora folder, got {args.corpora}", file=sys.stderr)
        return 2
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("error: training needs numpy: pip install 'inband-guard[train]'", file=sys.stderr)
        return 2
    model = train(args.corpora)
    args.out.write_text(json.dumps(model, ensure_ascii=False, sort_keys=True) + "\n", "utf-8")
    info = model["trained_on"]
    print(
        f"wrote {args.out.name}: {len(model['weights'])} weights from {info['leaks']} leaks and"
        f" {info['benign']} benign texts; threshold {model['threshold']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
