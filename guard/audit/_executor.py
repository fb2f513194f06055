"""The executor: units run in the calling process or in worker processes, and their results come
back in input order, so the report is the same for any number of workers.

A worker process that dies (killed by a signal, out of memory, a crash in native code) breaks
the whole pool: every unit in flight fails with it, and which one killed it is unknown. Each of
those units is run again, alone, in a process of its own; a unit whose process dies again
becomes an internal error entry for the input it held, and a fresh pool takes the next units.
"""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from guard._log import get_logger
from guard.audit._engine import internal_error
from guard.audit._units import (
    Unit,
    UnitResult,
    init_worker,
    lost_result,
    run_in_worker,
    run_unit,
)
from guard.audit.report import AuditError
from guard.gate import Policy

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.connection import Connection

__all__ = ["execute", "run_isolated"]

_log = get_logger("guard.audit")


def _how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"was killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"ended with exit code {exitcode}"


def _child(unit: Unit, policy: Policy, conn: Connection) -> None:
    init_worker(policy)
    conn.send(run_in_worker(unit))
    conn.close()


def run_isolated(unit: Unit, policy: Policy) -> UnitResult:
    """Run one unit in a process of its own; if that process dies, the unit's result is one
    internal error entry saying how it ended."""
    import multiprocessing  # only here and with workers: a run in one process never needs it

    ctx = multiprocessing.get_context()
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(unit, policy, send), daemon=True)
    process.start()
    send.close()
    try:
        result: UnitResult | None = receive.recv()
    except EOFError:
        result = None
    finally:
        receive.close()
        process.join()
    if result is not None:
        return result
    how = _how(process.exitcode)
    _log.error("guard.audit.worker_lost", how=how)
    return lost_result(unit, f"internal error: the worker process auditing this input {how}")


def _failed(unit: Unit, exc: BaseException) -> UnitResult:
    """A unit whose worker raised an exception that the unit's own guards did not catch (it
    could not be sent or its result not returned)."""
    errors: list[AuditError] = []
    internal_error(errors, unit.path, None, exc, "auditing this input in a worker")
    return lost_result(unit, errors[0].error)


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
    # imported with the first pool: a run in one process never needs them
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool: ProcessPoolExecutor | None = None
    #: each unit in flight, its future, and the pool it was submitted to (None: run here)
    window: deque[tuple[Unit, Future[UnitResult], ProcessPoolExecutor | None]] = deque()
    limit = 2 * workers + 2

    def submit(unit: Unit) -> Future[UnitResult]:
        nonlocal pool
        if pool is None:
            pool = ProcessPoolExecutor(
                max_workers=workers, initializer=init_worker, initargs=(policy,)
            )
        try:
            return pool.submit(run_in_worker, unit)
        except BrokenProcessPool:  # a worker died since the last result was taken
            pool.shutdown(wait=False, cancel_futures=True)
            pool = None
            return submit(unit)

    def settle(
        unit: Unit, future: Future[UnitResult], owner: ProcessPoolExecutor | None
    ) -> UnitResult:
        nonlocal pool
        try:
            return future.result()
        except BrokenProcessPool:
            if owner is not None and owner is pool:
                owner.shutdown(wait=False, cancel_futures=True)
                pool = None  # the next unit submitted gets a fresh pool
            return run_isolated(unit, policy)
        except Exception as exc:
            return _failed(unit, exc)

    try:
        for unit in units:
            if unit.local:
                done: Future[UnitResult] = Future()
                done.set_result(run_unit(unit, policy))
                window.append((unit, done, None))
            else:
                future = submit(unit)
                window.append((unit, future, pool))
            while len(window) >= limit or (window and window[0][1].done()):
                yield window[0][0], settle(*window.popleft())
        while window:
            yield window[0][0], settle(*window.popleft())
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
