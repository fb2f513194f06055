"""The shapes of the responses the proxy writes itself: the upstream's headers added to a
response, an error in Anthropic's shape for ``/v1/messages``, and a streaming response that
always closes the upstream."""

from __future__ import annotations

import json
from collections.abc import Iterable

import anyio
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Send

__all__ = ["ClosingStreamingResponse", "anthropic_shaped", "with_headers"]


def with_headers(response: Response, headers: Iterable[tuple[str, str]]) -> Response:
    """``response`` with the upstream's ``headers`` added (repeated ones, such as
    ``set-cookie``, kept); the ones the response sets itself win."""
    own = {k for k, _ in response.raw_headers}
    for name, value in headers:
        key = name.lower().encode("latin-1")
        if key not in own:
            response.raw_headers.append((key, value.encode("latin-1")))
    return response


#: Anthropic's error ``type`` for the statuses the proxy answers itself
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
}


def anthropic_shaped(response: Response) -> Response:
    """An error the proxy made itself, in Anthropic's shape (``{"type": "error", "error":
    {"type", "message"}}``, the proxy's ``code`` kept beside them); any other response as is."""
    if not isinstance(response, JSONResponse) or response.status_code < 400:
        return response
    try:
        body = json.loads(bytes(response.body))
    except ValueError:
        return response
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or "type" in body:
        return response
    status = response.status_code
    shaped = {
        "type": "error",
        "error": {
            "type": _ANTHROPIC_TYPES.get(status, "api_error"),
            "message": error.get("message", ""),
            "code": error.get("code"),
        },
    }
    out = JSONResponse(shaped, status_code=status)
    kept = [
        (k, v) for k, v in response.raw_headers if k not in (b"content-length", b"content-type")
    ]
    out.raw_headers = [*out.raw_headers, *kept]
    return out


class ClosingStreamingResponse(StreamingResponse):
    """A streaming response that always closes its body iterator (and with it the upstream),
    also when the client went away mid-stream."""

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            closer = getattr(self.body_iterator, "aclose", None)
            if closer is not None:
                with anyio.CancelScope(shield=True):
                    await closer()
