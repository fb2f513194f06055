"""guard.stream offers exactly its public surface."""

from __future__ import annotations

import types

import guard.stream


def test_public_names_are_exactly_all() -> None:
    public = {
        n
        for n in dir(guard.stream)
        if not n.startswith("_")
        and n != "annotations"
        and not isinstance(getattr(guard.stream, n), types.ModuleType)
    }
    assert public == set(guard.stream.__all__)
    assert guard.stream.LeakAborted is guard.LeakAborted
