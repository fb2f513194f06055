"""CPU the streamed answers' event judge adds (issue 28): each guarded relay of ``guard serve``
(chat, Responses, Messages) run in process on a clean recorded stream of ~500 events, with and
without the event judge (``guard.wire.EventJudge``: every string the stream engine does not
read), per event.

The floor is the same relay with the judge replaced by one that hands every event on unread, so
the ratio is the judge's own cost over everything else the relay does (SSE decoding, JSON, the
stream engine, writing the events). Both are timed in alternation and the best CPU time of each
kept, which on a shared machine is the one least slowed by other work. ``bench_serve.py`` puts
the whole guarded route beside the unguarded relay; this one isolates the judge.

    python benchmarks/bench_stream_events.py [--events 500] [--runs 15] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import add_quick, machine, print_table, quick_note, ratio

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("httpx", "starlette")

ROOT = Path(__file__).resolve().parent.parent


def recordings(n: int) -> dict[str, list[bytes]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fake_upstream import chat_sse, messages_sse, responses_sse

    words = [f"word{i} " for i in range(n)]
    return {
        "chat": chat_sse(words),
        "responses": responses_sse(words),
        "messages": messages_sse(words),
    }


def run_once(kind: str, events: list[bytes]) -> float:
    """CPU seconds of one relay of ``events``."""
    import httpx

    from guard.serve import ServeConfig
    from guard.serve._deadlines import Deadline
    from guard.serve._logging import AccessRecord
    from guard.serve._relay import ChatRelay, MessagesRelay, ResponsesRelay

    relays: dict[str, Any] = {
        "chat": ChatRelay,
        "responses": ResponsesRelay,
        "messages": MessagesRelay,
    }

    class Body(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for event in events:
                yield event

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    async def relay() -> float:
        config = ServeConfig(upstream="http://upstream.test/v1")
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            request = client.build_request("POST", "http://upstream.test/v1/x")
            resp = await client.send(request, stream=True)
            access = AccessRecord("POST", "/v1/x")
            body = relays[kind](resp, "all", config, access, Deadline(60)).body()
            start = time.process_time()
            async for _piece in body:
                pass
            return time.process_time() - start

    return asyncio.run(relay())


@contextmanager
def without_judge() -> Iterator[None]:
    """The event judge hands every event on unread (a chat chunk counts as quiet)."""
    from guard.wire import _events as _stream

    judge, quiet = _stream.EventJudge.judge, _stream.EventJudge.quiet_chat
    _stream.EventJudge.judge = lambda self, event: _stream.Judged(event)  # type: ignore[method-assign]
    _stream.EventJudge.quiet_chat = _quiet  # type: ignore[method-assign]
    try:
        yield
    finally:
        _stream.EventJudge.judge, _stream.EventJudge.quiet_chat = judge, quiet  # type: ignore[method-assign]


def _quiet(self: Any, item: Any) -> bool:
    choices = item.get("choices") if type(item) is dict else None
    return type(choices) is list and len(choices) == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--runs", type=int, default=15)
    add_quick(parser)
    args = parser.parse_args()
    n, runs = (20, 1) if args.quick else (args.events, args.runs)
    rows = []
    for kind, events in recordings(n).items():
        run_once(kind, events)  # warm up (the detector's tables)
        with_judge = without = float("inf")
        for _ in range(runs):
            gc.collect()
            with_judge = min(with_judge, run_once(kind, events))
            with without_judge():
                gc.collect()
                without = min(without, run_once(kind, events))
        per = 1e6 / len(events)
        rows.append(
            [
                kind,
                len(events),
                f"{without * per:.1f}",
                f"{with_judge * per:.1f}",
                ratio(with_judge, without),
            ]
        )
    print_table(
        f"event judge cost per streamed event, {machine()}, best CPU of {runs} runs"
        f"{quick_note(args.quick)}",
        ["relay", "events", "without judge (µs/event)", "with judge (µs/event)", "ratio"],
        rows,
    )


if __name__ == "__main__":
    main()
