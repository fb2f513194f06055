"""Load on `guard serve`: many concurrent guarded streams, errors, latency and the proxy's memory,
in one run beside the same load on the fake upstream alone (the floor: what the machine and the
client cost without the proxy).

Three processes: a fake upstream (tests/support/fake_upstream.py) streaming chat completions
with a pause between chunks, the real `guard serve` command in front of it, and this script as
the client (httpx, asyncio). Each round starts `--streams` streams at once on the fake upstream
directly and waits for all of them, then the same through guard serve (rounds alternate, so
drift hits both); one stream in ten leaks Harmony structure mid-answer, so guard cuts it and
closes the upstream early. The run is bounded in count (`--rounds`) and in time (`--time-limit`:
no new round starts after it, and each stream has a client timeout).

A stream counts as an error when its request fails, its status is not 200, it does not end with
`data: [DONE]`, or its text is not what guard should deliver (the whole answer, or the answer
cut before the leak). The proxy's resident memory (VmRSS) is read from /proc after warm-up and
after each round, and the fake upstream's as its floor.

    python benchmarks/load_serve.py [--streams 100] [--rounds 5] [--chunks 40] [--delay 0.02]
        [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import add_quick, machine, print_table, quick_note, ratio
from bench_serve import free_port, wait_healthy

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("httpx", "starlette", "uvicorn")

ROOT = Path(__file__).resolve().parent.parent
LEAK = "<|channel|>analysis secret"


def fake_main(delay: float) -> None:
    """Child process: the fake upstream. ``max_tokens`` is the number of content chunks; a
    request whose ``user`` is ``"leak"`` gets a stream that leaks halfway. Prints the port."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fake_upstream import FakeUpstream, Script, chat_sse

    recordings: dict[tuple[int, bool], list[bytes]] = {}

    def script(exchange: Any) -> Script:
        body = exchange.json
        key = (int(body.get("max_tokens") or 8), body.get("user") == "leak")
        if key not in recordings:
            words = [f"word{i} " for i in range(key[0])]
            if key[1]:
                words[len(words) // 2] = LEAK
            recordings[key] = chat_sse(words)
        return Script(events=recordings[key], delay=delay)

    with FakeUpstream() as fake:
        fake.script = script
        print(fake.port, flush=True)
        while True:
            time.sleep(3600)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def expected_text(chunks: int, leak: bool, guarded: bool) -> str:
    words = [f"word{i} " for i in range(chunks)]
    if leak:
        if guarded:
            return "".join(words[: chunks // 2])
        words[chunks // 2] = LEAK
    return "".join(words)


async def one_stream(
    client: httpx.AsyncClient, url: str, chunks: int, leak: bool, guarded: bool = True
) -> tuple[float, float, str | None]:
    """(time to first byte, total time, error or None) of one guarded stream."""
    body = {
        "model": "gpt-oss-120b",
        "messages": [{"role": "user", "content": "Tell me about <|channel|> tokens."}],
        "stream": True,
        "max_tokens": chunks,
        "user": "leak" if leak else "plain",
    }
    start = time.perf_counter()
    first = 0.0
    raw = bytearray()
    try:
        async with client.stream("POST", url + "/v1/chat/completions", json=body) as response:
            async for piece in response.aiter_raw():
                if not raw:
                    first = time.perf_counter() - start
                raw += piece
            if response.status_code != 200:
                return first, time.perf_counter() - start, f"status {response.status_code}"
    except httpx.HTTPError as exc:
        return first, time.perf_counter() - start, type(exc).__name__
    total = time.perf_counter() - start
    events = [e for e in bytes(raw).split(b"\n\n") if e]
    if not events or events[-1] != b"data: [DONE]":
        return first, total, "no [DONE]"
    text = ""
    for event in events[:-1]:
        chunk = json.loads(event[len(b"data: ") :])
        if "error" in chunk:
            return first, total, "error event"
        for choice in chunk.get("choices") or ():
            text += (choice.get("delta") or {}).get("content") or ""
    if text != expected_text(chunks, leak, guarded):
        return first, total, "wrong text"
    return first, total, None


@dataclass
class Side:
    """The load on one target (the fake upstream directly, or guard serve) and what it gave."""

    url: str
    pid: int
    guarded: bool
    results: list[tuple[float, float, str | None]] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)
    seconds: float = 0.0
    rss_warm: int = 0


async def load(sides: list[Side], args: argparse.Namespace) -> int:
    """Run the rounds, each on every side in turn; returns the rounds run."""
    limits = httpx.Limits(max_connections=args.streams, max_keepalive_connections=args.streams)
    stop_at = time.monotonic() + args.time_limit
    rounds = 0
    async with httpx.AsyncClient(timeout=args.time_limit, limits=limits) as client:
        for _ in range(args.rounds):
            if time.monotonic() > stop_at:
                break
            for side in sides:
                batch = [
                    one_stream(client, side.url, args.chunks, i % 10 == 9, side.guarded)
                    for i in range(args.streams)
                ]
                start = time.perf_counter()
                side.results += await asyncio.gather(*batch)
                side.seconds += time.perf_counter() - start
                side.rss.append(rss_kib(side.pid))
            rounds += 1
    return rounds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=100, help="concurrent streams per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (a bound on the count)")
    parser.add_argument("--chunks", type=int, default=40, help="content chunks per stream")
    parser.add_argument("--delay", type=float, default=0.02, help="upstream pause per chunk (s)")
    parser.add_argument("--time-limit", type=float, default=120.0, help="bound on the run (s)")
    add_quick(parser)
    parser.add_argument("--fake", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake is not None:
        fake_main(args.fake)
        return
    if args.quick:  # ten streams, so one of them leaks
        args.streams, args.rounds, args.chunks, args.delay = 10, 1, 10, 0.001

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fake = subprocess.Popen(
        [sys.executable, __file__, "--fake", str(args.delay)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    proxy: subprocess.Popen[Any] | None = None
    try:
        assert fake.stdout is not None
        root = f"http://127.0.0.1:{int(fake.stdout.readline())}"
        port = free_port()
        command = ["guard", "serve", "--upstream", root + "/v1", "--port", str(port)]
        proxy = subprocess.Popen(
            [sys.executable, "-m", *command],
            stderr=subprocess.DEVNULL,
            env=env,
        )
        sides = [
            Side(root, fake.pid, guarded=False),
            Side(f"http://127.0.0.1:{port}", proxy.pid, guarded=True),
        ]
        wait_healthy(sides[1].url, proxy)
        for side in sides:
            for leak in (False, True):  # warm up the code paths
                asyncio.run(_warm(side.url, args.chunks, leak, side.guarded))
            side.rss_warm = rss_kib(side.pid)
        rounds = asyncio.run(load(sides, args))
    finally:
        for process in (proxy, fake):
            if process is not None:
                process.terminate()
                process.wait(10)

    direct, guarded = sides
    rows = [["streams", len(direct.results), len(guarded.results), "-"]]
    errors = [[e for _, _, e in side.results if e is not None] for side in sides]
    rows.append(
        ["errors", *(f"{len(e)} {_kinds(e)}".strip() for e in errors), "-"],
    )
    ok = [[r for r in side.results if r[2] is None] for side in sides]
    if all(ok):
        for label, index, q in (
            ("time to first byte p50 (ms)", 0, 0.5),
            ("time to first byte p99 (ms)", 0, 0.99),
            ("stream total p50 (ms)", 1, 0.5),
            ("stream total p99 (ms)", 1, 0.99),
        ):
            d, g = (percentile([r[index] for r in side], q) * 1000 for side in ok)
            rows.append([label, f"{d:,.1f}", f"{g:,.1f}", ratio(g, d)])
        d, g = (statistics.fmean(r[1] for r in side) * 1000 for side in ok)
        rows.append(["mean stream total (ms)", f"{d:,.1f}", f"{g:,.1f}", ratio(g, d)])
    rows.append(
        [
            "time in the rounds (s)",
            f"{direct.seconds:.1f}",
            f"{guarded.seconds:.1f}",
            ratio(guarded.seconds, direct.seconds),
        ]
    )
    rows.append(
        [
            "RSS after warm-up (MiB; upstream, proxy)",
            f"{direct.rss_warm / 1024:.1f}",
            f"{guarded.rss_warm / 1024:.1f}",
            ratio(guarded.rss_warm, direct.rss_warm),
        ]
    )
    rows.append(
        [
            "RSS after each round (MiB; ratio of the last)",
            ", ".join(f"{r / 1024:.1f}" for r in direct.rss),
            ", ".join(f"{r / 1024:.1f}" for r in guarded.rss),
            ratio(guarded.rss[-1], direct.rss[-1]) if rounds else "-",
        ]
    )
    if rounds:
        rows.append(
            [
                "RSS change, first round to last (MiB)",
                f"{(direct.rss[-1] - direct.rss[0]) / 1024:+.1f}",
                f"{(guarded.rss[-1] - guarded.rss[0]) / 1024:+.1f}",
                "-",
            ]
        )
    print_table(
        f"guard serve under load, {machine()}: {rounds} rounds of {args.streams} concurrent"
        f" streams per target (one in ten leaking), {args.chunks} chunks each, upstream pause"
        f" {args.delay * 1000:g} ms per chunk{quick_note(args.quick)}",
        ["measure", "fake upstream directly", "through guard serve", "ratio vs direct"],
        rows,
    )
    if any(errors):
        sys.exit("load_serve: some streams failed (see the errors row)")


async def _warm(url: str, chunks: int, leak: bool, guarded: bool) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        await one_stream(client, url, chunks, leak, guarded)


def _ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:.1f}"


def _kinds(errors: list[str]) -> str:
    if not errors:
        return ""
    counts: dict[str, int] = {}
    for e in errors:
        counts[e] = counts.get(e, 0) + 1
    return "(" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + ") "


if __name__ == "__main__":
    main()
