"""Experiment (not shipped): can a small learned scorer find reasoning written into the answer
where the rules of signals L, V and D miss it?

A logistic regression over word unigrams, bigrams, the first words and sentence-initial words
of a text's first :data:`WINDOW` characters, trained by plain SGD (no dependency beyond the
standard library). Positives: leaks on the ``text`` surface with no markup in their first 300
characters (reasoning, claims, stripped forms); negatives: every benign ``text`` case. Each
held-apart set is scored by a model trained on all the others (leave one set out), and the
report says, per threshold, how many of the leaks the detector misses the model would catch
and which benign texts it would flag.

Run from the repository root: ``python corpora/experiments/voice_ngram_lr.py``.
"""

from __future__ import annotations

import collections
import json
import math
import random
import re
from pathlib import Path

from guard import detect

ROOT = Path(__file__).resolve().parents[2]
WINDOW = 600
SETS = [f"heldout{n}" for n in ("", *range(2, 100))]
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
_WORD = re.compile(r"[a-z']+|[0-9]+|[^\sa-z0-9]")
_MARKUP = re.compile(r"[<|\[{]")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)([A-Za-z']+)")

Case = tuple[dict[str, float], int, str, dict[str, object]]


def features(text: str) -> dict[str, float]:
    text = text[:WINDOW]
    words = _WORD.findall(text.lower())
    counts: collections.Counter[str] = collections.Counter()
    for i, w in enumerate(words):
        counts["w:" + w] += 1
        if i + 1 < len(words):
            counts["b:" + w + " " + words[i + 1]] += 1
    for i, w in enumerate(words[:4]):
        counts[f"s{i}:" + w] += 1
    if words:
        counts["s01:" + " ".join(words[:2])] += 1
    for m in _SENTENCE_START.finditer(text):
        counts["si:" + m.group(1).lower()] += 1
    norm = math.sqrt(sum(counts.values()) or 1)
    return {k: v / norm for k, v in counts.items()}


def cases() -> dict[str, list[Case]]:
    out: dict[str, list[Case]] = {}
    for path in sorted((ROOT / "corpora").glob("*/*.jsonl")):
        if path.parent.name in ("examples", "unicode"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            if d.get("surface") != "text" or d["label"] not in ("leak", "benign"):
                continue
            if d["label"] == "leak" and _MARKUP.search(d["text"][:300]):
                continue
            y = int(d["label"] == "leak")
            out.setdefault(path.parent.name, []).append((features(d["text"]), y, d["id"], d))
    return out


def train(data: list[Case]) -> tuple[dict[str, float], float]:
    w: dict[str, float] = collections.defaultdict(float)
    b, rate, l2 = 0.0, 0.5, 1e-3
    rng = random.Random(0)
    data = list(data)
    for _ in range(30):
        rng.shuffle(data)
        for x, y, _id, _d in data:
            z = b + sum(w[k] * v for k, v in x.items())
            g = 1 / (1 + math.exp(-z)) - y
            b -= rate * g
            for k, v in x.items():
                w[k] -= rate * (g * v + l2 * w[k])
    return dict(w), b


def missed(d: dict[str, object]) -> bool:
    tools = d.get("tools")
    verdict = detect(
        str(d["text"]),
        "text",
        str(d.get("dialect", "harmony")),
        tools=list(tools) if isinstance(tools, list) else None,
        reasoning=d.get("reasoning") if isinstance(d.get("reasoning"), bool) else None,
    )
    return not verdict.leak


def main() -> None:
    by_set = cases()
    caught = dict.fromkeys(THRESHOLDS, 0)
    flagged: dict[float, list[str]] = {t: [] for t in THRESHOLDS}
    misses = benign = 0
    for held in SETS:
        if held not in by_set:
            continue
        w, b = train([c for name, cs in by_set.items() if name != held for c in cs])
        for x, y, case_id, d in by_set[held]:
            p = 1 / (1 + math.exp(-(b + sum(w.get(k, 0.0) * v for k, v in x.items()))))
            if y == 0:
                benign += 1
                for t in THRESHOLDS:
                    if p >= t:
                        flagged[t].append(case_id)
            elif missed(d):
                misses += 1
                for t in THRESHOLDS:
                    caught[t] += p >= t
    for t in THRESHOLDS:
        print(
            f"p >= {t}: catches {caught[t]} of {misses} markup-free leaks the detector misses;"
            f" flags {len(flagged[t])} of {benign} benign texts {flagged[t]}"
        )


if __name__ == "__main__":
    main()
