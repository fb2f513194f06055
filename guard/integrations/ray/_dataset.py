"""``audit_dataset``: a Ray Dataset of transcripts in, a Ray Dataset of findings out."""

from __future__ import annotations

import os
import pickle
from typing import Any

from guard.audit import RowAuditor
from guard.audit.engine import classify
from guard.audit.report import Finding
from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.ray._setup import actor_resources, cluster_cpus, require_ray

__all__ = ["FINDING_COLUMNS", "META_COLUMNS", "audit_dataset"]

#: Columns of a source row that say where it came from; carried to its findings, never judged.
META_COLUMNS = ("id", "path", "line")

#: The fields of a finding as the JSON report has them, after the source row's path and line.
_FINDING_FIELDS = tuple(
    name
    for name, info in Finding.model_fields.items()
    if not info.exclude and name not in ("path", "line")
)
#: Fields of a finding that hold whole numbers (or nothing), and the list of signal codes.
_INT_FIELDS = frozenset({"message", "cut"})
_LIST_FIELDS = frozenset({"signals"})

#: The columns of the findings dataset: the source row's ``id``, ``path`` and ``line``, then
#: every field of a finding in the JSON report, then ``error`` and ``internal`` (a row that
#: could not be read is one row of ``kind`` ``error``).
FINDING_COLUMNS = ("id", "path", "line", *_FINDING_FIELDS, "error", "internal")


def _schema() -> Any:
    import pyarrow as pa

    def kind(name: str) -> Any:
        if name in _INT_FIELDS or name == "line":
            return pa.int64()
        if name in _LIST_FIELDS:
            return pa.list_(pa.string())
        return pa.bool_() if name == "internal" else pa.string()

    return pa.schema([(name, kind(name)) for name in FINDING_COLUMNS])


def _split(row: dict[str, Any], column: str | None) -> tuple[object, dict[str, Any]]:
    """A source row's transcript, and its meta columns."""
    meta = {k: row.get(k) for k in META_COLUMNS}
    if column is not None:
        return row.get(column), meta
    return {k: v for k, v in row.items() if k not in META_COLUMNS}, meta


class _FindingsBatch:
    """The ``map_batches`` callable of :func:`audit_dataset`: one per actor, set up once."""

    def __init__(self, column: str | None, **auditor: Any) -> None:
        self.column = column
        self.auditor = RowAuditor(**auditor)
        self.schema = _schema()

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows = batch.to_pylist()
        split = [_split(row, self.column) for row in rows]
        out: dict[str, list[Any]] = {name: [] for name in FINDING_COLUMNS}
        for (_, meta), entries in zip(
            split, self.auditor.audit([t for t, _ in split], path="<dataset>"), strict=True
        ):
            source_id = meta["id"]
            line = meta["line"]
            for entry in entries:
                out["id"].append(None if source_id is None else str(source_id))
                out["path"].append(None if meta["path"] is None else str(meta["path"]))
                out["line"].append(line if isinstance(line, int) else None)
                if isinstance(entry, Finding):
                    data = entry.model_dump(mode="json")
                    for name in _FINDING_FIELDS:
                        out[name].append(data[name])
                    out["error"].append(None)
                    out["internal"].append(False)
                else:
                    for name in _FINDING_FIELDS:
                        out[name].append("error" if name == "kind" else None)
                    out["error"].append(entry.error)
                    out["internal"].append(entry.internal)
        return pa.table(out, schema=self.schema)


class _GroupBatch:
    """The ``map_batches`` callable of the Parquet reader of ``guard audit --engine ray``: each
    run of rows from one file becomes one pickled unit result (lines numbered from 1 in the
    run; the report shifts them as it merges, in order)."""

    def __init__(self, **auditor: Any) -> None:
        self.auditor = RowAuditor(**auditor)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows = batch.to_pylist()
        out: dict[str, list[Any]] = {"path": [], "format": [], "result": []}
        start = 0
        while start < len(rows):
            path = rows[start].get("path")
            end = start
            while end < len(rows) and rows[end].get("path") == path:
                end += 1
            transcripts = [_split(row, None)[0] for row in rows[start:end]]
            fmt = self.auditor.format
            if fmt == "auto":
                fmt = next((f for f in map(classify, transcripts) if f is not None), "auto")
            result = self.auditor.run(transcripts, path=str(path))
            result.bytes = batch.slice(start, end - start).nbytes  # the rows in Arrow
            out["path"].append(str(path))
            out["format"].append(fmt)
            out["result"].append(pickle.dumps(result))
            start = end
        return pa.table(
            out,
            schema=pa.schema(
                [("path", pa.string()), ("format", pa.string()), ("result", pa.binary())]
            ),
        )


def audit_dataset(
    ds: Any,
    *,
    format: str = "auto",
    dialect: str | Dialect | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    tools: Any = None,
    column: str | None = None,
    concurrency: int | None = None,
    num_cpus: float | None = None,
    batch_size: int | None = 1024,
) -> Any:
    """A Ray Dataset of the findings in ``ds`` (lazy, like every Ray Dataset).

    Each row of ``ds`` is one transcript: the row itself (``{"messages": [...]}`` as
    ``ray.data.read_json`` gives it), or the value of ``column`` (a transcript object, or one
    JSONL line as ``str``/``bytes``, as ``ray.data.read_text`` gives it in ``text``). The
    columns ``id``, ``path`` and ``line`` of a source row are not judged: they are copied to
    its findings (``read_*(..., include_paths=True)`` adds ``path``).

    The result has one row per finding, with the columns of :data:`FINDING_COLUMNS`: the
    source row's ``id``, ``path`` and ``line``, every field of a finding in the JSON report, and
    ``error``/``internal``; a source row that could not be read (invalid JSON, not a transcript,
    a malformed message) is one row of ``kind`` ``error``.

    The work runs in ``map_batches`` on a pool of ``concurrency`` actors (default: one per CPU
    of the cluster), each holding one :class:`~guard.audit.RowAuditor` (the policy and compiled
    signals loaded once). Each actor asks for ``num_cpus`` (default: a fraction, so that the
    pool always leaves a whole CPU to the tasks that read ``ds``: see
    :func:`~guard.integrations.ray.actor_resources`).

    Raises:
        RayMissingError: Ray Data is not installed (the ``ray`` extra).
        ValueError / TypeError: an unknown format or dialect, a bad policy or tool list.
    """
    ray = require_ray()
    # checks the arguments here, in the caller, not later in an actor
    auditor = RowAuditor(format=format, dialect=dialect, policy=policy, tools=tools)
    size, per = actor_resources(cluster_cpus(ray) if ray.is_initialized() else os.cpu_count() or 1)
    return ds.map_batches(
        _FindingsBatch,
        fn_constructor_kwargs={
            "column": column,
            "format": format,
            "dialect": auditor.dialect,
            "policy": auditor.policy,
            "tools": None if auditor.tools is None else sorted(auditor.tools),
        },
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(size=concurrency or size),
        num_cpus=per if num_cpus is None else num_cpus,
    )
