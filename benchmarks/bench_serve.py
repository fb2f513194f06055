"""Latency `guard serve` adds: time to first byte and per-chunk cost of the guarded route, in one
run beside two floors: the proxy's unguarded pass-through route (`/v1/relay/...`: the same
Starlette, uvicorn and httpx stack without guard) and the same fake upstream alone (direct).

Three processes: the fake upstream (tests/support/fake_upstream.py, replaying a clean gpt-oss chat
stream with no delay between chunks), the real `guard serve` command in front of it, and this
script as the client (httpx, streaming). Direct, relayed and guarded requests alternate, so drift
hits all three. guard serve refuses unguarded routes that may carry model output (403) unless
its policy file sets `[serve] allow_passthrough = true`; the script writes such a policy file
for its own server, and fails if any request does not answer 200.

    python benchmarks/bench_serve.py [--requests 200] [--chunks 2000] [--runs 15] [--quick]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import add_quick, machine, print_table, quick_note, ratio

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("httpx", "starlette", "uvicorn")

ROOT = Path(__file__).resolve().parent.parent
#: the policy file of the benchmark's own server: the pass-through route is the relay floor
POLICY = "[serve]\nallow_passthrough = true\n"


def fake_main() -> None:
    """Child process: the fake upstream; a request's ``max_tokens`` is how many content chunks
    it streams back. Prints the port, then serves until killed."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fake_upstream import FakeUpstream, Script, chat_sse

    recordings: dict[int, list[bytes]] = {}

    def script(exchange: Any) -> Script:
        n = int(exchange.json.get("max_tokens") or 8)
        if n not in recordings:
            recordings[n] = chat_sse([f"word{i} " for i in range(n)])
        return Script(events=recordings[n])

    with FakeUpstream() as fake:
        fake.script = script
        print(fake.port, flush=True)
        while True:
            time.sleep(3600)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, process: subprocess.Popen[Any], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("guard serve exited")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError("guard serve did not become healthy")


def one(client: httpx.Client, base: str, chunks: int) -> tuple[float, float, int]:
    """(time to first body byte, time to the end of the stream, bytes) of one request."""
    body = {
        "model": "gpt-oss-120b",
        "messages": [{"role": "user", "content": "Tell me about <|channel|> tokens."}],
        "stream": True,
        "max_tokens": chunks,
    }
    start = time.perf_counter()
    first = 0.0
    size = 0
    with client.stream("POST", base + "/chat/completions", json=body) as response:
        if response.status_code != 200:
            response.read()
            raise RuntimeError(
                f"{base}: expected status 200, got {response.status_code}: {response.text[:300]}"
            )
        for piece in response.iter_raw():
            if not size:
                first = time.perf_counter() - start
            size += len(piece)
    return first, time.perf_counter() - start, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="short requests for TTFB")
    parser.add_argument("--chunks", type=int, default=2000, help="chunks per long stream")
    parser.add_argument("--runs", type=int, default=15, help="long streams per path")
    add_quick(parser)
    parser.add_argument("--fake", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake:
        fake_main()
        return
    requests, chunks, runs, warm = (
        (3, 50, 1, 2) if args.quick else (args.requests, args.chunks, args.runs, 20)
    )

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fake = subprocess.Popen(
        [sys.executable, __file__, "--fake"], stdout=subprocess.PIPE, text=True, env=env
    )
    proxy: subprocess.Popen[Any] | None = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            policy = Path(tmp) / "policy.toml"
            policy.write_text(POLICY)
            assert fake.stdout is not None
            upstream = f"http://127.0.0.1:{int(fake.stdout.readline())}/v1"
            port = free_port()
            command = [
                "serve",
                "--upstream",
                upstream,
                "--port",
                str(port),
                "--policy",
                str(policy),
            ]
            proxy = subprocess.Popen(
                [sys.executable, "-m", "guard", *command],
                stderr=subprocess.DEVNULL,
                env=env,
            )
            proxied = f"http://127.0.0.1:{port}"
            wait_healthy(proxied, proxy)
        # the same proxy stack without guard: the pass-through route (the fake answers any path)
        paths = {
            "direct": upstream,
            "relay": proxied + "/v1/relay",
            "guard serve": proxied + "/v1",
        }
        with httpx.Client(timeout=60) as client:
            for base in paths.values():  # warm up connections and code paths
                for _ in range(warm):
                    one(client, base, 8)
            ttfb: dict[str, list[float]] = {name: [] for name in paths}
            short: dict[str, list[float]] = {name: [] for name in paths}
            for _ in range(requests):
                for name, base in paths.items():
                    first, total, _ = one(client, base, 8)
                    ttfb[name].append(first)
                    short[name].append(total)
            long: dict[str, list[float]] = {name: [] for name in paths}
            sizes: dict[str, int] = {}
            for _ in range(runs):
                for name, base in paths.items():
                    _, total, size = one(client, base, chunks)
                    long[name].append(total)
                    sizes[name] = size
        assert len(set(sizes.values())) == 1, sizes  # a clean stream passes byte for byte
    finally:
        for process in (proxy, fake):
            if process is not None:
                process.terminate()
                process.wait(10)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    n = chunks + 3  # role chunk, content chunks, finish chunk, [DONE]
    measures = [
        ("time to first byte, median (ms)", ttfb, 1e3, 2),
        ("8-chunk stream, median total (ms)", short, 1e3, 2),
        (f"{n}-chunk stream, median total (ms)", long, 1e3, 1),
        ("per chunk (µs)", long, 1e6 / n, 1),
    ]
    rows = []
    for label, data, unit, digits in measures:
        d, r, g = (med(data[name]) * unit for name in paths)
        rows.append(
            [
                label,
                f"{d:.{digits}f}",
                f"{r:.{digits}f}",
                ratio(r, d),
                f"{g:.{digits}f}",
                ratio(g, r),
                ratio(g, d),
                f"{g - r:+.{digits}f}",
            ]
        )
    print_table(
        f"guard serve overhead, {machine()}: {requests} short streams (8 chunks) and {runs}"
        f" streams of {n} chunks per path{quick_note(args.quick)}",
        [
            "measure",
            "direct",
            "relay (proxy stack, no guard)",
            "relay ratio vs direct",
            "guard serve",
            "ratio vs relay",
            "ratio vs direct",
            "added by guard (vs relay)",
        ],
        rows,
    )


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as exc:
        sys.exit(f"bench_serve: {exc}")
