"""zstd-compressed input (``.zst``, sniffed by its magic number like gzip), read with the
``zstandard`` package (the ``zstd`` extra: Python 3.11 to 3.13 have no zstd in the standard
library). Without it, a zstd input is an error entry that names the extra."""

from __future__ import annotations

import io
from typing import Any, BinaryIO

__all__ = ["ZSTD_MAGIC", "open_zstd"]

#: the zstd frame magic number (RFC 8878), little-endian 0xFD2FB528
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MISSING = "zstd-compressed input needs the zstd extra (pip install 'inband-guard[zstd]')"


_READ = 1 << 16


class _ZstdRaw(io.RawIOBase):
    """Decompresses zstd frames one after another as a raw stream; a fault is an ``OSError``
    (the audit reports those per file, with the rest still audited), and so is input that ends
    inside a frame."""

    def __init__(self, source: BinaryIO, zstandard: Any) -> None:
        self._source = source
        self._zstd = zstandard
        self._dobj = zstandard.ZstdDecompressor().decompressobj()
        self._in_frame = False
        self._out = b""

    def readable(self) -> bool:
        return True

    def _fill(self) -> None:
        while not self._out:
            data = self._source.read(_READ)
            if not data:
                if self._in_frame:
                    raise OSError("truncated zstd data: the input ends inside a frame")
                return
            while data:
                self._in_frame = True
                try:
                    self._out += self._dobj.decompress(data)
                except self._zstd.ZstdError as exc:
                    raise OSError(f"invalid zstd data: {exc}") from None
                if not self._dobj.eof:
                    break
                # a frame ended: the rest (if any) starts the next one
                data = self._dobj.unused_data
                self._dobj = self._zstd.ZstdDecompressor().decompressobj()
                self._in_frame = False

    def readinto(self, buffer: Any) -> int:
        self._fill()
        n = min(len(buffer), len(self._out))
        buffer[:n] = self._out[:n]
        self._out = self._out[n:]
        return n


def open_zstd(buffered: BinaryIO) -> BinaryIO:
    """The decompressed stream of ``buffered`` (which starts with :data:`ZSTD_MAGIC`); every
    frame is read, so concatenated ``.zst`` files work like concatenated ``.gz`` files."""
    try:
        import zstandard
    except ImportError:
        raise OSError(MISSING) from None
    return io.BufferedReader(_ZstdRaw(buffered, zstandard))
