"""Load on `guard serve`: many concurrent guarded streams, errors, latency and the proxy's memory.

Three processes: a fake upstream (tests/support/fake_upstream.py) streaming chat completions
with a pause between chunks, the real `guard serve` command in front of it, and this script as
the client (httpx, asyncio); `--direct` runs the same load on the fake upstream alone, a
baseline for what the machine and the client cost. Each round starts `--streams` streams at
once and waits for all of them; one stream in ten leaks Harmony structure mid-answer, so guard
cuts it and closes the upstream early. The run is bounded in count (`--rounds`) and in time
(`--time-limit`: no new round starts after it, and each stream has a client timeout).

A stream counts as an error when its request fails, its status is not 200, it does not end with
`data: [DONE]`, or its text is not what guard should deliver (the whole answer, or the answer
cut before the leak). The proxy's resident memory (VmRSS) is read from /proc after warm-up and
after each round.

    python benchmarks/load_serve.py [--streams 100] [--rounds 5] [--chunks 40] [--delay 0.02]
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
from pathlib import Path
from typing import Any

import httpx
from _common import machine
from bench_serve import free_port, wait_healthy

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


async def load(
    url: str, pid: int, args: argparse.Namespace, guarded: bool = True
) -> tuple[list[tuple[float, float, str | None]], list[int], int]:
    """Run the rounds: (results, RSS after each round in KiB, rounds run)."""
    results: list[tuple[float, float, str | None]] = []
    rss: list[int] = []
    limits = httpx.Limits(max_connections=args.streams, max_keepalive_connections=args.streams)
    stop_at = time.monotonic() + args.time_limit
    async with httpx.AsyncClient(timeout=args.time_limit, limits=limits) as client:
        rounds = 0
        for _ in range(args.rounds):
            if time.monotonic() > stop_at:
                break
            batch = [
                one_stream(client, url, args.chunks, i % 10 == 9, guarded)
                for i in range(args.streams)
            ]
            results += await asyncio.gather(*batch)
            rounds += 1
            rss.append(rss_kib(pid))
    return results, rss, rounds


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
    parser.add_argument(
        "--direct",
        action="store_true",
        help="the same load on the fake upstream without the proxy (a baseline for the machine)",
    )
    parser.add_argument("--fake", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake is not None:
        fake_main(args.fake)
        return

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
        if args.direct:
            url, measured = root, fake.pid
        else:
            port = free_port()
            command = ["guard", "serve", "--upstream", root + "/v1", "--port", str(port)]
            proxy = subprocess.Popen(
                [sys.executable, "-m", *command],
                stderr=subprocess.DEVNULL,
                env=env,
            )
            url, measured = f"http://127.0.0.1:{port}", proxy.pid
            wait_healthy(url, proxy)
        for leak in (False, True):  # warm up the code paths
            asyncio.run(_warm(url, args.chunks, leak, not args.direct))
        before = rss_kib(measured)
        start = time.perf_counter()
        results, rss, rounds = asyncio.run(load(url, measured, args, not args.direct))
        elapsed = time.perf_counter() - start
    finally:
        for process in (proxy, fake):
            if process is not None:
                process.terminate()
                process.wait(10)

    errors = [e for _, _, e in results if e is not None]
    ttfb = [f for f, _, e in results if e is None]
    total = [t for _, t, e in results if e is None]
    target = "the fake upstream directly (no proxy)" if args.direct else "guard serve"
    print(f"{target} under load, {machine()}")
    print(
        f"{rounds} rounds of {args.streams} concurrent streams ({len(results)} streams, one in ten"
        f" leaking), {args.chunks} chunks each, upstream pause {args.delay * 1000:g} ms per chunk;"
        f" {elapsed:.1f} s\n"
    )
    print("| measure | value |")
    print("|---|---:|")
    print(f"| errors | {len(errors)} {_kinds(errors)}|")
    if total:
        print(f"| time to first byte p50 / p99 (ms) | {_ms(ttfb, 0.5)} / {_ms(ttfb, 0.99)} |")
        print(f"| stream total p50 / p99 (ms) | {_ms(total, 0.5)} / {_ms(total, 0.99)} |")
        print(f"| mean stream total (ms) | {statistics.fmean(total) * 1000:.1f} |")
    who = "upstream" if args.direct else "proxy"
    print(f"| {who} RSS after warm-up (MiB) | {before / 1024:.1f} |")
    print(f"| {who} RSS after each round (MiB) | {', '.join(f'{r / 1024:.1f}' for r in rss)} |")
    if rss:
        print(f"| RSS change, first round to last (MiB) | {(rss[-1] - rss[0]) / 1024:+.1f} |")


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
