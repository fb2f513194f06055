"""How ``guard serve`` runs: :class:`ServeConfig` and the ``[serve]`` table of a policy file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from guard.dialects import MODEL_DIALECTS, dialect_for_model, get_dialect
from guard.errors import ConfigError, PolicyError
from guard.gate import DEFAULT_POLICY, Policy, check_policy, read_policy_file
from guard.serve._secrets import mask_url
from guard.stream import OnLeak, check_on_leak

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_DIALECTS",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_JUDGE_THREADS",
    "DEFAULT_KEEP_ALIVE",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "ServeConfig",
    "load_policy_file",
]

#: The model-name table (kept under its former name for callers of ``guard.serve``).
DEFAULT_DIALECTS = MODEL_DIALECTS

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
#: bytes of a complete (not streamed) upstream answer the proxy reads; past them, 502
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
#: client connections open at once; one more is answered 503 and closed
DEFAULT_MAX_CONNECTIONS = 512
#: seconds a client has to send a request's headers (from its connection or first byte)
DEFAULT_HEADER_TIMEOUT = 10.0
#: seconds a client has to send a request's body, once its headers are in
DEFAULT_BODY_TIMEOUT = 60.0
#: seconds an idle client connection is kept open between requests (uvicorn's keep-alive)
DEFAULT_KEEP_ALIVE = 5.0
#: worker threads that judge large bodies and events off the event loop: one, because judging
#: holds the interpreter lock, so a second thread adds no throughput and the two hand the lock
#: to each other while the loop waits (guard/serve/_offload.py)
DEFAULT_JUDGE_THREADS = 1
#: seconds the upstream may stay silent (no byte) before the proxy gives up on it
DEFAULT_READ_TIMEOUT = 300.0
#: seconds one upstream exchange may take in all, from the request to the answer's last byte
DEFAULT_TOTAL_TIMEOUT = 900.0
_SERVE_KEYS = (
    "upstream",
    "host",
    "port",
    "dialect",
    "dialects",
    "on_leak",
    "max_body_bytes",
    "max_response_bytes",
    "max_connections",
    "header_timeout",
    "body_timeout",
    "timeout_keep_alive",
    "judge_threads",
    "read_timeout",
    "total_timeout",
    "allow_passthrough",
    "connect_timeout",
    "trust_env",
    "metrics",
    "otel",
)
#: never read from a policy file (it is often committed): flags and environment only
_SECRET_KEYS = ("api_keys", "upstream_api_key")


@dataclass(frozen=True)
class ServeConfig:
    """How the proxy runs. ``dialect`` forces one dialect for every request; ``dialects`` adds
    model-name keys before :data:`DEFAULT_DIALECTS`. Values that cannot work raise
    :class:`guard.errors.ConfigError` (a ``ValueError``); an unknown dialect name raises
    :class:`guard.errors.UnknownNameError`. ``allow_passthrough`` passes ``/v1/...`` routes
    guard does not guard and that may carry model output through (each logged) instead of
    refusing them with 403.

    ``read_timeout`` (the idle deadline) bounds each wait for the upstream's next byte,
    ``total_timeout`` a whole exchange (both answered with 504, or an error event once a
    stream has started). ``max_response_bytes`` caps a complete (not streamed) upstream answer
    (502 past it).

    Client bounds (applied by :func:`guard.serve.run`'s server): ``header_timeout`` seconds to
    send a request's headers and ``body_timeout`` its body (408 past either),
    ``timeout_keep_alive`` seconds an idle connection is kept, ``max_connections`` open at once
    (503 past it). ``judge_threads``: worker threads that judge large bodies and events off the
    event loop (:mod:`guard.serve._offload`).
    ``api_keys``: when any is set, clients must present one (``Authorization: Bearer`` or
    ``X-Api-Key``) and the key is not forwarded; ``upstream_api_key``: the upstream's key, sent
    in place of the client's credential (otherwise the client's ``Authorization`` /
    ``X-Api-Key`` are forwarded as they came, when no client keys are set). ``trust_env``:
    the upstream client honours ``HTTPS_PROXY`` / ``NO_PROXY`` and ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR``; ``metrics``: Prometheus metrics at ``/metrics``; ``otel``:
    OpenTelemetry spans (needs the ``otel`` extra). :class:`guard.serve.ServeSettings` builds
    one from flags, ``GUARD_*`` variables and the policy file."""

    upstream: str
    policy: Policy = DEFAULT_POLICY
    dialect: str | None = None
    dialects: Mapping[str, str] = field(default_factory=dict)
    on_leak: OnLeak = "truncate"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    timeout_keep_alive: float = DEFAULT_KEEP_ALIVE
    judge_threads: int = DEFAULT_JUDGE_THREADS
    connect_timeout: float = 10.0
    read_timeout: float = DEFAULT_READ_TIMEOUT
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT
    allow_passthrough: bool = False
    api_keys: tuple[str, ...] = field(default=(), repr=False)
    upstream_api_key: str | None = field(default=None, repr=False)
    trust_env: bool = True
    metrics: bool = True
    otel: bool = False

    def __post_init__(self) -> None:
        if not self.upstream.startswith(("http://", "https://")):
            raise ConfigError(
                f"upstream must be an http:// or https:// URL, got {mask_url(self.upstream)!r}"
            )
        try:
            check_on_leak(self.on_leak)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        for setting in ("max_body_bytes", "max_response_bytes", "max_connections", "judge_threads"):
            count = getattr(self, setting)
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ConfigError(f"{setting} must be a positive whole number, got {count!r}")
        for setting in (
            "connect_timeout",
            "read_timeout",
            "total_timeout",
            "header_timeout",
            "body_timeout",
            "timeout_keep_alive",
        ):
            seconds = getattr(self, setting)
            if not seconds > 0:
                raise ConfigError(f"{setting} must be a positive number of seconds, got {seconds}")
        object.__setattr__(self, "api_keys", tuple(self.api_keys))
        if not all(isinstance(k, str) and k.strip() == k and k for k in self.api_keys):
            raise ConfigError("api_keys must be non-empty strings without surrounding spaces")
        object.__setattr__(self, "policy", check_policy(self.policy))
        for name in (self.dialect, *self.dialects.values()):
            if name is not None:
                get_dialect(name)  # an unknown name fails here, not per request

    @classmethod
    def load(
        cls,
        upstream: str,
        *,
        policy_file: str | Path | None = None,
        dialect: str | None = None,
        on_leak: str | None = None,
        max_body_bytes: int | None = None,
        read_timeout: float | None = None,
        total_timeout: float | None = None,
        api_keys: tuple[str, ...] = (),
        upstream_api_key: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ServeConfig:
        """The configuration from a policy file's ``[serve]`` table (see
        :func:`load_policy_file`) and explicit options, which win over the file. Keys are
        never read from the policy file (it is often committed); with ``environ``, its
        ``GUARD_*`` variables come between the options and the file (client keys from
        ``GUARD_API_KEYS``, comma separated, are added to ``api_keys``; see
        :class:`guard.serve.ServeSettings`)."""
        from guard.serve._settings import ServeSettings

        flags = {
            "upstream": upstream,
            "policy": policy_file,
            "dialect": dialect,
            "on_leak": on_leak,
            "max_body_bytes": max_body_bytes,
            "read_timeout": read_timeout,
            "total_timeout": total_timeout,
            "api_keys": api_keys,
            "upstream_api_key": upstream_api_key or None,
        }
        return ServeSettings.load(flags, environ if environ is not None else {}).config()

    def __repr__(self) -> str:
        def shown(name: str) -> str:
            value = getattr(self, name)
            return repr(mask_url(value) if name == "upstream" else value)

        listed = ", ".join(f"{f.name}={shown(f.name)}" for f in fields(self) if f.repr)
        return f"ServeConfig({listed})"

    def dialect_for(self, model: str | None) -> str:
        """The dialect of a request for ``model``: the forced one, else the table's."""
        if self.dialect is not None:
            return self.dialect
        return dialect_for_model(model, self.dialects)


def load_policy_file(path: str | Path) -> tuple[Policy, dict[str, Any]]:
    """Read a policy file (``.toml`` or ``.json``): its ``serve`` table configures the proxy
    (``dialects``, ``on_leak``, ``max_body_bytes``, ``read_timeout``, ``total_timeout``,
    ``allow_passthrough``),
    the rest is the :class:`guard.Policy`. Returns both."""
    policy, tables = read_policy_file(path)  # the one reader of policy files
    serve = dict(tables.get("serve", {}))
    secrets = sorted(set(serve) & set(_SECRET_KEYS))
    if secrets:
        raise PolicyError(
            f"policy {path}: [serve] {', '.join(secrets)}: keys are never read from a policy"
            " file; expected them in GUARD_API_KEYS / GUARD_UPSTREAM_API_KEY or --api-key"
        )
    unknown = sorted(set(serve) - set(_SERVE_KEYS))
    if unknown:
        raise PolicyError(
            f"policy {path}: unknown [serve] keys {', '.join(unknown)};"
            f" expected {', '.join(_SERVE_KEYS)}"
        )
    if not isinstance(serve.get("allow_passthrough", False), bool):
        raise PolicyError(f"policy {path}: [serve] allow_passthrough must be true or false")
    dialects = serve.get("dialects", {})
    if not isinstance(dialects, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in dialects.items()
    ):
        raise PolicyError(f"policy {path}: [serve.dialects] must map model names to dialects")
    for name in dialects.values():
        try:
            get_dialect(name)
        except ValueError as exc:
            raise PolicyError(f"policy {path}: [serve.dialects]: {exc}") from None
    return policy, serve
