"""Streaming detection for one surface (docs/streaming.md, "The surface monitor").

A :class:`SurfaceMonitor` is fed the text of one surface (visible text, thinking, one tool call's
arguments, ...) delta by delta. It keeps a bounded window of text, finds anchors and their
co-signals in that window, and settles each anchor once the text to its right that any co-signal
can look at has arrived. Code status comes from an incremental :class:`CodeTracker`, the parse
boundary of tool arguments from :class:`JsonEnd`; both are exact, so the final verdict equals
``guard.detect`` on the whole text, however the stream was split.

It also says, after every delta:

* ``tripped``: the first hit whose trip is already *certain* (an H or K hit, an M hit with a
  channel word before it, outside code that can no longer change, with T settled on
  ``tool_arg``). Streams act on it in the chunk that completes it.
* ``release``: the offset up to which text may be shown: everything except a tail that could
  still complete a tripping spelling, and except text from a hit that would trip unless a still
  open fence or code span turns out to enclose it.

Signals that read only the opening of the text (``scope="opening"``, such as the reasoning
voice) run once, on the first ``max_span`` characters (or the whole text if it ends first);
until then a text whose start matches their ``lead`` is held back whole. Signals that need the
end of the text (``scope="ending"``, such as a trailing tool call) run once, at :meth:`finish`,
on the last ``max_span`` characters; until then the monitor holds back from the earliest place
where the rest of the text may still become such a hit (their ``tail``). The message's context
(``tools``, ``reasoning``) is passed to every scan, as :func:`~guard.gate.evaluate` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from guard.gate._boundary import JsonEnd, get_boundary
from guard.gate._code import CodeTracker
from guard.gate._holds import (
    ARM,
    TAIL_START_SPAN,
    bracket_hold,
    sighting,
    word_hold,
)
from guard.gate._plan import MEMO_KEY, MEMO_LONGER, stream_plan, untooled
from guard.gate._policy import Policy
from guard.gate._scopes import ScopedSignals
from guard.gate._settler import NEVER, Settler
from guard.gate._whole import find_hits, injection_verdict, make_verdict
from guard.gate._window import TRIM_STEP, Window
from guard.models import Dialect, Hit, Signal, Surface, Verdict
from guard.signals import load_signals
from guard.signals.named_token import REACH_LEFT as NAMED_LEFT
from guard.signals.named_token import REACH_RIGHT as NAMED_RIGHT
from guard.signals.named_token import named

__all__ = ["SurfaceMonitor"]

_ANYWHERE = frozenset({"anywhere"})
_OPENING = frozenset({"opening"})
_ENDING = frozenset({"ending"})


#: decided I states a monitor keeps before it lets go of the settled ones
_NAMED_CAP = 256


def _never(hit: Hit) -> bool | None:
    return False


def _no_boundary() -> int | None:
    return None


@dataclass(eq=False, repr=False)
class SurfaceMonitor(ScopedSignals):
    """Incremental gate for one surface of one stream; see the module docstring.

    It drives three parts: the :class:`~guard.gate._window.Window` (the text kept), the
    hold-back rules (:mod:`guard.gate._holds`) and the :class:`~guard.gate._settler.Settler`
    (from anchors to decided hits)."""

    surface: Surface
    dialect: Dialect
    policy: Policy
    _: KW_ONLY
    tool_name: str | None = None
    #: the request's declared tool names and whether the message carried a reasoning part
    #: (``None``: unknown), as :func:`~guard.gate.evaluate` takes them
    tools: frozenset[str] | None = None
    reasoning: bool | None = None
    #: the signal set (default: every registered signal; see :class:`~guard.gate.Detector`)
    signals: tuple[Signal, ...] | None = None

    def __post_init__(self) -> None:
        if self.tools is not None and not isinstance(self.tools, frozenset):
            # a list of names or tool definitions, as detect() takes them (a lazy import: the
            # gate is imported by the module that defines it)
            from guard._detect import tool_names

            self.tools = tool_names(self.tools)
        if self.tools is None:
            # no declared tools: the signals that need them are left out of the plan and the
            # scans (they would find nothing, and their triggers cost every delta)
            every = load_signals() if self.signals is None else self.signals
            self.signals = untooled(self.dialect, every)
        surface, dialect, policy, signals = self.surface, self.dialect, self.policy, self.signals
        tool_name = self.tool_name
        self.rule = rule = policy.rule(surface)
        self.total = 0
        self.examined = 0  # characters handed to signal scans (linear-work accounting)
        self._plan = plan = stream_plan(dialect, surface, policy.disabled, signals)
        self._window = Window(plan.hold)
        self._lazy = self._window.lazy  # quiet deltas the bookkeeping has not seen yet
        self._partial = False  # the tail may be the start of a spelling: scan on next delta
        self._armed = 0  # a trigger was seen: scan every delta until the stream reaches this
        self._hold = 0
        #: where the opening or ending signals may still claim text (the total when nothing)
        self._scoped = 0
        self._finished = False
        #: the ``guard.leak`` event of this surface's finding was logged: a verdict asked for
        #: again (by the stream's decisions, its ``verdicts``, ...) is not a new finding
        self._announced = False
        self._last_trim = 0
        leak_mode = rule.mode == "leak"
        #: the opening signals still have to run (and may hold the text back)
        self._opening = leak_mode and plan.lead is not None
        self._leads: bool | None = None  # does the opening match a lead? None: undecided
        #: the ending signals run at finish; a tail that may become one of their hits is held
        self._ending = leak_mode and plan.ends
        self._tail_from = 0  # where to look for such a tail next
        #: the ending parts of ``anywhere`` signals run every ``plan.sweep`` characters while a
        #: trigger was seen in the text they read (see :meth:`_sweep`)
        self._swept = 0
        self._seen_at = -NEVER
        self._sweep_signals: tuple[Signal, ...] | None = None
        #: the quiet path (see :meth:`feed_release`): only for text and thinking in leak mode,
        #: where nothing but the signals' promises decides what a delta can change
        self._may_be_quiet = (
            leak_mode
            and surface in (Surface.TEXT, Surface.THINKING)
            and plan.quiet_test is not None
            and not plan.always
        )
        #: whether the monitor is on its quiet path: what it withholds, if anything, is only a
        #: tail that may still grow into a word spelling (a plain attribute: read per delta)
        self.quiet = False
        self._near = ""  # the last `plan.near` characters (kept while quiet)
        #: word spellings can trip here: their prefixes at the end are held back
        self._words = leak_mode and bool(plan.prefixes or plan.opening)
        self._code = (
            CodeTracker()
            if leak_mode and rule.code_exempt and surface in (Surface.TEXT, Surface.THINKING)
            else None
        )
        self._json: JsonEnd | None = None
        self._boundary_fn: Callable[[str], int | None] | None = None
        self._whole: list[str] = []
        if surface is Surface.TOOL_ARG and leak_mode:
            name = policy.boundary_for(tool_name)
            if name == "json":
                self._json = JsonEnd()
            else:
                self._boundary_fn = get_boundary(name)
        #: I's decided answers by hit span (see :meth:`_maybe_named`)
        self._named: dict[tuple[int, int], bool] = {}
        self._settler = Settler(
            plan,
            rule,
            policy.effective_weights(signals),
            policy.max_hits,
            policy.boundary_signal,
            self._code,
            self._boundary,
            self._maybe_named if self._names(signals) else _never,
        )

    # --- feeding ---------------------------------------------------------------------------

    def feed(self, delta: str) -> None:
        if self._finished:
            raise RuntimeError("SurfaceMonitor.feed() after finish()")
        if not delta:
            return
        # the quiet path is feed_release's (the streams' hot path); here, the full path
        self.quiet = False
        near = self._take(delta)
        total = self.total
        armed = total - len(delta) < self._armed
        seen = sighting(self._plan, delta, near, total - len(delta), self._head)
        if seen is ARM:
            # a hit holding a trigger ends within one anchor span of it: look until then (a
            # delta read only because the scan is still armed, or one that may only begin a
            # held spelling, does not arm it: one `?` would keep a hundred characters off the
            # quiet path, and the scan's own deltas would keep it armed for ever)
            self._armed = total + self._plan.hold
        trigger = seen is not None or armed
        if seen is not None:
            self._seen_at = total
        settler = self._settler
        # a settling scan now reads all a discovering one would (and sets the early anchors
        # anew): in dense text most deltas settle, so each anchor is found once, not twice
        settles = settler.due is not None and total >= settler.due
        if (trigger or self._partial) and not settles:
            self._discover(len(delta))
            settles = settler.due is not None and total >= settler.due
        if settles:
            self._settle(final=False)
        else:
            settler.advance(total)
        plan = self._plan
        if plan.sweep and total - self._swept >= plan.sweep and self._sweep_due():
            self._sweep()
        if settler.early:
            settler.check_early()
        if settler.pending or settler.waiting:
            settler.resolve()
        self._hold_back(trigger)
        if total - self._last_trim > TRIM_STEP:
            self._trim()
        self.quiet = self._may_be_quiet and self._is_quiet()
        if self.quiet:
            tail = self._window.tail
            self._near = tail[max(0, len(tail) - self._plan.quiet_near) :]

    def _take(self, delta: str) -> str:
        """Add ``delta`` to the text and to the trackers of code and of the parse boundary;
        return it with the end of the text before it that a trigger literal may straddle."""
        if self._lazy:
            self._catch_up()
        window = self._window
        tail = window.tail
        near = tail[max(0, len(tail) - self._plan.near) :] + delta
        window.append(delta)
        self.total += len(delta)
        if self._code is not None:
            self._code.feed(delta)
        if self._json is not None:
            self._json.feed(delta)
        elif self._boundary_fn is not None:
            self._whole.append(delta)
        return near

    def _head(self) -> str:
        """The text's opening, as far as opening words are looked for."""
        return self._buf[: self._plan.opening_window]

    def _hold_back(self, trigger: bool) -> None:
        """Apply the hold-back rules to the text so far (see :mod:`guard.gate._holds`)."""
        total = self.total
        # A partial bracket spelling can only start where a trigger was seen (partial-ness is
        # prefix-closed); a word spelling completes with a trigger in view (`=`, `assistant`,
        # `json{`), so only bracket partials ask for a rescan on the next delta.
        if trigger or self._partial:
            bracket = self._bracket_hold()
            self._partial = bracket < total
            self._hold = min(bracket, self._word_hold())
        elif self._words:
            self._hold = self._word_hold()
        else:
            self._hold = total
        scoped = total
        if self._opening:
            scoped = min(scoped, self._opening_hold())
        if self._ending and self._plan.tail is not None:
            scoped = min(scoped, self._ending_hold())
        self._scoped = scoped
        self._hold = min(self._hold, scoped)

    def feed_release(self, delta: str) -> int:
        """:meth:`feed`, then the offset up to which the text can be shown now (``release``),
        or -1 when a hit has tripped: the stream's hot path, in one call.

        While the monitor is quiet (nothing is held but maybe a tail that may still become a
        word spelling, nothing is pending or armed, the opening is decided), a delta that cannot
        wake a signal (``plan.quiet_test``) changes nothing but the text and that hold: keep it,
        leave the rest of the bookkeeping for later (:meth:`_catch_up`) and return the new hold.
        Anything else takes the full path of :meth:`feed`. This runs once per streamed delta:
        it is written inline on purpose."""
        if self.quiet and delta:
            plan = self._plan
            near = self._near + delta
            if plan.quiet_test(delta, near) and (  # type: ignore[misc]
                not plan.sweep
                or self.total + len(delta) - self._swept < plan.sweep
                or not self._sweep_due()
            ):
                at: int | None = None
                if self._words:
                    # plan.word_hold, inlined: most answers come from its memo by the last
                    # MEMO_KEY characters alone
                    held = plan.memo.get(near[-MEMO_KEY:], -2)
                    if held < 0:
                        held = plan.memo_hold(
                            near, MEMO_KEY + 1 if held == MEMO_LONGER else MEMO_KEY
                        )
                    if held > 0:
                        at = len(near) - held
                        if at > 0 and near[at - 1] in plan.glue:
                            at = plan.word_hold(near)
                    elif held < 0:
                        at = 0
                    elif near[-1] in plan.glue:
                        at = len(near.rstrip(plan.glue))
                if at != 0:
                    self._lazy.append(delta)
                    total = self.total = self.total + len(delta)
                    hold = self._hold = total if at is None else total - (len(near) - at)
                    # keep at least quiet_near characters; cut them back only now and then
                    if len(near) > 2 * plan.quiet_near:
                        near = near[len(near) - plan.quiet_near :]
                    self._near = near
                    if total - self._last_trim > TRIM_STEP:
                        self._catch_up()
                        self._trim()
                    return hold
        self.feed(delta)
        return -1 if self.tripped is not None else self.release

    def _is_quiet(self) -> bool:
        """Whether the next deltas may take the quiet path (see :meth:`feed_release`)."""
        total = self.total
        return (
            self._hold >= total - self._plan.quiet_near  # at most a word prefix held
            and self._scoped == total
            and not self._partial
            and self._settler.idle
            and total >= self._armed
            and not self._opening
            and total > self._plan.opening_window
        )

    def _catch_up(self) -> None:
        """Bring the bookkeeping the quiet deltas skipped up to date: the text, the code
        tracker, the tail, the settled offset (an ending signal's tail can only start where a
        quiet delta could not hold one, so the search for it moves on too)."""
        lazy = self._window.catch_up()
        if not lazy:
            return
        if self._code is not None:
            self._code.feed(lazy)
        total = self.total
        self._settler.advance(total)
        self._tail_from = max(self._tail_from, total - TAIL_START_SPAN)
        self._scoped = total

    def finish(self) -> Verdict:
        """End of the stream: settle everything and return the whole-text verdict."""
        self.end()
        return self.verdict()

    def end(self) -> None:
        """:meth:`finish` without building the verdict (a stream of many calls ends two
        monitors per call and asks for few of their verdicts)."""
        self.quiet = False
        if self._lazy:
            self._catch_up()
        if not self._finished:
            self._finished = self._settler.finished = True
            if self._code is not None:
                self._code.finish()
            if self._json is not None:
                self._json.finish()
            self._settle(final=True)
            if self._opening:
                self._run_opening()
            if self._ending:
                self._run_ending()
            self._settler.resolve()

    @property
    def clean(self) -> bool:
        """Whether :meth:`verdict` would be the plain clean verdict (no hit, nothing folded);
        a stream keeps such a verdict as its surface and tool name only."""
        log = self._settler.log
        return self.rule.mode != "injection" and not log.hits and log.first is None and not log.over

    def verdict(self) -> Verdict:
        """The verdict on what has been decided so far (complete after :meth:`finish`)."""
        if self.rule.mode == "injection":
            hits = sorted(self._settler.found, key=lambda h: (h.start, -h.end))
            return injection_verdict(
                self.surface, self.dialect, hits, self.tool_name, self.policy.max_hits
            )
        log = self._settler.log
        folded = log.first
        hits = sorted(
            log.hits if folded is None else [*log.hits, folded], key=lambda h: (h.start, -h.end)
        )
        if not hits and not log.over:
            return Verdict(
                leak=False,
                surface=self.surface,
                dialect=self.dialect.name,
                tool_name=self.tool_name,
            )
        verdict = make_verdict(
            self._buf,
            self.surface,
            self.dialect,
            hits,
            self.tool_name,
            self._window.base,
            max_hits=self.policy.max_hits,
            announce=not self._announced,
            forges=self.policy.forges,
        )
        self._announced = self._announced or verdict.leak
        return verdict if not log.over else log.complete(verdict, hits, self.surface)

    @property
    def tripped(self) -> Hit | None:
        """The first hit whose trip is certain: no signal of the opening or the end of the
        text can still claim text before its cut."""
        trip = self._settler.trip
        if trip is None or self._finished or self._scoped >= trip.cut:
            return trip
        return None

    @property
    def retained(self) -> tuple[int, str]:
        """``(start, text)``: the text the monitor still holds (from ``start`` of the whole
        surface text to its end); earlier text has been trimmed away."""
        return self._window.base, self._buf

    @property
    def release(self) -> int:
        """Offset up to which the text can be shown now."""
        if self._finished:
            trip = self._settler.trip
            return trip.cut if trip else self.total
        return self._settler.bound(self._hold)

    # --- internals ---------------------------------------------------------------------------

    @property
    def _buf(self) -> str:
        if self._lazy:
            self._catch_up()
        return self._window.text

    def close(self) -> None:
        """Let go of what a finished monitor holds: its settler reads the parse boundary
        through this monitor, a reference cycle that kept every retired monitor of a stream
        alive until a full garbage collection (a flood of calls piled them up)."""
        self._settler.boundary = _no_boundary
        self._settler.vetoed = _never

    def _boundary(self) -> int | None:
        if self._json is not None:
            return self._json.end
        if self._boundary_fn is not None:
            return self._boundary_fn("".join(self._whole)) if self._finished else None
        return None

    def _hits_in(
        self,
        lo: int,
        *,
        final: bool,
        hi: int | None = None,
        scopes: frozenset[str] = _ANYWHERE,
        signals: tuple[Signal, ...] | None = None,
    ) -> list[Hit]:
        if self._lazy:
            self._catch_up()
        window = self._window.read(lo, hi)
        self.examined += len(window)
        boundary = self._boundary()
        if boundary is None:
            # Unknown yet: no hit carries the boundary's co-signal now; the settler adds it
            # once the end is known.
            boundary = 0 if final else NEVER
        return find_hits(
            window,
            self.surface,
            self.dialect,
            self.policy,
            offset=lo,
            parsed_end=boundary,
            tool_name=self.tool_name,
            final=final and hi is None,
            reasoning=self.reasoning,
            tools=self.tools,
            scopes=scopes,
            signals=self.signals if signals is None else signals,
        )

    def _sweepers(self) -> tuple[Signal, ...]:
        """The signals a sweep runs: those with an ending part, and the co-signals."""
        if self._sweep_signals is None:
            every = load_signals() if self.signals is None else self.signals
            codes = self._plan.end_codes
            self._sweep_signals = tuple(s for s in every if s.kind == "co" or s.code in codes)
        return self._sweep_signals

    def _names(self, signals: tuple[Signal, ...] | None) -> bool:
        """Whether I (a token named in prose) can veto an H hit here."""
        every = load_signals() if signals is None else signals
        return (
            "I" in self.rule.unless
            and "I" not in self.policy.disabled
            and self.rule.mode == "leak"
            and any(s.code == "I" and self.surface in s.surfaces for s in every)
        )

    def _maybe_named(self, hit: Hit) -> bool | None:
        """Whether the H ``hit`` is named in a sentence (I's rule read on the text so far):
        ``None`` while the words after it, or the spelling itself (a longer spelling may still
        begin with it), may decide either way. A decided answer never changes, so it is kept
        until the hit is settled."""
        if hit.code != "H":
            return False
        key = (hit.start, hit.end)
        known = self._named.get(key)
        if known is not None:
            return known
        if self._lazy:
            self._catch_up()
        if not self._finished and self._bracket_hold() <= hit.start:
            return None  # the spelling may still grow into a longer one
        lo = max(self._window.base, hit.start - NAMED_LEFT)
        # what I reads: the words after it, or the closer of a pair of tags
        text = self._window.read(lo, hit.end + NAMED_RIGHT + 2 * (hit.end - hit.start) + 16)
        state = named(
            self.dialect, hit.evidence, text, hit.start - lo, hit.end - lo, self._finished
        )
        if state is not None:
            if len(self._named) >= _NAMED_CAP:
                settled = self._settler.settled
                self._named = {k: v for k, v in self._named.items() if k[0] >= settled}
                if len(self._named) >= _NAMED_CAP // 2:
                    self._named = {}  # a cache: the undecided ones are read again if asked
            self._named[key] = state
        return state

    def _discover(self, new: int) -> None:
        """Find anchors that the last delta completed, with the evidence to their left."""
        plan = self._plan
        settler = self._settler
        lo = max(
            self._window.base, settler.settled, self.total - new - plan.hold - plan.stable_left
        )
        settler.discover(self._hits_in(lo, final=False))

    def _settle(self, *, final: bool) -> None:
        """Scan with full context and settle every anchor whose right context is complete."""
        settler = self._settler
        lo = max(self._window.base, settler.settle_from)
        settler.settle(self._hits_in(lo, final=final), self.total, final=final)

    def _trim(self) -> None:
        self._last_trim = self.total
        plan = self._plan
        keep_from = min(self._settler.keep_from(), self.total - max(plan.hold, plan.ending_span))
        self._window.trim(keep_from)
        if self._code is not None:
            self._code.prune(keep_from)

    def _word_hold(self) -> int:
        """Start of a tail that may still grow into a word spelling, or the end."""
        if not self._words:
            return self.total  # only H and N apply to names; inputs are never withheld
        return word_hold(self._plan, self._window.tail, self.total)

    def _bracket_hold(self) -> int:
        """Start of the earliest tail that is a proper prefix of a spelling that trips at its
        own start, or the end."""
        if self.rule.mode == "injection":
            return self.total
        return bracket_hold(self._plan, self._window.tail, self.total)
