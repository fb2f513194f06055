"""``guard serve``'s settings as one typed model: :class:`ServeSettings`.

Every setting comes from the first of these that sets it: a command-line flag, a ``GUARD_*``
environment variable (``GUARD_UPSTREAM``, ``GUARD_PORT``, ``GUARD_ON_LEAK``, ...), the policy
file's ``[serve]`` table, the default. Client keys (``GUARD_API_KEYS``, comma separated; the
``--api-key`` flags are added to them) and the upstream's key (``GUARD_UPSTREAM_API_KEY``) are
secrets: never read from the policy file (it is often committed), never printed (``guard serve
--check`` masks them). Built on pydantic-settings (the ``serve`` extra).
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from guard.errors import ConfigError, PolicyError
from guard.gate import DEFAULT_POLICY
from guard.serve._config import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_JUDGE_THREADS,
    DEFAULT_KEEP_ALIVE,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    ServeConfig,
    load_policy_file,
)
from guard.serve._secrets import mask_url
from guard.stream import OnLeak

__all__ = ["SECRET_SETTINGS", "ServeSettings"]

#: Settings that are secrets: from flags and the environment only, masked when shown.
SECRET_SETTINGS = frozenset({"api_keys", "upstream_api_key"})

# What ``ServeSettings.load`` hands the sources it builds (one load at a time per context).
_TABLE: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("guard_serve_table")
_ENVIRON: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "guard_serve_environ", default=None
)


class _EnvSource(EnvSettingsSource):
    """The ``GUARD_*`` variables of the mapping given to :meth:`ServeSettings.load` (default:
    the process environment)."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        environ = _ENVIRON.get()
        if environ is None:
            return super()._load_env_vars()
        return {k.lower(): v for k, v in environ.items()}


class _PolicyTableSource(PydanticBaseSettingsSource):
    """The policy file's ``[serve]`` table (already read and checked)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        table = _TABLE.get({})
        return table.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_TABLE.get({}))


class ServeSettings(BaseSettings):
    """Everything ``guard serve`` runs with. Build it with :meth:`load` (flags, environment,
    policy file); :meth:`config` turns it into the :class:`ServeConfig` the app runs with.

    ``trust_env`` (default on) lets the upstream client honour the standard variables:
    ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``NO_PROXY`` and ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
    (an upstream behind a private CA). ``metrics`` serves Prometheus metrics at ``/metrics``;
    ``otel`` adds OpenTelemetry spans (the ``otel`` extra)."""

    model_config = SettingsConfigDict(
        env_prefix="GUARD_",
        extra="forbid",
        frozen=True,
        validate_default=False,
        env_ignore_empty=True,
    )

    upstream: str | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8787, ge=0, le=65535)
    #: the policy file (``GUARD_POLICY``); its ``[serve]`` table is a source of these settings
    policy: Path | None = None
    dialect: str | None = None
    dialects: dict[str, str] = Field(default_factory=dict)
    on_leak: OnLeak = "truncate"
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1)
    max_response_bytes: int = Field(default=DEFAULT_MAX_RESPONSE_BYTES, ge=1)
    max_connections: int = Field(default=DEFAULT_MAX_CONNECTIONS, ge=1)
    header_timeout: float = Field(default=DEFAULT_HEADER_TIMEOUT, gt=0)
    body_timeout: float = Field(default=DEFAULT_BODY_TIMEOUT, gt=0)
    timeout_keep_alive: float = Field(default=DEFAULT_KEEP_ALIVE, gt=0)
    judge_threads: int = Field(default=DEFAULT_JUDGE_THREADS, ge=1)
    connect_timeout: float = Field(default=10.0, gt=0)
    read_timeout: float = Field(default=DEFAULT_READ_TIMEOUT, gt=0)
    total_timeout: float = Field(default=DEFAULT_TOTAL_TIMEOUT, gt=0)
    allow_passthrough: bool = False
    trust_env: bool = True
    metrics: bool = True
    otel: bool = False
    api_keys: Annotated[tuple[SecretStr, ...], NoDecode] = Field(default=(), repr=False)
    upstream_api_key: SecretStr | None = Field(default=None, repr=False)

    @field_validator("api_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        if isinstance(value, str):  # GUARD_API_KEYS: comma separated, blanks ignored
            return tuple(k.strip() for k in value.split(",") if k.strip())
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _EnvSource(settings_cls), _PolicyTableSource(settings_cls))

    @classmethod
    def load(
        cls, flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> ServeSettings:
        """The settings from ``flags`` (``None`` values are unset), then ``environ`` (default:
        the process environment), then the policy file's ``[serve]`` table, then defaults.
        Client keys from flags are added to those of the environment. Raises
        :class:`guard.errors.ConfigError` for a value that cannot work and
        :class:`guard.errors.PolicyError` for a bad policy file."""
        given = {k: v for k, v in (flags or {}).items() if v is not None}
        given_keys = tuple(given.pop("api_keys", ()))
        token_env = _ENVIRON.set(environ)
        table: dict[str, Any] = {}
        from_env: dict[str, Any] = {}
        policy = given.get("policy")
        try:
            from_env = _EnvSource(cls)()  # read once for the policy file and the client keys
            policy = given.get("policy", from_env.get("policy"))
            if policy:
                _, serve = load_policy_file(policy)
                table = {k: v for k, v in serve.items() if k not in SECRET_SETTINGS}
            env_keys = from_env.get("api_keys", ())
            if isinstance(env_keys, str):
                env_keys = cls._split_keys(env_keys)
            if given_keys:
                given["api_keys"] = (*given_keys, *env_keys)
            token_table = _TABLE.set(table)
            try:
                return cls(**given)
            finally:
                _TABLE.reset(token_table)
        except ValidationError as exc:
            from_file = {
                str(e["loc"][0])
                for e in exc.errors()
                if e["loc"] and e["loc"][0] in table and e["loc"][0] not in {*given, *from_env}
            }
            if from_file:
                raise PolicyError(f"policy {policy}: [serve]: {_describe(exc)}") from None
            raise ConfigError(_describe(exc)) from None
        finally:
            _ENVIRON.reset(token_env)

    def config(self) -> ServeConfig:
        """The :class:`ServeConfig` the proxy runs with (the policy file read again for its
        detection policy). Raises :class:`guard.errors.ConfigError` without an upstream."""
        if not self.upstream:
            raise ConfigError(
                "no upstream: expected --upstream URL, GUARD_UPSTREAM or [serve] upstream in the"
                " policy file"
            )
        policy = DEFAULT_POLICY
        if self.policy is not None:
            policy, _ = load_policy_file(self.policy)
        return ServeConfig(
            upstream=self.upstream,
            policy=policy,
            dialect=self.dialect,
            dialects=dict(self.dialects),
            on_leak=self.on_leak,
            max_body_bytes=self.max_body_bytes,
            max_response_bytes=self.max_response_bytes,
            max_connections=self.max_connections,
            header_timeout=self.header_timeout,
            body_timeout=self.body_timeout,
            timeout_keep_alive=self.timeout_keep_alive,
            judge_threads=self.judge_threads,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            total_timeout=self.total_timeout,
            allow_passthrough=self.allow_passthrough,
            api_keys=tuple(k.get_secret_value() for k in self.api_keys),
            upstream_api_key=(
                self.upstream_api_key.get_secret_value() if self.upstream_api_key else None
            ),
            trust_env=self.trust_env,
            metrics=self.metrics,
            otel=self.otel,
        )

    def public(self) -> dict[str, Any]:
        """The settings as JSON-ready data with secrets masked (``guard serve --check``): each
        client key and the upstream's key as ``**********``, a password in the upstream URL
        as well."""
        data = self.model_dump(mode="json")
        data["upstream"] = mask_url(self.upstream)
        return data

    def dump(self) -> str:
        """:meth:`public` as indented JSON."""
        return json.dumps(self.public(), indent=2, sort_keys=True)


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "settings"
        given = error.get("input")
        if where == "upstream" and isinstance(given, str):
            given = mask_url(given)
        shown = "" if where in SECRET_SETTINGS or isinstance(given, dict) else f", got {given!r}"
        problems.append(f"{where}: {error['msg'].lower()}{shown}")
    return "serve settings: " + "; ".join(problems)
