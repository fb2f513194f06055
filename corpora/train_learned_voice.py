"""Train the learned voice model signal L reads (``signals/learned_voice.json``), or measure it.

Positives are the leaks on the ``text`` surface with no markup (``<``, ``|``, ``[``, ``{``) in
their first 300 characters: reasoning written into the answer, the class the model is for.
Negatives are every benign ``text`` case. Every folder of ``corpora/`` counts except
``examples`` and ``unicode`` and the folders named with ``--hold`` (a blind set kept apart).
Texts are normalised as the detector sees them (:class:`guard.models.TextView`), and the
features are :func:`guard.signals._learned_voice.features`, the function L scores with.

Training is plain stochastic gradient descent on the logistic loss with an L2 penalty, 30
passes in an order fixed by a seeded generator, so the same corpora give the same file. Weights
smaller than :data:`KEEP` are dropped (they move no score by more than a rounding) and the rest
are rounded to four decimals.

Run from the repository root:

* ``python corpora/train_learned_voice.py`` writes the model and prints its SHA-256, which goes
  into ``signals/_learned_voice.py`` (``SHA256``);
* ``python corpora/train_learned_voice.py --check`` retrains and fails when the shipped file
  differs (the test suite runs it);
* ``python corpora/train_learned_voice.py --evaluate heldout31 heldout33`` scores each named
  set with a model trained on every other folder (leave one set out), through the whole
  detector, and prints leaks found and benign texts flagged with and without the model.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import random
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guard.models import TextView  # noqa: E402
from guard.signals import _learned_voice as voice  # noqa: E402

MODEL_PATH = ROOT / "signals" / voice.MODEL_FILE
SKIP = frozenset({"examples", "unicode", "experiments"})
#: weights smaller than this are dropped from the file
KEEP = 0.01
#: a feature is learned only when at least this many training texts hold it (rarer ones are
#: names and one-off phrasings: they fit the corpora, not the register)
MIN_DF = 3
PASSES, RATE, L2, SEED = 30, 0.5, 1e-3, 0

Example = tuple[dict[str, float], int]


def _markup_free(text: str) -> bool:
    return not any(c in text[:300] for c in "<|[{")


def examples(hold: Iterable[str] = ()) -> dict[str, list[Example]]:
    """The training examples of each corpus folder, except ``hold`` and :data:`SKIP`."""
    held = set(hold) | SKIP
    out: dict[str, list[Example]] = {}
    for path in sorted((ROOT / "corpora").glob("*/*.jsonl")):
        if path.parent.name in held:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if case.get("surface") != "text" or case.get("label") not in ("leak", "benign"):
                continue
            text = str(case["text"])
            if case["label"] == "leak" and not _markup_free(text):
                continue
            x = voice.features(TextView(text).norm)
            out.setdefault(path.parent.name, []).append((x, int(case["label"] == "leak")))
    return out


def train(data: list[Example]) -> voice.Model:
    df = collections.Counter(k for x, _ in data for k in x)
    order = [({k: v for k, v in x.items() if df[k] >= MIN_DF}, y) for x, y in data]
    weights: dict[str, float] = collections.defaultdict(float)
    bias = 0.0
    rng = random.Random(SEED)
    for _ in range(PASSES):
        rng.shuffle(order)
        for x, y in order:
            z = bias + sum(weights[k] * v for k, v in x.items())
            g = 1 / (1 + math.exp(-max(-60.0, min(60.0, z)))) - y
            bias -= RATE * g
            for k, v in x.items():
                weights[k] -= RATE * (g * v + L2 * weights[k])
    kept = {k: round(w, 4) for k, w in sorted(weights.items()) if abs(w) >= KEEP}
    return voice.Model(round(bias, 4), kept)


def serialise(model: voice.Model) -> bytes:
    data = {"bias": model.bias, "weights": model.weights, "window": voice.WINDOW}
    return (json.dumps(data, sort_keys=True, ensure_ascii=False, indent=0) + "\n").encode()


def _all_examples(hold: Iterable[str]) -> list[Example]:
    return [e for cases in examples(hold).values() for e in cases]


def write(hold: list[str]) -> None:
    raw = serialise(train(_all_examples(hold)))
    MODEL_PATH.write_bytes(raw)
    print(f"wrote {MODEL_PATH.relative_to(ROOT)}: SHA-256 {hashlib.sha256(raw).hexdigest()}")


def check(hold: list[str]) -> int:
    raw = serialise(train(_all_examples(hold)))
    shipped = MODEL_PATH.read_bytes()
    if raw != shipped:
        print(f"{MODEL_PATH.relative_to(ROOT)} differs from a model trained on the corpora now")
        return 1
    if hashlib.sha256(raw).hexdigest() != voice.SHA256:
        print("signals/_learned_voice.py: SHA256 does not match the file")
        return 1
    print("the shipped model is the one the corpora train")
    return 0


def evaluate(sets: list[str], hold: list[str]) -> None:
    from guard.evaluation import evaluate_cases, load_cases

    for name in sets:
        cases, errors = load_cases([ROOT / "corpora" / name])
        if errors:
            raise SystemExit("\n".join(errors))
        model = train(_all_examples([*hold, name]))
        line = [f"{name}:"]
        for label, used in (("without the model", None), ("with it", model)):
            with voice.using(used):
                report = evaluate_cases(cases)
            total = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
            for score in report.by_family.values():
                for key in total:
                    total[key] += getattr(score, key)
            leaks, benign = total["tp"] + total["fn"], total["fp"] + total["tn"]
            line.append(
                f"{label} leaks found {total['tp']}/{leaks}, benign flagged {total['fp']}/{benign};"
            )
        print(" ".join(line))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", nargs="*", default=[], help="corpus folders not trained on")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="fail when the shipped file differs")
    group.add_argument("--evaluate", nargs="+", metavar="SET", help="leave-one-set-out scores")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.hold)
    if args.evaluate:
        evaluate(args.evaluate, args.hold)
        return 0
    write(args.hold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
