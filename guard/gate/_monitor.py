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

from guard.gate._boundary import JsonEnd, get_boundary
from guard.gate._code import CodeTracker
from guard.gate._hitlog import HitLog
from guard.gate._plan import MEMO_KEY, MEMO_LONGER, stream_plan
from guard.gate._policy import Policy
from guard.gate._whole import decide, find_hits, injection_verdict, make_verdict
from guard.models import Dialect, Hit, Surface, TextView, Verdict

__all__ = ["SurfaceMonitor"]

_NEVER = 1 << 62
#: the longest text a published ``tail_start`` matches (see :class:`~guard.models.Triggers`)
TAIL_START_SPAN = 64
_ANYWHERE = frozenset({"anywhere"})
_OPENING = frozenset({"opening"})
_ENDING = frozenset({"ending"})


class SurfaceMonitor:
    """Incremental gate for one surface of one stream; see the module docstring."""

    def __init__(
        self,
        surface: Surface,
        dialect: Dialect,
        policy: Policy,
        *,
        tool_name: str | None = None,
        tools: frozenset[str] | None = None,
        reasoning: bool | None = None,
    ) -> None:
        self.surface = surface
        self.dialect = dialect
        self.policy = policy
        self.tool_name = tool_name
        #: the request's declared tool names and whether the message carried a reasoning part
        #: (``None``: unknown), as :func:`~guard.gate.evaluate` takes them
        self.tools = tools
        self.reasoning = reasoning
        self.rule = policy.rule(surface)
        #: the co-signal of the parse boundary, added to hits once the boundary is known
        self._boundary_code = policy.boundary_signal
        self.total = 0
        self.examined = 0  # characters handed to signal scans (linear-work accounting)
        self._parts: list[str] = []  # text[self._base:], joined lazily
        self._plan = plan = stream_plan(dialect, surface, policy.disabled)
        self._weights = policy.effective_weights()
        self._tail = ""  # the last `plan.hold` characters
        self._base = 0
        self._settled = 0  # anchors starting before this are final (but for code / boundary)
        self._due: int | None = None  # scan again once the stream reaches this length
        self._partial = False  # the tail may be the start of a spelling: scan on next delta
        self._armed = 0  # a trigger was seen: scan every delta until the stream reaches this
        self._hold = 0
        self._pending: list[Hit] = []  # settled hits awaiting code status or the boundary
        #: settled hits parked until the code status of their end is final (text and thinking:
        #: an open fence or an unpaired backtick run may hold thousands of them), with the
        #: smallest end among them, the smallest cut, and the smallest cut of those that would
        #: trip unless code encloses them; a delta walks them only once that end is certain
        self._waiting: list[Hit] = []
        self._waiting_end = _NEVER
        self._waiting_from = _NEVER
        self._waiting_cut = _NEVER
        #: decided hits; leak mode keeps the earliest max_hits and counts the rest
        self._hits: list[Hit] = []
        self._log = HitLog(policy.max_hits)
        self._early: dict[int, Hit] = {}  # unsettled hits by start (partial co-signals)
        self._trip: Hit | None = None
        #: where the opening or ending signals may still claim text (the total when nothing)
        self._scoped = 0
        self._finished = False
        #: the ``guard.leak`` event of this surface's finding was logged: a verdict asked for
        #: again (by the stream's decisions, its ``verdicts``, ...) is not a new finding
        self._announced = False
        self._last_trim = 0
        leak_mode = self.rule.mode == "leak"
        #: the opening signals still have to run (and may hold the text back)
        self._opening = leak_mode and plan.lead is not None
        self._leads: bool | None = None  # does the opening match a lead? None: undecided
        #: the ending signals run at finish; a tail that may become one of their hits is held
        self._ending = leak_mode and plan.tail is not None
        self._tail_from = 0  # where to look for such a tail next
        #: the quiet path (see :meth:`feed`): only for text and thinking in leak mode, where
        #: nothing but the signals' promises decides what a delta can change
        self._may_be_quiet = (
            leak_mode
            and surface in (Surface.TEXT, Surface.THINKING)
            and plan.quiet_test is not None
            and not plan.always
        )
        #: whether the monitor is on its quiet path: what it withholds, if anything, is only a
        #: tail that may still grow into a word spelling (a plain attribute: read per delta)
        self.quiet = False
        self._lazy: list[str] = []  # quiet deltas the bookkeeping has not seen yet
        self._near = ""  # the last `plan.near` characters (kept while quiet)
        #: word spellings can trip here: their prefixes at the end are held back
        self._words = leak_mode and bool(plan.prefixes or plan.opening)
        self._code = (
            CodeTracker()
            if leak_mode and self.rule.code_exempt and surface in (Surface.TEXT, Surface.THINKING)
            else None
        )
        self._json: JsonEnd | None = None
        self._boundary_fn = None
        if surface is Surface.TOOL_ARG and leak_mode:
            name = policy.boundary_for(tool_name)
            if name == "json":
                self._json = JsonEnd()
            else:
                self._boundary_fn = get_boundary(name)
                self._whole: list[str] = []

    # --- feeding ---------------------------------------------------------------------------

    def feed(self, delta: str) -> None:
        if self._finished:
            raise RuntimeError("SurfaceMonitor.feed() after finish()")
        if not delta:
            return
        # the quiet path is feed_release's (the streams' hot path); here, the full path
        self.quiet = False
        if self._lazy:
            self._catch_up()
        plan = self._plan
        tail = self._tail
        near = tail[max(0, len(tail) - plan.near) :] + delta
        self._parts.append(delta)
        self._tail = (tail + delta)[-plan.hold :]
        total = self.total = self.total + len(delta)
        if self._code is not None:
            self._code.feed(delta)
        if self._json is not None:
            self._json.feed(delta)
        elif self._boundary_fn is not None:
            self._whole.append(delta)
        trigger = plan.always or not delta.isascii() or total - len(delta) < self._armed
        if not trigger:
            seen = plan.trigger.search(near)
            if seen is None and not near.isascii():
                # a literal split by an invisible character earlier in the tail
                seen = plan.trigger.search(TextView(near).norm)
            trigger = seen is not None
        if not trigger and plan.opening and total - len(delta) < plan.opening_window:
            # the opening words announce hits at the start of the text only
            trigger = plan.opens(self._buf[: plan.opening_window])
        if trigger:
            # a hit holding a trigger ends within one anchor span of it: look until then
            self._armed = total + plan.hold
        if trigger or self._partial:
            self._discover(len(delta))
        if self._due is not None and total >= self._due:
            self._settle(final=False)
        elif not self._early and total - plan.right > self._settled:
            self._settled = total - plan.right
        if self._early:
            for hit in self._early.values():
                self._check_early(hit)
        if self._pending or self._waiting:
            self._resolve()
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
        if self._ending:
            scoped = min(scoped, self._ending_hold())
        self._scoped = scoped
        self._hold = min(self._hold, scoped)
        if total - self._last_trim > 4096:
            self._trim()
        self.quiet = self._may_be_quiet and self._is_quiet()
        if self.quiet:
            self._near = self._tail[max(0, len(self._tail) - plan.quiet_near) :]

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
            if plan.quiet_test(delta, near):  # type: ignore[misc]
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
                    if total - self._last_trim > 4096:
                        self._catch_up()
                        self._trim()
                    return hold
        self.feed(delta)
        return -1 if self.tripped is not None else self.release

    def _is_quiet(self) -> bool:
        """Whether the next deltas may take the quiet path (see :meth:`feed`)."""
        total = self.total
        return (
            self._hold >= total - self._plan.quiet_near  # at most a word prefix held
            and self._scoped == total
            and not self._partial
            and not self._early
            and not self._pending
            and not self._waiting
            and self._trip is None
            and self._due is None
            and total >= self._armed
            and not self._opening
            and total > self._plan.opening_window
        )

    def _catch_up(self) -> None:
        """Bring the bookkeeping the quiet deltas skipped up to date: the text, the code
        tracker, the tail, the settled offset (an ending signal's tail can only start where a
        quiet delta could not hold one, so the search for it moves on too)."""
        if not self._lazy:
            return
        lazy = "".join(self._lazy)
        self._lazy = []
        self._parts.append(lazy)
        if self._code is not None:
            self._code.feed(lazy)
        plan = self._plan
        self._tail = (self._tail + lazy)[-plan.hold :]
        total = self.total
        if not self._early and total - plan.right > self._settled:
            self._settled = total - plan.right
        self._tail_from = max(self._tail_from, total - TAIL_START_SPAN)
        self._scoped = total

    def finish(self) -> Verdict:
        """End of the stream: settle everything and return the whole-text verdict."""
        self.quiet = False
        if self._lazy:
            self._catch_up()
        if not self._finished:
            self._finished = True
            if self._code is not None:
                self._code.finish()
            if self._json is not None:
                self._json.finish()
            self._settle(final=True)
            if self._opening:
                self._run_opening()
            if self._ending:
                self._run_ending()
            self._resolve()
        return self.verdict()

    def verdict(self) -> Verdict:
        """The verdict on what has been decided so far (complete after :meth:`finish`)."""
        if self.rule.mode == "injection":
            hits = sorted(self._hits, key=lambda h: (h.start, -h.end))
            return injection_verdict(
                self.surface, self.dialect, hits, self.tool_name, self.policy.max_hits
            )
        log = self._log
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
            self._base,
            max_hits=self.policy.max_hits,
            announce=not self._announced,
            forges=self.policy.forges,
        )
        self._announced = self._announced or verdict.leak
        return verdict if not log.over else self._with_folded(verdict, hits)

    def _with_folded(self, verdict: Verdict, hits: list[Hit]) -> Verdict:
        """``verdict`` on the kept hits (and the earliest folded tripping one), completed with
        what the log counted of the hits it folded away: as :func:`make_verdict` would say it
        of every hit."""
        log = self._log
        first = log.first
        total = len(log)
        trips = sum(h.trips for h in hits) + log.over_trips - (first is not None)
        if trips:
            head = min((h for h in hits if h.trips), key=lambda h: (h.start, -h.end))
            more = f"; {trips - 1} more tripping" if trips > 1 else ""
            reason = (
                f"leak on {self.surface.value}: {head.label} at {head.start} ({head.detail}){more}"
            )
        else:
            in_code = sum(h.in_code for h in hits) + log.over_code
            reason = f"{total} hit(s), none tripping"
            if in_code:
                reason += f"; {in_code} inside closed code"
        signals = dict.fromkeys(verdict.signals)
        signals.update(log.signals)
        return verdict.model_copy(
            update={
                "hits_dropped": total - len(verdict.hits),
                "signals": tuple(signals),
                "score": verdict.score + log.over_score - (first.score if first else 0.0),
                "reason": reason,
            }
        )

    @property
    def tripped(self) -> Hit | None:
        """The first hit whose trip is certain: no signal of the opening or the end of the
        text can still claim text before its cut."""
        trip = self._trip
        if trip is None or self._finished or self._scoped >= trip.cut:
            return trip
        return None

    @property
    def retained(self) -> tuple[int, str]:
        """``(start, text)``: the text the monitor still holds (from ``start`` of the whole
        surface text to its end); earlier text has been trimmed away."""
        return self._base, self._buf

    # --- internals ---------------------------------------------------------------------------

    @property
    def _buf(self) -> str:
        if self._lazy:
            self._catch_up()
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

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
    ) -> list[Hit]:
        window = self._buf[lo - self._base : None if hi is None else hi - self._base]
        self.examined += len(window)
        boundary = self._boundary()
        if boundary is None:
            # Unknown yet: no hit carries T now; _with_boundary adds it once the end is known.
            boundary = 0 if final else _NEVER
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
        )

    # --- signals of the opening and of the end of the text --------------------------------------

    def _opening_hold(self) -> int:
        """Hold the whole text while its opening may still become an opening signal's hit;
        run those signals once the opening is complete."""
        if self.total >= self._plan.opening_span:
            self._run_opening()
            return self.total
        if self._leads is None:
            head = self._buf[:64]
            norm = head if head.isascii() else TextView(head).norm
            leads = self._plan.leads(norm)
            if not leads:
                self._leads = False
            elif self._plan.lead is not None and self._plan.lead.match(norm) is not None:
                self._leads = True  # a full lead: undecided until the opening is complete
            else:
                return 0  # a partial lead: decided by a later delta
        return 0 if self._leads else self.total

    def _run_opening(self) -> None:
        self._opening = False
        if self._leads is False:
            return  # the text does not open the way these signals need
        span = self._plan.opening_span
        final = self.total <= span and self._finished
        for hit in self._hits_in(0, final=final, hi=min(span, self.total), scopes=_OPENING):
            self._pending.append(hit)

    def _ending_hold(self) -> int:
        """Start of the earliest tail that may still become an ending signal's hit."""
        plan = self._plan
        lo = max(self._base, self._tail_from, self.total - plan.ending_span)
        window = self._buf[lo - self._base :]
        view = None if window.isascii() else TextView(window)
        norm = window if view is None else view.norm
        at = plan.tail_hold(norm, 0)
        if at is None:
            # a tail start of several characters may still complete before the end
            self._tail_from = max(self._tail_from, self.total - TAIL_START_SPAN)
            return self.total
        start = lo + (at if view is None else view.to_original(at))
        self._tail_from = start  # an earlier place cannot become a tail again
        return start

    def _run_ending(self) -> None:
        self._ending = False
        lo = max(self._base, self.total - self._plan.ending_span)
        self._pending.extend(self._hits_in(lo, final=True, scopes=_ENDING))

    def _discover(self, new: int) -> None:
        """Find anchors that the last delta completed, with the evidence to their left (enough
        for an early decision); their full co-signals come when they settle."""
        plan = self._plan
        lo = max(self._base, self._settled, self.total - new - plan.hold - plan.stable_left)
        for hit in self._hits_in(lo, final=False):
            # A hit near `lo` may lack its channel word: that only delays its decision.
            if hit.start >= self._settled:
                self._early[hit.start] = hit
        if self._early and self._due is None:
            self._due = min(self._early) + plan.right

    def _settle(self, *, final: bool) -> None:
        """Scan with full context and settle every anchor whose right context is complete."""
        plan = self._plan
        lo = max(self._base, self._settled - plan.left)
        limit = self.total if final else self.total - plan.right
        early: dict[int, Hit] = {}
        for hit in self._hits_in(lo, final=final):
            if hit.start < self._settled:
                continue
            if hit.start < limit:
                self._pending.append(hit)
            else:
                early[hit.start] = hit
        self._early = early
        self._settled = max(self._settled, limit)
        self._due = min(early) + plan.right if early else None

    def _code_known(self, hit: Hit) -> bool | None:
        """True/False when the code status of ``hit`` is final, None while it may change."""
        if self._code is None:
            return False
        if hit.end <= self._code.certain_upto:
            return self._code.in_code(hit.start, hit.end)
        return None

    def _t_known(self, hit: Hit) -> bool:
        """Whether T is final for this hit (always, outside ``tool_arg``)."""
        if self._boundary_code not in self.rule.require or self._finished:
            return True
        return self._boundary() is not None

    def _resolve(self) -> None:
        keep: list[Hit] = []
        if self.rule.mode == "injection":  # input: findings, never a trip
            self._hits.extend(self._pending)
            self._pending = []
            return
        code = self._code
        if code is not None and self._boundary_code not in self.rule.require:
            self._resolve_parked(code.certain_upto)
            return
        for hit in self._pending:
            in_code = self._code_known(hit)
            if in_code is None or not self._t_known(hit):
                keep.append(hit)
                continue
            hit = self._with_boundary(hit)
            decided = decide(hit, self.rule, self._weights, in_code)
            self._log.append(decided)
            if decided.trips and (self._trip is None or decided.cut < self._trip.cut):
                self._trip = decided
        self._pending = keep

    def _resolve_parked(self, certain: int) -> None:
        """:meth:`_resolve` where only the code status can hold a hit back (no T): hits whose
        end is not yet certain are parked, and the parked ones are walked again only once the
        earliest of their ends is certain. Hits are decided in the order they were settled, as
        the plain walk decides them."""
        code = self._code
        assert code is not None
        if self._waiting and self._waiting_end <= certain:
            hits = self._waiting + self._pending
            self._waiting = []
            self._waiting_end = self._waiting_from = self._waiting_cut = _NEVER
        else:
            hits = self._pending
        self._pending = []
        rule, weights = self.rule, self._weights
        for hit in hits:
            if hit.end > certain:
                self._waiting.append(hit)
                self._waiting_end = min(self._waiting_end, hit.end)
                self._waiting_from = min(self._waiting_from, hit.cut)
                if hit.cut < self._waiting_cut and decide(hit, rule, weights, False).trips:
                    self._waiting_cut = hit.cut
                continue
            decided = decide(hit, rule, weights, code.in_code(hit.start, hit.end))
            self._log.append(decided)
            if decided.trips and (self._trip is None or decided.cut < self._trip.cut):
                self._trip = decided

    def _with_boundary(self, hit: Hit) -> Hit:
        """Hits found before the boundary was known carry no T; add it once it is."""
        boundary = self._boundary()
        code = self._boundary_code
        if code not in self.rule.require or boundary is None or code in hit.signals:
            return hit
        if hit.start >= boundary:
            support = Hit(
                signals=(code,),
                start=hit.start,
                end=hit.end,
                evidence=hit.evidence,
                detail=f"after the arguments end at {boundary}",
            )
            return hit.replace(
                **{"signals": (*hit.signals, code), "support": (*hit.support, support)}
            )
        return hit

    def _check_early(self, hit: Hit) -> None:
        """Act before settling when the trip cannot change any more."""
        if self.rule.mode == "injection":
            return
        if self._trip is not None and self._trip.cut <= hit.cut:
            return
        if self._code_known(hit) is not False or not self._t_known(hit):
            return
        hit = self._with_boundary(hit)
        stable = {hit.code, *self._plan.stable}
        probe = hit.replace(**{"signals": tuple(c for c in hit.signals if c in stable)})
        if decide(probe, self.rule, self._weights, False).trips:
            self._trip = decide(hit, self.rule, self._weights, False)

    def _trim(self) -> None:
        self._last_trim = self.total
        keep_from = max(0, self._settled - self._plan.left)
        for hit in self._pending:
            keep_from = min(keep_from, hit.cut)
        keep_from = min(keep_from, self._waiting_from)
        keep_from = min(keep_from, self.total - max(self._plan.hold, self._plan.ending_span))
        if keep_from - self._base > 4096:
            self._parts = [self._buf[keep_from - self._base :]]
            self._base = keep_from
        if self._code is not None:
            self._code.prune(keep_from)

    # --- what may be shown -----------------------------------------------------------------------

    @property
    def release(self) -> int:
        """Offset up to which the text can be shown now."""
        if self._finished:
            return self._trip.cut if self._trip else self.total
        if self._trip is None and not self._pending and not self._waiting and not self._early:
            return self._hold
        bound = min(self._hold, self._waiting_cut)  # parked hits: their code status is open
        if self._trip is not None:
            bound = min(bound, self._trip.cut)
        for hit in self._pending:
            if self._would_trip_but_for_code(hit):
                bound = min(bound, hit.cut)
        for hit in self._early.values():
            # An anchor that may still trip once co-signals to its right arrive (B, R, S, G) is
            # withheld until it settles, so a late trip never shows text past its cut.
            if hit.code in self.rule.anchors or self._would_trip_but_for_code(hit):
                bound = min(bound, hit.cut)
        return bound

    def _would_trip_but_for_code(self, hit: Hit) -> bool:
        if self._code_known(hit) is False and self._t_known(hit):
            return False
        return decide(self._with_boundary(hit), self.rule, self._weights, False).trips or (
            self._boundary_code in self.rule.require
            and not self._t_known(hit)
            and decide(
                hit.replace(**{"signals": (*hit.signals, self._boundary_code)}),
                self.rule,
                self._weights,
                False,
            ).trips
        )

    def _word_hold(self) -> int:
        """Start of a tail that may still grow into a word spelling, or the end."""
        if not self._words:
            return self.total  # only H and N apply to names; inputs are never withheld
        tail = self._tail
        tail_start = self.total - len(tail)
        view = None if tail.isascii() else TextView(tail)
        norm = tail if view is None else view.norm
        plan = self._plan
        at = plan.opening_hold(norm) if self.total <= plan.opening_window else None
        if at is None:
            at = plan.word_hold(norm)
        if at is None:
            return self.total
        return tail_start + (at if view is None else view.to_original(at))

    def _bracket_hold(self) -> int:
        """Start of the earliest tail that is a proper prefix of a spelling that trips at its
        own start (the signals' hold patterns), or the end."""
        if self.rule.mode == "injection":
            return self.total
        tail = self._tail
        tail_start = self.total - len(tail)
        view = TextView(tail)
        norm = view.norm
        pattern = self._plan.holds
        if pattern is None:
            return self.total
        starts = self._plan.hold_starts
        # `regex` prefers a full match over an earlier partial one, so each place where a
        # spelling may begin is tried on its own, anchored there.
        positions = (m.start() for m in starts.finditer(norm)) if starts else range(len(norm))
        for at in positions:
            m = pattern.match(norm, at, partial=True)
            if m is not None and m.partial:
                return tail_start + view.to_original(at)
        return self.total
