"""``guard serve``'s command line: flags over ``GUARD_*`` variables over the policy file's
``[serve]`` table (:class:`guard.serve.ServeSettings`). Kept apart from :mod:`guard.cli` so that
the other commands' parser never imports the proxy (which needs the ``serve`` extra)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from guard.dialects import DIALECTS
from guard.errors import InputError

__all__ = ["add_serve_parser", "serve_flags"]

#: the routes ``--help`` names (the same lists as :mod:`guard.serve._app`'s, which a test
#: compares; copied here so that the parser needs no serve extra)
_GUARDED = ("/v1/chat/completions", "/v1/responses", "/v1/messages")
_PASSED = (
    "/v1/models",
    "/v1/models/*",
    "/v1/embeddings",
    "/v1/moderations",
    "/v1/messages/count_tokens",
    "/v1/tokenize",
    "/v1/detokenize",
)

#: flag destinations that are settings (the rest, like ``--check``, steer the command)
_SETTINGS = (
    "upstream",
    "host",
    "port",
    "policy",
    "dialect",
    "on_leak",
    "max_body_bytes",
    "max_response_bytes",
    "max_connections",
    "header_timeout",
    "body_timeout",
    "timeout_keep_alive",
    "judge_threads",
    "connect_timeout",
    "read_timeout",
    "total_timeout",
    "trust_env",
    "metrics",
    "otel",
    "api_keys",
)


def serve_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the flags give (``None``: not given)."""
    flags = {name: getattr(args, name, None) for name in _SETTINGS}
    flags["api_keys"] = tuple(args.api_key or ())
    return flags


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        import guard.serve as serve
    except ImportError as exc:
        raise InputError(
            f"guard serve needs the serve extra (pip install 'inband-guard[serve]'): {exc}"
        ) from None

    settings = serve.ServeSettings.load(serve_flags(args))
    config = settings.config()  # every check runs before anything listens
    if args.check:
        sys.stdout.write(settings.dump() + "\n")
        return 0
    return serve.run(config, host=settings.host, port=settings.port, announce=_announce)


def _announce(line: str) -> None:
    """The start-up line on stdout (stderr carries the JSON log lines)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run an OpenAI-compatible proxy that guards a provider (needs inband-guard[serve])",
        description=(
            "An OpenAI- and Anthropic-compatible proxy in front of --upstream. Guarded (every"
            " request string escaped, every answer judged, streaming or not): POST "
            + ", ".join(_GUARDED)
            + ". Passed through unchanged (they carry no model output; * is one path segment): "
            + ", ".join(_PASSED)
            + ". Refused with 403: every other /v1/... path (it may carry model output), unless"
            " the policy file sets [serve] allow_passthrough = true (then passed through"
            " unguarded, each request logged). Answered by the proxy: /healthz, /metrics;"
            " every other path is 404. A forged tool result or an aborting leak closes the"
            " upstream at once and ends the client's stream cleanly. Once listening it prints one"
            " line on stdout saying where to point clients' base_url; an address it cannot listen"
            " on (a taken port) exits 2 before anything starts. Every setting comes from its flag,"
            " else its GUARD_* environment variable (GUARD_UPSTREAM, GUARD_PORT,"
            " GUARD_MAX_RESPONSE_BYTES, ...), else the policy file's [serve] table; --check"
            " prints the effective settings (keys and the upstream's password masked) and"
            " exits."
        ),
    )
    p.add_argument(
        "--upstream",
        metavar="URL",
        help="the upstream's OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (GUARD_UPSTREAM)",
    )
    p.add_argument(
        "--host",
        help="address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 exposes the"
        " proxy, and the upstream behind it, to every network the machine is on)",
    )
    p.add_argument("--port", type=int, help="port to listen on (default: 8787)")
    p.add_argument(
        "--policy",
        help="a policy file (.toml or .json); its [serve] table sets any setting but the keys"
        " (GUARD_POLICY)",
    )
    p.add_argument(
        "--dialect",
        help=f"force one dialect for every request: {', '.join(DIALECTS)}"
        " (default: chosen from the model name)",
    )
    p.add_argument(
        "--on-leak",
        choices=("truncate", "abort", "recover", "report"),
        help="what a leak does (default: truncate)",
    )
    p.add_argument(
        "--max-body-bytes",
        type=int,
        metavar="N",
        help="reject request bodies over N bytes with 413 (default: 16 MiB)",
    )
    p.add_argument(
        "--max-response-bytes",
        type=int,
        metavar="N",
        help="read at most N bytes of a complete (not streamed) upstream answer; a longer one"
        " is a 502 (default: 16 MiB; GUARD_MAX_RESPONSE_BYTES)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="client connections open at once; one more is answered 503 and closed (default:"
        " 512, lowered to fit the open file limit)",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        metavar="S",
        help="seconds a client has to send a request's headers; then 408 and closed (default: 10)",
    )
    p.add_argument(
        "--body-timeout",
        type=float,
        metavar="S",
        help="seconds a client has to send a request's body; then 408 and closed (default: 60)",
    )
    p.add_argument(
        "--timeout-keep-alive",
        type=float,
        metavar="S",
        help="seconds an idle client connection is kept open between requests (default: 5)",
    )
    p.add_argument(
        "--judge-threads",
        type=int,
        metavar="N",
        help="worker threads that escape and judge large bodies and events off the event loop"
        " (default: 1)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        metavar="S",
        help="give up connecting to the upstream after S seconds (default: 10)",
    )
    p.add_argument(
        "--read-timeout",
        type=float,
        metavar="S",
        help="give up on an upstream silent for S seconds: 504, or an error event mid-stream"
        " (default: 300)",
    )
    p.add_argument(
        "--total-timeout",
        type=float,
        metavar="S",
        help="give up on an upstream exchange after S seconds in all (default: 900)",
    )
    p.add_argument(
        "--trust-env",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let the upstream client honour HTTPS_PROXY/NO_PROXY and SSL_CERT_FILE/"
        "SSL_CERT_DIR (default: on)",
    )
    p.add_argument(
        "--metrics",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="serve Prometheus metrics at /metrics (default: on)",
    )
    p.add_argument(
        "--otel",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="OpenTelemetry spans for requests and upstream calls (needs inband-guard[otel];"
        " default: off)",
    )
    p.add_argument(
        "--api-key",
        action="append",
        default=[],
        metavar="KEY",
        help="a key clients must present (Authorization: Bearer KEY or X-Api-Key: KEY);"
        " repeatable, and added to the comma-separated keys in GUARD_API_KEYS. With keys set,"
        " the client's key is not forwarded; the upstream's key comes from"
        " GUARD_UPSTREAM_API_KEY. Never read from the policy file",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="print the effective settings as JSON (keys masked) and exit, without listening",
    )
    p.set_defaults(handler=_cmd_serve)
