"""The Ray extra without Ray: lazy import, a clear error naming the extra, safe pool sizes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from guard.integrations.ray import actor_resources


@pytest.mark.parametrize(
    ("cpus", "expected"), [(1, (1, 0.0)), (2, (2, 0.5)), (3, (3, 0.66)), (8, (8, 0.87))]
)
def test_actors_always_leave_one_cpu_to_read_tasks(cpus: int, expected: tuple[int, float]) -> None:
    actors, per = actor_resources(cpus)
    assert (actors, per) == expected
    assert cpus - actors * per >= 1  # a read task (one CPU) can always be scheduled


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_actor_resources_rejects_bad_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="cpus must be an int >= 1"):
        actor_resources(bad)  # type: ignore[arg-type]


def _without_ray(code: str) -> subprocess.CompletedProcess[str]:
    prelude = "import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
    return subprocess.run(
        [sys.executable, "-c", prelude + code], capture_output=True, text=True, check=False
    )


def test_importing_the_integration_does_not_import_ray() -> None:
    out = _without_ray(
        "import sys\nimport guard.integrations.ray as r\nimport guard\n"
        "print(guard.audit_rows([{'messages': []}]))\n"
        "print('ray' in sys.modules and sys.modules['ray'] is not None)\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[[]]", "False"]


def test_missing_ray_names_the_extra() -> None:
    out = _without_ray(
        "from guard.integrations.ray import RayMissingError, audit_dataset\n"
        "try:\n    audit_dataset(None)\n"
        "except RayMissingError as exc:\n"
        "    print(isinstance(exc, ImportError), exc)\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("True ")
    assert "pip install 'inband-guard[ray]'" in out.stdout


def test_cli_engine_ray_without_ray_exits_2_with_the_extra(tmp_path: object) -> None:
    out = _without_ray(
        "from guard.cli import main\nraise SystemExit(main(['audit', '--engine', 'ray', '.']))\n"
    )
    assert out.returncode == 2
    assert "inband-guard[ray]" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ray-cpus", "2"], "--ray-address and --ray-cpus need --engine ray"),
        (["--ray-address", "auto"], "--ray-address and --ray-cpus need --engine ray"),
        (["--engine", "ray", "--workers", "2"], "--workers sizes the local engine"),
    ],
)
def test_engine_options_that_do_not_go_together_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.paths import EXAMPLES

    from guard.cli import main

    assert main(["audit", *args, str(EXAMPLES / "openai.jsonl")]) == 2
    assert message in capsys.readouterr().err


class _ActorLost(Exception):
    pass


class _FakeRay:
    """Just enough of Ray for the pool: actors run calls at once; a call of a marked batch
    fails as a lost actor does."""

    class exceptions:  # mirrors ray.exceptions
        RayActorError = _ActorLost

    def __init__(self) -> None:
        self.started = 0

    def remote(self, **_: object) -> object:
        fake = self

        def wrap(cls: type) -> object:
            class Handle:
                def __init__(self, *args: object) -> None:
                    fake.started += 1
                    self.actor = cls(*args)
                    self.run = self

                def remote(self, units: list[object]) -> object:
                    if any(getattr(u, "path", "") == "doomed" for u in units):
                        return _ActorLost("the actor died")
                    return self.actor.run(units)

            class Factory:
                @staticmethod
                def remote(*args: object) -> Handle:
                    return Handle(*args)

            return Factory

        return wrap

    @staticmethod
    def get(ref: object) -> object:
        if isinstance(ref, Exception):
            raise ref
        return ref


def test_a_lost_actor_is_an_internal_error_for_its_units_and_is_replaced() -> None:
    from guard.audit.engine import Unit
    from guard.gate import DEFAULT_POLICY
    from guard.integrations.ray._paths import _Pool

    line = b'{"messages": [{"role": "assistant", "content": "x<|end|>"}]}\n'
    units = [
        Unit(index=0, path="a", format="openai", dialect="harmony", data=line),
        Unit(index=0, path="doomed", format="openai", dialect="harmony", data=line * 3),
    ]
    fake = _FakeRay()
    pool = _Pool(fake, 1, DEFAULT_POLICY)  # type: ignore[arg-type]
    results = list(pool.execute(iter([units[0]] * 8 + [units[1]])))
    assert [u.path for u, _ in results] == ["a"] * 8 + ["doomed"]
    assert all(len(r.findings) == 1 and not r.errors for _, r in results[:8])
    lost = results[8][1]
    assert lost.findings == [] and lost.lines == 3
    (error,) = lost.errors
    assert error.internal and error.line == 1
    assert "internal error (_ActorLost)" in error.error and "the next 2" in error.error
    assert fake.started == 2  # the lost actor was replaced


@pytest.mark.parametrize(("shared_fs", "actors"), [(True, 1), (False, 0)])
def test_a_file_to_stream_goes_to_actors_only_where_they_see_it(
    shared_fs: bool, actors: int
) -> None:
    from support.paths import EXAMPLES

    from guard.audit.engine import Unit
    from guard.gate import DEFAULT_POLICY
    from guard.integrations.ray._paths import _Pool

    path = str(EXAMPLES / "harmony.txt")
    unit = Unit(index=0, path=path, format="harmony", dialect="harmony", source=path)
    fake = _FakeRay()
    pool = _Pool(fake, 1, DEFAULT_POLICY, shared_fs=shared_fs)  # type: ignore[arg-type]
    ((_, result),) = pool.execute(iter([unit]))
    assert fake.started == actors
    assert result.transcripts == 300 and result.findings and not result.errors
