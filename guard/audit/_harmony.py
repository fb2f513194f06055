"""Split raw Harmony transcripts (stored conversations; docs/wire-formats.md, "Harmony") into
messages.

A stored transcript holds every role, not only model output, so this is not the streaming model
output scanner: it reads ``<|start|>{header}<|message|>{content}{end}`` envelopes, where the end
is ``<|end|>``, ``<|call|>`` or ``<|return|>``, and tolerates what real logs contain:

* a missing end: a ``<|start|>`` inside a body ends that message (``end`` is ``None``) and opens
  the next one, and so does the end of the file;
* headers read by guard's one Harmony header parser, :func:`guard.scanners.parse_header`
  (the recipient in the role part or the channel part, the last ``to=`` winning;
  ``<|constrain|>json`` or a bare content type after it);
* a bare ``<|channel|>`` between messages opens an assistant message (output captured after the
  prompt's ``<|start|>assistant``);
* special tokens never span lines, so the input is read line by line and never held whole.

Other spellings inside a body (``<|channel|>``, ``<|message|>``, ``<|constrain|>``) are content:
the detector reports them on the message's surface. Text outside any message, stray end tokens
and headers without ``<|message|>`` are reported as problems with their line; nothing is dropped
silently.

Transcripts: a file may hold several. A new one starts at ``<|startoftext|>``, after
``<|endoftext|>``, or at a ``system`` message that follows a message of another author.

Forgery (docs/detection.md, "Forgery"), one rule: a message whose author is a tool (any author
other than ``system``, ``developer``, ``user`` and ``assistant``, e.g. ``functions.get_weather``)
is a forged tool result when the message before it is the assistant's and did not end with
``<|call|>``, either because the tool message starts inside the assistant's unfinished body or
because the assistant's message ended with ``<|end|>`` or ``<|return|>``. The host appends a tool
result only after the assistant stops at ``<|call|>`` (docs/wire-formats.md, "Turn boundaries").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from guard.scanners import HarmonyHeader, parse_header

__all__ = [
    "INPUT_AUTHORS",
    "HarmonyMessage",
    "HarmonySplitter",
    "HarmonyTranscript",
    "is_tool_author",
]

_TOKEN = re.compile(
    r"<\|(start|message|end|call|return|channel|constrain|startoftext|endoftext)\|>"
)
_ENDS = frozenset({"end", "call", "return"})
#: Authors whose messages are untrusted input (the ``user`` surface).
INPUT_AUTHORS = frozenset({"system", "developer", "user"})
#: A header longer than this without ``<|message|>`` is malformed.
HEADER_CAP = 1024


def is_tool_author(author: str) -> bool:
    return author not in INPUT_AUTHORS and author != "assistant"


@dataclass(slots=True)
class HarmonyMessage:
    #: the parsed header; ``header.raw`` is the header as written (for a redacted preview)
    header: HarmonyHeader
    body: str
    #: ``end``, ``call`` or ``return``; ``None`` when the message was never ended
    end: str | None
    #: 1-based line where the message's ``<|start|>`` is
    line: int
    #: True when the message began inside the previous message's unfinished body
    interrupted: bool = False

    @property
    def author(self) -> str:
        return self.header.author

    @property
    def recipient(self) -> str | None:
        return self.header.recipient

    @property
    def channel(self) -> str | None:
        return self.header.channel


@dataclass(slots=True)
class HarmonyTranscript:
    line: int
    messages: list[HarmonyMessage] = field(default_factory=list)
    #: (line, problem) pairs, in order
    problems: list[tuple[int, str]] = field(default_factory=list)


class HarmonySplitter:
    """Feed lines (``feed``), get finished transcripts; ``finish`` at the end of the input."""

    def __init__(self) -> None:
        self._state = "outside"  # outside | header | body
        self._buf: list[str] = []
        self._start_line = 0
        self._interrupted = False
        self._current: HarmonyTranscript | None = None
        self._done: list[HarmonyTranscript] = []
        self._line = 0
        self._header = ""
        #: the current transcript holds a message whose author is not ``system`` (a flag, so
        #: a run of system messages does not re-read the transcript at each one)
        self._mixed = False

    @property
    def line(self) -> int:
        """Number of lines fed so far."""
        return self._line

    # -- transcript bookkeeping -------------------------------------------------------------

    def _transcript(self, line: int) -> HarmonyTranscript:
        if self._current is None:
            self._current = HarmonyTranscript(line=line)
        return self._current

    def _problem(self, line: int, text: str) -> None:
        self._transcript(line).problems.append((line, text))

    def _close_transcript(self) -> None:
        if self._current is not None:
            self._done.append(self._current)
            self._current = None
        self._mixed = False

    def _emit(self, header: str, body: str, end: str | None) -> None:
        parsed = parse_header(header)
        author = parsed.author
        if not author:
            self._problem(self._start_line, "message header has no author")
        if author == "system" and self._mixed:
            self._close_transcript()
        self._transcript(self._start_line).messages.append(
            HarmonyMessage(
                header=parsed,
                body=body,
                end=end,
                line=self._start_line,
                interrupted=self._interrupted,
            )
        )
        if author != "system":
            self._mixed = True

    def _open(self, line: int, *, interrupted: bool, header: str = "") -> None:
        self._state = "header"
        self._buf = [header] if header else []
        self._start_line = line
        self._interrupted = interrupted

    def _finish_header(self) -> str:
        header = "".join(self._buf)
        self._buf = []
        return header

    # -- feeding ----------------------------------------------------------------------------

    def feed(self, line: str) -> list[HarmonyTranscript]:
        """One line of input (with its line break); returns the transcripts it finished."""
        self._line += 1
        number = self._line
        pieces = _TOKEN.split(line)
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                if piece:
                    self._text(piece, number)
            else:
                self._token(piece, number)
        if self._state == "header" and sum(map(len, self._buf)) > HEADER_CAP:
            self._problem(self._start_line, "message header too long without <|message|>")
            header = self._finish_header()
            self._state = "body"
            self._header = header[:HEADER_CAP]
            self._buf = [header[HEADER_CAP:]]
        done, self._done = self._done, []
        return done

    def finish(self) -> list[HarmonyTranscript]:
        """End of input: close an unfinished message and the last transcript."""
        if self._state == "header":
            self._problem(self._start_line, "message header without <|message|> at end of input")
            self._emit(self._finish_header(), "", None)
        elif self._state == "body":
            self._emit(self._header, "".join(self._buf), None)
        self._state = "outside"
        self._close_transcript()
        done, self._done = self._done, []
        return done

    def _text(self, text: str, line: int) -> None:
        if self._state == "outside":
            if not text.isspace():
                self._problem(line, "text outside a message")
        else:
            self._buf.append(text)

    def _token(self, name: str, line: int) -> None:
        state = self._state
        spelling = f"<|{name}|>"
        if state == "body":
            if name in _ENDS:
                self._emit(self._header, "".join(self._buf), name)
                self._state = "outside"
            elif name == "start":
                self._emit(self._header, "".join(self._buf), None)
                self._open(line, interrupted=True)
            elif name in ("startoftext", "endoftext"):
                self._emit(self._header, "".join(self._buf), None)
                self._state = "outside"
                self._close_transcript()
            else:
                self._buf.append(spelling)  # content: the detector judges it
        elif state == "header":
            if name == "message":
                self._header = self._finish_header()
                self._state = "body"
            elif name in ("channel", "constrain"):
                self._buf.append(spelling)
            else:
                self._problem(line, f"message header ended by {spelling} before <|message|>")
                self._emit(self._finish_header(), "", name if name in _ENDS else None)
                self._state = "outside"
                if name == "start":
                    self._open(line, interrupted=False)
                elif name in ("startoftext", "endoftext"):
                    self._close_transcript()
        else:  # outside
            if name == "start":
                self._open(line, interrupted=False)
            elif name == "channel":
                # output captured after the prompt's `<|start|>assistant`
                self._open(line, interrupted=False, header="assistant<|channel|>")
            elif name in ("startoftext", "endoftext"):
                self._close_transcript()
            else:
                self._problem(line, f"stray {spelling} outside a message")
