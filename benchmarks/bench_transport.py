"""What the guarded httpx transport adds per chunk, beside what `guard serve` adds: the same
clean gpt-oss chat stream read four ways in one run, alternating so drift hits all of them.

* direct: a plain httpx client against the fake upstream;
* transport: `guard.http_client()` (the guard in the client's process) against the same upstream;
* relay: the proxy's unguarded pass-through route (its Starlette, uvicorn and httpx stack);
* guard serve: the proxy's guarded route.

The transport's added cost is transport minus direct, the proxy's is guard serve minus relay,
both per chunk, in wall time (a busy machine moves it: the proxy guards in a process of its own,
the transport in the client's) and in CPU time (the client's process for the transport, the
proxy's for guard serve: what guarding costs wherever it runs). The last rows compare the two
(the issue's bound: within 1.3x of the proxy's). The fake upstream and the proxy are
bench_serve.py's (three processes; the client is this script).

    python benchmarks/bench_transport.py [--chunks 2000] [--runs 15] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from _common import add_quick, machine, print_table, quick_note, ratio
from bench_serve import POLICY, free_port, one, wait_healthy

import guard

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("httpx", "starlette", "uvicorn")

ROOT = Path(__file__).resolve().parent.parent
SERVE = Path(__file__).resolve().parent / "bench_serve.py"


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=2000, help="chunks per stream")
    parser.add_argument("--runs", type=int, default=15, help="streams per path")
    add_quick(parser)
    args = parser.parse_args()
    chunks, runs, warm = (50, 1, 2) if args.quick else (args.chunks, args.runs, 10)

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fake = subprocess.Popen(
        [sys.executable, str(SERVE), "--fake"], stdout=subprocess.PIPE, text=True, env=env
    )
    proxy: subprocess.Popen[Any] | None = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            policy = Path(tmp) / "policy.toml"
            policy.write_text(POLICY)
            assert fake.stdout is not None
            upstream = f"http://127.0.0.1:{int(fake.stdout.readline())}/v1"
            port = free_port()
            command = ["serve", "--upstream", upstream, "--port", str(port)]
            command += ["--policy", str(policy)]
            proxy = subprocess.Popen(
                [sys.executable, "-m", "guard", *command], stderr=subprocess.DEVNULL, env=env
            )
            proxied = f"http://127.0.0.1:{port}"
            wait_healthy(proxied, proxy)
        assert proxy is not None
        plain = httpx.Client(timeout=60)
        guarded = guard.http_client(library="httpx", timeout=60)
        paths = {
            "direct": (plain, upstream),
            "transport": (guarded, upstream),
            "relay": (plain, proxied + "/v1/relay"),
            "guard serve": (plain, proxied + "/v1"),
        }
        with plain, guarded:
            for client, base in paths.values():  # warm up connections and code paths
                for _ in range(warm):
                    one(client, base, 8)
            totals: dict[str, list[float]] = {name: [] for name in paths}
            cpu: dict[str, float] = dict.fromkeys(paths, 0.0)  # the guarding process's seconds
            sizes: dict[str, int] = {}
            for _ in range(runs):
                for name, (client, base) in paths.items():
                    pid = proxy.pid if name in ("relay", "guard serve") else os.getpid()
                    before = cpu_seconds(pid)
                    _, total, size = one(client, base, chunks)
                    cpu[name] += cpu_seconds(pid) - before
                    totals[name].append(total)
                    sizes[name] = size
        assert len(set(sizes.values())) == 1, sizes  # a clean stream passes byte for byte
    finally:
        for process in (proxy, fake):
            if process is not None:
                process.terminate()
                process.wait(10)

    n = chunks + 3  # role chunk, content chunks, finish chunk, [DONE]
    per = {name: statistics.median(values) * 1e6 / n for name, values in totals.items()}
    spent = {name: seconds * 1e6 / (n * runs) for name, seconds in cpu.items()}
    transport = per["transport"] - per["direct"]
    served = per["guard serve"] - per["relay"]
    transport_cpu = spent["transport"] - spent["direct"]
    served_cpu = spent["guard serve"] - spent["relay"]
    rows = [
        [f"{name}, wall per chunk (µs)", f"{per[name]:.2f}", ratio(per[name], per["direct"])]
        for name in paths
    ]
    rows += [
        [f"{name}, CPU per chunk of its {where} (µs)", f"{spent[name]:.2f}", "-"]
        for name, where in (
            ("direct", "client"),
            ("transport", "client"),
            ("relay", "proxy"),
            ("guard serve", "proxy"),
        )
    ]
    rows.append(["added by the transport, wall (vs direct, µs)", f"{transport:.2f}", "-"])
    rows.append(["added by guard serve, wall (vs relay, µs)", f"{served:.2f}", "-"])
    rows.append(["transport's added wall time / proxy's", "-", ratio(transport, served)])
    rows.append(["added by the transport, CPU (vs direct, µs)", f"{transport_cpu:.2f}", "-"])
    rows.append(["added by guard serve, CPU (vs relay, µs)", f"{served_cpu:.2f}", "-"])
    rows.append(["transport's added CPU / proxy's", "-", ratio(transport_cpu, served_cpu)])
    print_table(
        f"guarded transport vs guard serve, {machine()}: {runs} streams of {n} chunks per path,"
        f" medians{quick_note(args.quick)}",
        ["measure", "value", "ratio"],
        rows,
    )


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as exc:
        sys.exit(f"bench_transport: {exc}")
