"""The container definition (``Dockerfile``): its rules checked and its entry and health
commands run without a container runtime; the image built and run only where a Docker daemon
answers and ``GUARD_TEST_DOCKER=1`` allows the download a build needs (issue 16)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import uuid
from typing import Any

import pytest
from support.fake_upstream import serve_app
from support.paths import ROOT

from guard.cli import main
from guard.serve import ServeConfig, create_app


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    lines: list[str] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    out = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def only(keyword: str) -> str:
    found = [rest for k, rest in instructions() if k == keyword]
    assert len(found) == 1, f"expected one {keyword}, got {len(found)}"
    return found[0]


def healthcheck_command() -> list[str]:
    rest = only("HEALTHCHECK")
    assert " CMD " in f" {rest} "
    return exec_form(rest.split("CMD", 1)[1].strip())


def test_the_image_is_slim_and_runs_unprivileged() -> None:
    bases = [rest for k, rest in instructions() if k == "FROM"]
    assert bases and all("slim" in b for b in bases)
    user = only("USER").split(":")[0]
    assert user not in ("root", "0") and user.isdigit() and int(user) >= 1000
    # the user switch comes after the last RUN (nothing installed runs as that user)
    keywords = [k for k, _ in instructions()]
    assert keywords.index("USER") > max(i for i, k in enumerate(keywords) if k == "RUN")


def test_entrypoint_is_guard_serve_on_every_interface() -> None:
    assert exec_form(only("ENTRYPOINT")) == ["guard", "serve", "--host", "0.0.0.0"]
    assert "8787" in only("EXPOSE").split()


def test_installed_extras_and_copied_paths_exist() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = set(config["project"]["optional-dependencies"])
    runs = " ".join(rest for k, rest in instructions() if k == "RUN")
    assert '".[serve,vocab,otel]"' in runs and {"serve", "vocab", "otel"} <= extras
    for k, rest in instructions():
        if k == "COPY":
            for source in shlex.split(rest)[:-1]:
                assert (ROOT / source).exists(), source
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert ".venv" in ignored and ".git" in ignored


def test_the_entry_command_parses_and_checks_its_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the container runs, with --check: settings from the environment as in `docker run
    -e`, the host from the entry point."""
    entry = exec_form(only("ENTRYPOINT"))
    monkeypatch.setenv("GUARD_UPSTREAM", "http://llm.internal:8000/v1")
    monkeypatch.setenv("GUARD_PORT", "9999")
    monkeypatch.setenv("GUARD_API_KEYS", "container-secret")
    assert main([*entry[1:], "--check"]) == 0
    out = capsys.readouterr().out
    shown = json.loads(out)
    assert (shown["host"], shown["port"]) == ("0.0.0.0", 9999)
    assert "container-secret" not in out
    monkeypatch.delenv("GUARD_UPSTREAM")
    assert main([*entry[1:], "--check"]) == 2  # no upstream: refused before listening
    assert "GUARD_UPSTREAM" in capsys.readouterr().err


def test_the_healthcheck_command_passes_on_a_live_proxy_and_fails_without_one() -> None:
    command = healthcheck_command()
    assert command[0] == "python" and "/healthz" in command[-1]
    argv = [sys.executable, *command[1:]]
    app = create_app(ServeConfig(upstream="http://127.0.0.1:9/v1"))
    with serve_app(app) as url:
        port = url.rsplit(":", 1)[1]
        live = subprocess.run(argv, env={**os.environ, "GUARD_PORT": port}, timeout=30)
    assert live.returncode == 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = str(sock.getsockname()[1])  # bound, never listening: refused
        dead = subprocess.run(
            argv, env={**os.environ, "GUARD_PORT": closed}, capture_output=True, timeout=30
        )
    assert dead.returncode != 0


def docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return info.returncode == 0


@pytest.mark.skipif(
    os.environ.get("GUARD_TEST_DOCKER") != "1" or not docker_available(),
    reason="needs a running Docker daemon and GUARD_TEST_DOCKER=1 (the build downloads the base"
    " image and packages)",
)
def test_the_image_builds_runs_unprivileged_and_gets_healthy() -> None:
    tag = f"guard-serve-test:{uuid.uuid4().hex[:8]}"
    name = f"guard-serve-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=1800)
    try:
        subprocess.run(
            [
                "docker",
                "run",
                "-d",
                "--name",
                name,
                "-e",
                "GUARD_UPSTREAM=http://127.0.0.1:9/v1",
                tag,
            ],
            check=True,
            timeout=120,
        )
        status: Any = ""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and status != "healthy":
            inspect = subprocess.run(
                ["docker", "inspect", "--format", "{{.State.Health.Status}}", name],
                capture_output=True,
                text=True,
                timeout=30,
            )
            status = inspect.stdout.strip()
            time.sleep(2)
        assert status == "healthy"
        uid = subprocess.run(
            ["docker", "exec", name, "id", "-u"], capture_output=True, text=True, timeout=30
        )
        assert uid.stdout.strip() == "10001"
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120)
