"""A finding read off the object that holds it: the stream's engine keeps what it decided in its
decisions and its queue, a guarded stream reads it off its engine, and the wrappers around a
guarded stream (the wire engine's streamed answers, the SDK stream wrappers) read it off the
stream. One line per finding names where it is read. A finding is read-only, as the
properties it stands for were: setting or deleting it raises ``AttributeError``."""

from __future__ import annotations

from typing import Any, Generic, Never, Self, TypeVar, overload

__all__ = ["Forwarded"]

T = TypeVar("T")


class Forwarded(Generic[T]):
    """A read-only attribute that is the same-named attribute of the instance's ``via``
    attribute (``forged = Forwarded[bool]("decisions")``: ``self.decisions.forged``)."""

    def __init__(self, via: str, doc: str | None = None) -> None:
        self.via = via
        self.name = ""
        self.__doc__ = doc

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, objtype: type[Any] | None = None) -> Self: ...

    @overload
    def __get__(self, obj: object, objtype: type[Any] | None = None) -> T: ...

    def __get__(self, obj: object, objtype: type[Any] | None = None) -> Any:
        if obj is None:
            return self
        return getattr(getattr(obj, self.via), self.name)

    def __set__(self, obj: object, value: Never) -> None:  # Never: a type checker refuses it
        raise self._read_only(obj)

    def __delete__(self, obj: object) -> None:
        raise self._read_only(obj)

    def _read_only(self, obj: object) -> AttributeError:
        return AttributeError(
            f"{type(obj).__name__}.{self.name} is a read-only finding (read off .{self.via})",
            name=self.name,
            obj=obj,
        )
