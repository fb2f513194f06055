"""The executor: units run in the calling process or in worker processes, and their results come
back in input order, so the report is the same for any number of workers."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from guard.audit._units import Unit, UnitResult, init_worker, run_in_worker, run_unit
from guard.gate import Policy

__all__ = ["execute"]


def execute(
    units: Iterator[Unit], workers: int, policy: Policy
) -> Iterator[tuple[Unit, UnitResult]]:
    """Run units, in worker processes when ``workers > 1``; results come back in input order.

    Units that hold an open stream or Python objects run in the calling process. At most
    ``2 * workers + 2`` units are in flight, so planning never runs far ahead of judging.
    """
    if workers <= 1:
        for unit in units:
            yield unit, run_unit(unit, policy)
        return
    pool: ProcessPoolExecutor | None = None
    window: deque[tuple[Unit, Future[UnitResult]]] = deque()
    limit = 2 * workers + 2
    try:
        for unit in units:
            if unit.local:
                done: Future[UnitResult] = Future()
                done.set_result(run_unit(unit, policy))
                window.append((unit, done))
            else:
                if pool is None:
                    pool = ProcessPoolExecutor(
                        max_workers=workers, initializer=init_worker, initargs=(policy,)
                    )
                window.append((unit, pool.submit(run_in_worker, unit)))
            while len(window) >= limit or (window and window[0][1].done()):
                head, future = window.popleft()
                yield head, future.result()
        while window:
            head, future = window.popleft()
            yield head, future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
