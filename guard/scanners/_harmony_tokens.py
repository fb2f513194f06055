"""The Harmony control spellings the scanner and the renderers write and read."""

from __future__ import annotations

from typing import Final

__all__ = ["CALL", "CHANNEL", "CONSTRAIN", "END", "MESSAGE", "RETURN", "START"]

START: Final = "<|start|>"
END: Final = "<|end|>"
MESSAGE: Final = "<|message|>"
CHANNEL: Final = "<|channel|>"
CONSTRAIN: Final = "<|constrain|>"
RETURN: Final = "<|return|>"
CALL: Final = "<|call|>"
