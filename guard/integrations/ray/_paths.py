"""``guard audit --engine ray``: the local engine's plan, judged on Ray.

Local paths and stdin are planned by the local engine's own planner (the same walking,
sniffing, units of whole lines and error entries); remote URIs are opened through the
filesystems Ray Data uses (``pyarrow.fs``: ``s3://``, ``gs://``, ``abfs://``, ``hdfs://``,
``file://``) and handed to the same planner as streams. Only the judging moves: each unit
that the local engine would send to a worker process goes to one of a pool of Ray actors, and
results come back in input order into the same report builder, so the report (and its table,
JSON, SARIF and exit code) is the local engine's. Parquet files (``.parquet``) are read by
``ray.data.read_parquet`` and their rows judged by :class:`~guard.audit.RowAuditor` actors in
``map_batches``; a finding's line is its row's 1-based position in the file.
"""

from __future__ import annotations

import os
import pickle
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from types import ModuleType
from typing import Any

from guard._log import get_logger
from guard.audit import MAX_LINE_BYTES
from guard.audit.engine import (
    FORMAT_DIALECT,
    Planner,
    ReportBuilder,
    Unit,
    UnitResult,
    check_count,
    check_format,
    declared_tools,
    describe_read_error,
    error_unit,
    init_worker,
    internal_error,
    lost_result,
    run,
    run_in_worker,
    run_unit,
)
from guard.audit.report import AuditError, AuditReport
from guard.dialects import get_dialect
from guard.gate import Policy, check_policy_or_path
from guard.integrations.ray._dataset import _GroupBatch
from guard.integrations.ray._setup import actor_resources, cluster_cpus, connect

__all__ = ["audit_paths", "is_uri"]

_log = get_logger("guard.integrations.ray")


def is_uri(path: str) -> bool:
    """A URI for a filesystem of Ray Data (``scheme://...``), not a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.isidentifier()


def _is_parquet(path: str) -> bool:
    return path.lower().endswith(".parquet")


#: Units sent to an actor in one call: a call costs a round trip, a unit a few milliseconds of
#: judging, so units travel in batches (of about 8 MiB of JSONL).
BATCH_UNITS = 8


class _UnitActor:
    """One Ray actor: the policy set once, then units judged as in a worker process."""

    def __init__(self, policy: Policy) -> None:
        init_worker(policy)

    def run(self, units: list[Unit]) -> list[UnitResult]:
        return [run_in_worker(unit) for unit in units]


def _failed(unit: Unit, exc: BaseException) -> UnitResult:
    errors: list[AuditError] = []
    internal_error(errors, unit.path, None, exc, "auditing this input on a Ray actor")
    return lost_result(unit, errors[0].error)


class _Pool:
    """Ray actors that judge units in batches; results come back in input order."""

    def __init__(self, ray: ModuleType, size: int, policy: Policy, shared_fs: bool = True) -> None:
        self.ray = ray
        self.size = size
        self.policy = policy
        #: actors see the driver's files (a local Ray): a unit that names a file to stream
        #: (raw Harmony, raw, text) can go to them; on a cluster it runs in the driver
        self.shared_fs = shared_fs
        self.actors: list[Any] = []
        self.busy: list[int] = []

    def _new(self) -> Any:
        """A new actor. It asks for no CPU: the pool is sized by the cluster's CPUs already,
        and CPUs it held would be missing to the tasks of a Ray Data pipeline (Parquet) that
        runs while it lives, a deadlock; actors are spread over the cluster's nodes."""
        remote = self.ray.remote(num_cpus=0, scheduling_strategy="SPREAD")(_UnitActor)
        return remote.remote(self.policy)

    def _actor(self) -> int:
        if not self.actors:
            self.actors = [self._new() for _ in range(self.size)]
            self.busy = [0] * self.size
        k = min(range(self.size), key=self.busy.__getitem__)
        self.busy[k] += 1
        return k

    def execute(self, units: Iterable[Unit]) -> Iterator[tuple[Unit, UnitResult]]:
        #: (units, their results or a reference to them, the actor or -1: run here)
        window: deque[tuple[list[Unit], Any, int]] = deque()
        limit = 2 * self.size + 2
        batch: list[Unit] = []

        def settle(group: list[Unit], ref: Any, k: int) -> Iterator[tuple[Unit, UnitResult]]:
            if k < 0:
                results = ref
            else:
                self.busy[k] -= 1
                try:
                    results = self.ray.get(ref)
                except Exception as exc:  # an actor lost or a call failed: error entries
                    if isinstance(exc, self.ray.exceptions.RayActorError):
                        self.actors[k] = self._new()
                    results = [_failed(unit, exc) for unit in group]
            yield from zip(group, results, strict=True)

        def send() -> None:
            k = self._actor()
            window.append((batch[:], self.actors[k].run.remote(batch[:]), k))
            batch.clear()

        for unit in units:
            if unit.local or (unit.source is not None and not self.shared_fs):
                # a known result, an open stream, Python objects, a file only here: run here
                if batch:
                    send()
                window.append(([unit], [run_unit(unit, self.policy)], -1))
            else:
                batch.append(unit)
                if len(batch) >= BATCH_UNITS:
                    send()
            while len(window) >= limit:
                yield from settle(*window.popleft())
        if batch:
            send()
        while window:
            yield from settle(*window.popleft())


class _RayPlanner(Planner):
    """The local planner, except that a Parquet file met while walking a directory is put
    aside for Ray Data's reader (the local engine would skip it as binary data)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.parquet: list[str] = []

    def _file(self, p: str) -> Iterator[Unit]:
        if _is_parquet(p):
            self.parquet.append(p)
            return iter(())
        return super()._file(p)


def _remote_units(planner: Planner, uri: str) -> Iterator[Unit | str]:
    """The units of a remote file or of the files under a remote directory (sorted, hidden
    names skipped as a local walk does); a Parquet file comes back as its URI."""
    import pyarrow.fs as pafs

    try:
        fs, root = pafs.FileSystem.from_uri(uri)
        info = fs.get_file_info(root)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        yield error_unit(uri, None, f"cannot read: {describe_read_error(exc)}")
        return
    scheme = uri.partition("://")[0]
    if info.type == pafs.FileType.NotFound:
        yield error_unit(uri, None, "cannot read: No such file or directory")
        return
    if info.type == pafs.FileType.Directory:
        found = fs.get_file_info(pafs.FileSelector(root, recursive=True))
        files = sorted(f.path for f in found if f.type == pafs.FileType.File)
        names = [f"{scheme}://{p}" if scheme != "file" else f"file://{p}" for p in files]
    else:
        names = [uri]
    for name in names:
        base = name.rsplit("/", 1)[-1]
        if name != uri and base.startswith("."):
            planner.report.skip(name, "hidden")
            continue
        if _is_parquet(name):
            yield name
            continue
        yield from planner.opened(name, partial(_open_remote, fs, name), None, Exception)


def _open_remote(fs: Any, name: str) -> Any:
    """An input stream of the remote file ``name`` (compressed files are decompressed by the
    planner, as local ones are)."""
    import pyarrow.fs as pafs

    _, p = pafs.FileSystem.from_uri(name)
    return fs.open_input_stream(p, compression=None)


def _parquet_units(
    ray: ModuleType,
    uris: list[str],
    builder: ReportBuilder,
    auditor: dict[str, Any],
    size: int,
    per: float,
) -> Iterator[Unit | tuple[Unit, UnitResult]]:
    """Parquet files through Ray Data: each run of rows of one file is a result (relative
    lines), in order; the file is registered in the report at its first rows."""
    import pyarrow.fs as pafs
    import pyarrow.parquet as papq

    readable = []
    for u in uris:  # each file's footer read here: a bad file is its own error entry
        try:
            fs, p = pafs.FileSystem.from_uri(u if is_uri(u) else os.path.abspath(u))
            missing = fs.get_file_info(p).type == pafs.FileType.NotFound
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
            yield error_unit(u, None, f"cannot read: {describe_read_error(exc)}")
            continue
        if missing:
            yield error_unit(u, None, "cannot read: No such file or directory")
            continue
        try:
            papq.read_metadata(p, filesystem=fs)
        except Exception as exc:
            yield error_unit(u, None, f"cannot read Parquet: {describe_read_error(exc)}")
            continue
        readable.append(u)
    if not readable:
        return
    uris = readable
    paths = [u if is_uri(u) else os.path.abspath(u) for u in uris]
    labels = {p: u for p, u in zip(paths, uris, strict=True)}
    index: dict[str, int] = {}
    fmt_given = auditor["format"]
    # rows in file order (the lines count them); set while the datasets are made and run, then
    # restored for the caller's own datasets
    ctx = ray.data.DataContext.get_current()
    kept = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = True
    try:
        ds = ray.data.read_parquet(paths, include_paths=True)
        out = ds.map_batches(
            _GroupBatch,
            fn_constructor_kwargs=auditor,
            batch_format="pyarrow",
            batch_size=1024,
            compute=ray.data.ActorPoolStrategy(size=size),
            num_cpus=per,
        )
        rows = list(out.iter_rows())
    except Exception as exc:  # an unreadable file: one error entry for each of the batch
        for u in uris:
            yield error_unit(u, None, f"cannot read Parquet: {describe_read_error(exc)}")
        return
    finally:
        ctx.execution_options.preserve_order = kept
    for row in rows:
        path = row["path"]
        label = next((u for p, u in labels.items() if p.endswith(path)), path)
        result: UnitResult = pickle.loads(row["result"])
        fmt = row["format"] if row["format"] != "auto" else "openai"
        if label not in index:
            dialect = auditor["dialect"] or FORMAT_DIALECT[fmt]
            index[label] = builder.add_file(label, fmt, fmt_given == "auto", dialect)
        if label != path:
            result.findings = [f.model_copy(update={"path": label}) for f in result.findings]
            result.errors = [e.model_copy(update={"path": label}) for e in result.errors]
        unit = Unit(index=index[label], path=label, format=fmt, dialect="", relative=True)
        yield unit, result


def _segments(paths: list[str]) -> Iterator[tuple[str, list[str]]]:
    """Consecutive arguments of one kind: ``local`` (planned together, as the local engine
    walks them), ``remote`` or ``parquet``."""
    kind_of = ["parquet" if _is_parquet(p) else "remote" if is_uri(p) else "local" for p in paths]
    start = 0
    for k in range(1, len(paths) + 1):
        if k == len(paths) or kind_of[k] != kind_of[start]:
            yield kind_of[start], paths[start:k]
            start = k


def audit_paths(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    format: str = "auto",
    dialect: str | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    address: str | None = None,
    cpus: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    tools: Any = None,
) -> AuditReport:
    """Audit files, directories, ``-`` (stdin) and URIs on Ray; the same report as
    :func:`guard.audit` gives for local paths (``summary.workers`` is the number of actors).

    Args:
        address: an existing Ray cluster (``auto``, ``ray://host:10001``); default: a local
            Ray, started with ``cpus`` CPUs (default: all). A Ray already initialised in this
            process is used as it is.
        tools: the declared tools, for the records that declare none (as for
            :func:`guard.audit`).

    Raises:
        RayMissingError: Ray Data is not installed (the ``ray`` extra).
        ValueError: bad arguments (as :func:`guard.audit`).
    """
    check_format(format)
    check_count("max_line_bytes", max_line_bytes)
    if cpus is not None:
        check_count("cpus", cpus)
    dialect_name = None if dialect is None else get_dialect(dialect).name
    policy_ = check_policy_or_path(policy)
    declared = None if tools is None else declared_tools(tools)
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    items = [str(os.fspath(p)) for p in given]
    start = time.perf_counter()
    ray = connect(address, cpus)
    size, per = actor_resources(cluster_cpus(ray))
    builder = ReportBuilder(size)
    planner = _RayPlanner(format, dialect_name, builder, max_line_bytes)
    alive = [node for node in ray.nodes() if node.get("Alive")]
    pool = _Pool(ray, size, policy_, shared_fs=address is None and len(alive) == 1)
    auditor = {
        "format": format if format in ("auto", "openai", "responses", "chatglm3") else "auto",
        "dialect": dialect_name,
        "policy": policy_,
        "max_line_bytes": max_line_bytes,
        "tools": None if declared is None else sorted(declared),
    }
    _log.info("guard.ray.audit.start", format=format, actors=size)

    def units() -> Iterator[Unit]:
        for kind, group in _segments(items):
            if kind == "local":
                yield from planner.plan(group)
                if planner.parquet:  # found in directories: after the group's other files
                    found, planner.parquet = planner.parquet, []
                    yield from _settled(_parquet_units(ray, found, builder, auditor, size, per))
            elif kind == "remote":
                parquet: list[str] = []
                for u in group:
                    for item in _remote_units(planner, u):
                        if isinstance(item, str):
                            parquet.append(item)
                        else:
                            yield item
                if parquet:
                    yield from _settled(_parquet_units(ray, parquet, builder, auditor, size, per))
            else:
                yield from _settled(_parquet_units(ray, group, builder, auditor, size, per))

    return run(
        units(),
        pool.execute,
        builder,
        tools=declared,
        progress=progress,
        start=start,
        log=_log,
        event="guard.ray.audit.done",
    )


def _settled(items: Iterator[Unit | tuple[Unit, UnitResult]]) -> Iterator[Unit]:
    """Parquet results as units whose result is known (merged in order by the pool)."""
    for item in items:
        if isinstance(item, Unit):
            yield item
        else:
            unit, result = item
            unit.result = result
            yield unit
