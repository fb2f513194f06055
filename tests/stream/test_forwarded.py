"""Forwarded: a finding read off the object that holds it."""

from __future__ import annotations

import pytest

from guard.stream import Forwarded, guard_stream


class _Holder:
    forged = True


class _Reader:
    forged = Forwarded[bool]("holder", "Whether the holder saw a forgery.")

    def __init__(self) -> None:
        self.holder = _Holder()


def test_reads_the_same_named_attribute_of_its_holder() -> None:
    reader = _Reader()
    assert reader.forged is True
    reader.holder.forged = False
    assert reader.forged is False


def test_on_the_class_it_is_the_descriptor_with_its_doc() -> None:
    descriptor = _Reader.__dict__["forged"]
    assert isinstance(descriptor, Forwarded)
    assert descriptor.name == "forged"
    assert descriptor.__doc__ == "Whether the holder saw a forgery."
    assert _Reader.forged is descriptor


def test_it_cannot_be_set_or_deleted() -> None:
    reader = _Reader()
    with pytest.raises(AttributeError, match=r"_Reader\.forged is a read-only finding"):
        reader.forged = False  # type: ignore[assignment]  # read-only, also to mypy
    with pytest.raises(AttributeError, match=r"_Reader\.forged"):
        del reader.forged
    assert reader.forged is True
    assert "forged" not in vars(reader)


def test_a_guarded_streams_findings_cannot_be_set() -> None:
    stream = guard_stream(iter(["a"]))
    with pytest.raises(AttributeError, match="forged"):
        stream.forged = True  # type: ignore[assignment]  # read-only, also to mypy
    assert stream.forged is False
