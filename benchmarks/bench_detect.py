"""Detection throughput (MB/s) on clean prose, on documentation dense with quoted spellings, and
on leak-heavy text, in one run beside two floors on the same input: `text.find("<|")` (the
issue's floor; it stops at the first occurrence) and `text.count("<|")` (a full scan).

The ratios to each floor are of medians, each measured in its own stretch of time. The last
ratio column times `detect` and `count` in alternation and divides the best of each: on a
machine shared with other work (CPU steal), the median of either moves by half between runs,
and the best of each, taken in the same windows, is the figure least moved by it.

    python benchmarks/bench_detect.py [--size 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import random

from _common import Timer, add_quick, machine, mbps, print_table, prose, quick_note, ratio

from guard import detect

DOC_SNIPPETS = [
    "A call looks like `<|start|>assistant<|channel|>commentary to=functions.f"
    "<|message|>{}<|call|>`.",
    "\n```\n<|start|>functions.f to=assistant<|channel|>commentary<|message|>{}<|end|>\n```\n",
    "Reasoning uses the `analysis` channel and ends with `<|end|>`. ",
    "Set the recipient with `to=functions.NAME` in the header. ",
]
LEAKS = [
    " analysis to=functions.edit code 大发官网 ",
    "<|channel|>commentary to=functions.read<|message|>{}",
    " assistantfinalHello ",
    " changedFiles to=functions.edit code\nto=functions.edit code ",
]


def mixed(size: int, snippets: list[str], every: int, seed: int) -> str:
    rng = random.Random(seed)
    base = prose(size, seed)
    out = []
    for i in range(0, len(base), every):
        out.append(base[i : i + every])
        out.append(rng.choice(snippets))
    return "".join(out)[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per input")
    add_quick(parser)
    args = parser.parse_args()
    size = 20_000 if args.quick else args.size
    timer = Timer.make(args.quick)
    slow = Timer.make(args.quick, runs=5)
    inputs = {
        "clean prose": prose(size),
        "docs quoting the format (1 snippet / 400 chars)": mixed(size, DOC_SNIPPETS, 400, 3),
        "leak-heavy (1 leak / 400 chars)": mixed(size, LEAKS, 400, 5),
    }
    rows = []
    for name, text in inputs.items():
        mb = len(text.encode()) / 1e6
        verdict = detect(text)
        t_detect = slow.median(lambda text=text: detect(text))
        t_find = timer.median(lambda text=text: text.find("<|"))
        t_count = timer.median(lambda text=text: text.count("<|"))
        best_detect, best_count = timer.interleaved_best(
            lambda text=text: detect(text), lambda text=text: text.count("<|")
        )
        rows.append(
            [
                name,
                mbps(mb, t_detect),
                mbps(mb, t_find),
                ratio(t_detect, t_find),
                mbps(mb, t_count),
                ratio(t_detect, t_count),
                ratio(best_detect, best_count),
                verdict.leak,
                verdict.hits_total,
            ]
        )
    print_table(
        f"detection throughput, {size:,} chars per input, {machine()}{quick_note(args.quick)}",
        [
            "input",
            "guard.detect MB/s",
            "text.find('<|') MB/s",
            "time ratio vs find",
            "text.count('<|') MB/s",
            "time ratio vs count",
            "best-of ratio vs count, interleaved",
            "leak",
            "hits",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
