"""The verdicts of the candidate texts an audit process has judged lately.

A request log holds the whole conversation on every line, so each earlier message comes back
on every later line: a leak in turn 3 of a 40-turn session, or an answer whose opening sends it
to a full judgement, is judged 37 times for the same verdict. :class:`VerdictMemo` keeps each
verdict under everything :func:`guard.detect` reads (the text, its surface, the dialect, the
tool's name, the declared tools, whether the message has a reasoning part) and the policy it
was judged under; a finding is still made for every occurrence, from its own place. The memo
serves one run (:func:`one_run`): :func:`guard.audit`, and each batch of a row auditor
(:class:`guard.audit.RowAuditor`), empties it when it starts and when it ends, so a run never
reuses the verdicts of another (signal plugins may have changed in between), a measured run
is never served from an earlier one, and nothing stays alive after it.

Only texts of at most :data:`MAX_TEXT` characters are kept, and at most :data:`MAX_CHARS`
characters in all: when a new verdict would pass that, the memo starts again empty (a log's
repeats are near one another, so recent verdicts are the ones worth keeping).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from guard._detect import detect
from guard.gate import Policy
from guard.models import Dialect, Surface, Verdict

__all__ = ["MAX_CHARS", "MAX_TEXT", "MEMO", "VerdictMemo", "one_run"]

#: the longest text whose verdict is kept
MAX_TEXT = 65_536
#: the characters of all kept texts together
MAX_CHARS = 8_000_000

_Key = tuple[str, Surface, Dialect, str | None, frozenset[str] | None, bool | None, int]


class VerdictMemo:
    """:func:`guard.detect` with the verdicts of recent texts kept (see the module's
    docstring). One per process: collectors of one audit share it."""

    def __init__(self, max_text: int = MAX_TEXT, max_chars: int = MAX_CHARS) -> None:
        self.max_text = max_text
        self.max_chars = max_chars
        #: the policies of the kept verdicts, by ``id`` (kept alive, so no id is reused while
        #: a verdict is keyed by it; two audits in threads never read each other's)
        self._policies: dict[int, Policy] = {}
        self._verdicts: dict[_Key, Verdict] = {}
        self._chars = 0

    def detect(
        self,
        text: str,
        surface: Surface,
        dialect: Dialect,
        policy: Policy,
        *,
        tool_name: str | None,
        tools: frozenset[str] | None,
        reasoning: bool | None,
    ) -> Verdict:
        """The verdict of :func:`guard.detect` for these arguments."""
        key = (text, surface, dialect, tool_name, tools, reasoning, id(policy))
        verdict = self._verdicts.get(key)
        if verdict is not None:
            return verdict
        verdict = detect(
            text, surface, dialect, policy, tool_name=tool_name, tools=tools, reasoning=reasoning
        )
        size = len(text)
        if size <= self.max_text:
            if self._chars + size > self.max_chars:
                self.clear()
            self._policies[id(policy)] = policy
            self._verdicts[key] = verdict
            self._chars += size
        return verdict

    def clear(self) -> None:
        self._verdicts.clear()
        self._policies.clear()
        self._chars = 0

    def __len__(self) -> int:
        return len(self._verdicts)


#: the memo of this process
MEMO = VerdictMemo()


@contextmanager
def one_run() -> Iterator[None]:
    """The memo for one run: empty when it starts and when it ends (an audit, a batch of
    rows), so no run reuses another's verdicts and none is kept alive after it."""
    MEMO.clear()
    try:
        yield
    finally:
        MEMO.clear()
