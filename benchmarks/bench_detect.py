"""Detection throughput (MB/s) on clean prose, on documentation dense with quoted spellings, and
on leak-heavy text, beside `text.find("<|")` on the same input as the floor, in one run.

    python benchmarks/bench_detect.py [--size 1000000]
"""

from __future__ import annotations

import argparse
import random

from _common import machine, prose, timeit

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
    args = parser.parse_args()
    inputs = {
        "clean prose": prose(args.size),
        "docs quoting the format (1 snippet / 400 chars)": mixed(args.size, DOC_SNIPPETS, 400, 3),
        "leak-heavy (1 leak / 400 chars)": mixed(args.size, LEAKS, 400, 5),
    }
    print(f"# detection throughput, {args.size:,} chars per input, {machine()}")
    print(
        "| input | guard.detect MB/s | text.find('<\\|') MB/s | ratio | text.count('<\\|') MB/s"
        " | ratio | leak | hits |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for name, text in inputs.items():
        mb = len(text.encode()) / 1e6
        verdict = detect(text)
        t_detect = timeit(lambda text=text: detect(text), runs=5)
        t_find = timeit(lambda text=text: text.find("<|"))
        t_count = timeit(lambda text=text: text.count("<|"))
        print(
            f"| {name} | {mb / t_detect:,.1f} | {mb / t_find:,.0f} | {t_detect / t_find:,.1f}"
            f" | {mb / t_count:,.0f} | {t_detect / t_count:,.1f}"
            f" | {verdict.leak} | {len(verdict.hits)} |"
        )


if __name__ == "__main__":
    main()
