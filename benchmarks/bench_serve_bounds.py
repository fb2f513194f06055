"""What hostile load costs `guard serve`, and whether it still answers `/healthz` meanwhile.

Three processes: a fake upstream (stdlib HTTP server, below, in a child process of its own so
that its work does not slow the clients' clock), the real `guard serve` command in front of it,
and this script as the clients. While `/healthz` is asked every 20 ms on one
kept-alive connection, these requests run at once (each `--copies` times):

* `empty`: a 16 MiB request body of `{}` objects (refused by the element count);
* `spellings`: a 16 MiB request body of text dense with reserved spellings (escaped whole);
* `big`: a clean request whose upstream answer is 100 MB of prose (read with a cap);
* `dense`: a clean request whose upstream answer is 8 MB of zero-width-dressed markers
  (judged whole);
* `trickle`: a clean streamed request whose upstream answer is one chunk event of 4 MB of the
  same markers, written in 4 KiB writes, its last 16 bytes alone after a pause (the whole event
  is parsed and judged when that small last read comes).

Reported: each request's status and seconds, the proxy process's CPU seconds (user + system,
all threads) and peak RSS (VmHWM) over the run, and `/healthz` latency (p50 / p99 / max) while
the load ran. Linux only (reads /proc).

Ratios: each request's seconds against a clean request's before the load, and `/healthz`
latency against its median before the load.

The proxy is started as `python -m guard serve` from this checkout (PYTHONPATH set to it) or from
`--checkout DIR` (another worktree, e.g. the commit before a change, measured the same way):

    python benchmarks/bench_serve_bounds.py [--copies 1] [--spell-mib 16] [--big-mb 100]
        [--dense-mb 8] [--trickle-mb 4] [--only big] [--serve-arg=--judge-threads=2]
        [--checkout DIR]
        [--label NAME] [--quick]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
from _common import add_quick, machine, print_table, quick_note, ratio

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("httpx", "starlette", "uvicorn")

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
#: the size of the fake upstream's writes of the trickled stream
TRICKLE_WRITE = 4096
#: prose of the large answer, and text of the request dense with reserved spellings
PROSE = "The quick brown fox jumps over the lazy dog while the model explains its plan. "
SPELLINGS = "see `<|channel|>` and <|message|> here "
#: markers dressed with a zero-width space: every one a candidate the judge must weigh
DENSE = "a\u200b<|start|> b "


def _answer(content: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 1754000000,
            "model": "gpt-oss-120b",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
        }
    ).encode()


def _stream(content: str) -> bytes:
    """A chat stream whose one chunk event holds all of ``content``."""
    chunk = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": "gpt-oss-120b",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }
    end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    events = [json.dumps(c, ensure_ascii=False) for c in (chunk, end)]
    return "".join(f"data: {e}\n\n" for e in events).encode() + b"data: [DONE]\n\n"


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


class _Upstream(BaseHTTPRequestHandler):
    """The fake upstream: the request's ``model`` picks the answer (``answer-big``,
    ``answer-dense``, else a short clean one)."""

    answers: ClassVar[dict[str, bytes]] = {}
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        found = re.search(rb'"model"\s*:\s*"([^"]*)"', body[:200])
        model = found.group(1).decode() if found else ""
        answer = self.answers.get(model, self.answers["small"])
        if model == "answer-trickle":
            self._trickle(answer)
            return
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        try:
            view = memoryview(answer)
            for start in range(0, len(answer), MIB):
                self.wfile.write(view[start : start + MIB])
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _trickle(self, stream: bytes) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        # the event's last bytes come alone, after a pause: the read that ends the event is
        # small, whatever the reads before it were coalesced into
        end = stream.index(b"\n\n") - 16
        try:
            view = memoryview(stream)
            for start in range(0, end, TRICKLE_WRITE):
                self.wfile.write(view[start : min(end, start + TRICKLE_WRITE)])
                self.wfile.flush()
            time.sleep(0.5)
            self.wfile.write(view[end:])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def serve_upstream(port: int, big_mb: float, dense_mb: float, trickle_mb: float) -> None:
    """Child process: the fake upstream on ``port`` until killed."""
    _Upstream.answers = {
        "small": _answer("Hello there."),
        "answer-big": _answer(_repeat(PROSE, int(big_mb * 1_000_000))),
        "answer-dense": _answer(_repeat(DENSE, int(dense_mb * 1_000_000))),
        "answer-trickle": _stream(_repeat(DENSE, int(trickle_mb * 1_000_000))),
    }
    server = ThreadingHTTPServer(("127.0.0.1", port), _Upstream)
    server.daemon_threads = True
    server.serve_forever()


def fake_upstream(
    big_mb: float, dense_mb: float, trickle_mb: float
) -> tuple[multiprocessing.Process, int]:
    port = free_port()
    child = multiprocessing.get_context("fork").Process(
        target=serve_upstream, args=(port, big_mb, dense_mb, trickle_mb), daemon=True
    )
    child.start()
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return child, port
        except OSError:
            if time.monotonic() > deadline or not child.is_alive():
                raise RuntimeError("the fake upstream did not start") from None
            time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bodies(spell_mib: float) -> dict[str, bytes]:
    size = int(spell_mib * MIB)
    head = b'{"model":"gpt-oss-120b","messages":['
    count = (size - len(head) - 2) // 3
    empty = head + b",".join([b"{}"] * count) + b"]}"
    text = _repeat(SPELLINGS, size - 200)
    spellings = json.dumps(
        {"model": "gpt-oss-120b", "messages": [{"role": "user", "content": text}]}
    ).encode()
    small = [{"role": "user", "content": "hi"}]
    return {
        "empty": empty,
        "spellings": spellings,
        "big": json.dumps({"model": "answer-big", "messages": small}).encode(),
        "dense": json.dumps({"model": "answer-dense", "messages": small}).encode(),
        "trickle": json.dumps(
            {"model": "answer-trickle", "messages": small, "stream": True}
        ).encode(),
    }


def poll_health(base: str, stop: Any, out: Any) -> None:
    """Child process: ask ``/healthz`` every 20 ms until ``stop`` is set; then send the
    (when, seconds) of each answer on ``out``. A process of its own, so that the clients'
    threads do not delay its clock."""
    answers: list[tuple[float, float]] = []
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                ok = client.get(base + "/healthz").status_code == 200
            except httpx.HTTPError:
                ok = False
            took = time.perf_counter() - start
            answers.append((start, took if ok else float("inf")))
            time.sleep(0.02)
    out.send(answers)


def send(base: str, name: str, body: bytes, out: dict[str, tuple[int, float]]) -> None:
    start = time.perf_counter()
    try:
        with httpx.Client(timeout=1800) as client:
            r = client.post(
                base + "/v1/chat/completions",
                content=body,
                headers={"content-type": "application/json"},
            )
            status = r.status_code
    except httpx.HTTPError as exc:
        status = -1
        print(f"{name}: {type(exc).__name__}", file=sys.stderr)
    out[name] = (status, time.perf_counter() - start)


def wait_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("guard serve exited")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError("guard serve did not become healthy")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=1, help="copies of each hostile request")
    parser.add_argument("--spell-mib", type=float, default=16, help="size of the request bodies")
    parser.add_argument("--big-mb", type=float, default=100, help="size of the large answer")
    parser.add_argument("--dense-mb", type=float, default=8, help="size of the dense answer")
    parser.add_argument(
        "--trickle-mb", type=float, default=4, help="size of the trickled stream's one event"
    )
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument added to the guard serve command (repeatable), e.g. --judge-threads=2",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=("empty", "spellings", "big", "dense", "trickle"),
        help="run only these hostile requests (repeatable; default: all five)",
    )
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to serve from")
    parser.add_argument("--label", default=None, help="the row's name (default: the checkout)")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.spell_mib, args.big_mb, args.dense_mb, args.trickle_mb = 0.1, 1.0, 0.05, 0.05
    checkout = args.checkout.resolve()
    label = args.label or checkout.name

    upstream, upstream_port = fake_upstream(args.big_mb, args.dense_mb, args.trickle_mb)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    for name in [k for k in env if k.startswith("GUARD_")]:
        del env[name]
    proxy = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "guard",
            "serve",
            "--upstream",
            f"http://127.0.0.1:{upstream_port}/v1",
            "--port",
            str(port),
            *args.serve_arg,
        ],
        env=env,
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_healthy(base, proxy)
        payloads = bodies(args.spell_mib)
        clean: dict[str, tuple[int, float]] = {}
        for _ in range(3):  # warm, then a clean request's time is the requests' floor
            send(base, "clean", payloads["big"].replace(b"answer-big", b"gpt-oss-120b"), clean)
        cpu_before = cpu_seconds(proxy.pid)
        fork = multiprocessing.get_context("fork")
        stop = fork.Event()
        received, sent = fork.Pipe(duplex=False)
        poller = fork.Process(target=poll_health, args=(base, stop, sent), daemon=True)
        poller.start()
        time.sleep(1.5)  # answers before the load: the latency floor
        results: dict[str, tuple[int, float]] = {}
        start = time.perf_counter()
        senders = [
            threading.Thread(target=send, args=(base, f"{name}#{i}", body, results))
            for i in range(args.copies)
            for name, body in payloads.items()
            if name in (args.only or payloads)
        ]
        for t in senders:
            t.start()
        for t in senders:
            t.join()
        wall = time.perf_counter() - start
        stop.set()
        health: list[tuple[float, float]] = received.recv()
        poller.join(10)
        idle = [took * 1000 for when, took in health if when < start]
        cpu = cpu_seconds(proxy.pid) - cpu_before
        peak = peak_rss_mb(proxy.pid)
    finally:
        proxy.terminate()
        proxy.wait(10)
        upstream.terminate()
        upstream.join(10)

    during = [took for when, took in health if start <= when <= start + wall]
    ms = [t * 1000 for t in during]
    floor_ms = statistics.median(idle) if idle else float("nan")
    floor_s = clean["clean"][1]
    print(machine() + quick_note(args.quick))
    print(
        f"load: {args.copies} x (request bodies of {{}} and of spellings, {args.spell_mib:g} MiB"
        f" each; a {args.big_mb:g} MB answer; a {args.dense_mb:g} MB marker-dense answer; a"
        f" {args.trickle_mb:g} MB marker-dense event in {TRICKLE_WRITE}-byte writes)"
    )
    print_table(
        f"requests ({label})",
        ("request", "status", "seconds", "ratio vs a clean request"),
        [
            (name, status, f"{secs:.2f}", ratio(secs, floor_s))
            for name, (status, secs) in sorted(results.items())
        ],
    )
    print_table(
        "guard serve under hostile load",
        (
            "checkout",
            "wall s",
            "proxy CPU s",
            "peak RSS MB",
            "healthz n",
            "p50 ms",
            "p99 ms",
            "max ms",
            "idle p50 ms",
            "p99 ratio vs idle",
        ),
        [
            (
                label,
                f"{wall:.1f}",
                f"{cpu:.1f}",
                f"{peak:.0f}",
                len(ms),
                f"{statistics.median(ms):.1f}" if ms else "-",
                f"{percentile(ms, 0.99):.1f}" if ms else "-",
                f"{max(ms):.1f}" if ms else "-",
                f"{floor_ms:.1f}",
                ratio(percentile(ms, 0.99), floor_ms) if ms else "-",
            )
        ],
    )


if __name__ == "__main__":
    main()
