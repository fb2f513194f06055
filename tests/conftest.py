"""Which tests the default run leaves out (README, "Tests").

* ``integration``: the framework integrations with their real packages (LiteLLM, the OpenAI
  Agents SDK, LangChain, Ray, datasets). They need the ``dev`` extra; in a set-up with only the
  ``test`` extra their modules are not even collected (they import the framework at the top).
* ``slow``: the fuzz targets' property runs and the tests listed in :data:`SLOW`.
* ``complexity``: growth-ratio and memory-bound tests (``tests/complexity`` and :data:`COMPLEXITY`),
  run alone on the machine (``-n 0``) because they measure it.
* ``property``: every hypothesis test. The default run gives each a twelfth of the examples it
  asks for (:data:`CORE_SHARE`, at least :data:`CORE_FLOOR`), so the core suite stays short;
  ``--full-properties`` runs the number each test asks for, as CI's long property run does.

The default run (``addopts`` in pyproject.toml) is ``-m 'not slow and not integration and not
complexity'``; CI also runs ``pytest --full-properties -m "(slow or integration or property) and
not complexity"`` and the complexity suite, so every test runs there, properties at full length.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# Bytecode caches even where PYTHONDONTWRITEBYTECODE is set: without them pytest rewrites the
# asserts of every test module (and Python compiles guard) again in each worker on every run,
# about ten seconds of CPU per worker before the first test.
sys.dont_write_bytecode = False

_HERE = Path(__file__).resolve().parent

#: test module (relative to tests/) -> the package it needs; marked ``integration``
INTEGRATION_MODULES = {
    "integrations/test_integrations_litellm.py": "litellm",
    "integrations/test_litellm_guardrail_api.py": "litellm",
    "integrations/test_litellm_proxy.py": "litellm",
    "integrations/test_integrations_agents.py": "agents",
    "integrations/test_agents_abort.py": "agents",
    "integrations/test_integrations_langchain.py": "langchain",
    "integrations/test_langchain_conventions.py": "langchain",
    "integrations/test_nemo_rail.py": "nemoguardrails",
    "integrations/test_guardrails_ai.py": "guardrails",
    "integrations/test_ray.py": "ray",
}
#: single tests (``module::name``) that need an integration package
INTEGRATION_TESTS = {"audit/test_rows.py::test_hugging_face_datasets_map_recipe"}
#: whole folders marked ``slow``
SLOW_FOLDERS = ("fuzz/",)
#: single tests (``module::name``, parameters ignored) marked ``slow``: measured with
#: ``pytest --durations`` on a 2-core machine, each several seconds or more
SLOW = {
    "stream/test_stream.py::test_n4_work_and_memory_do_not_grow_with_the_stream",
    "stream/test_stream.py::test_n2_verdict_and_truncated_text_are_the_same_for_every_split",
    "audit/test_fast_path.py::test_the_fast_path_gives_the_generic_paths_result",
    "audit/test_fast_path.py::test_typed_records_with_findings_in_several_fields_give_the_generic_paths_result",
    "audit/test_audit_cli.py::test_fail_on_thresholds",
    "audit/test_audit_cli.py::test_sarif_for_stdin_and_unreadable_inputs_validates",
    "audit/test_audit_cli.py::test_format_dialect_and_policy_options",
    "audit/test_audit_cli.py::test_empty_file_and_directory_without_transcripts_exit_2",
    "audit/test_audit_cli.py::test_workers_2_gives_the_same_report",
    "audit/test_audit_cli.py::test_stdin_and_gzip_stdin",
    "audit/test_audit_cli.py::test_output_never_shows_raw_text_beyond_the_redacted_preview",
    "audit/test_audit_cli.py::test_sarif_validates_against_the_2_1_0_schema",
    "audit/test_audit_context.py::test_cli_tools_option",
    "audit/test_audit_ops.py::test_absolute_paths_under_the_root_become_relative",
    "gate/test_code.py::test_d6_tracker_agrees_with_the_whole_text_oracle",
    "gate/test_code.py::test_d6_whole_text_pass_equals_the_tracker",
    "gate/test_code.py::test_tracker_is_chunk_invariant",
    "gate/test_code.py::test_certain_prefix_never_changes",
    "stream/test_stream_memory.py::test_backtick_runs_in_one_paragraph_keep_a_bounded_window",
    "serve/test_serve_ops.py::test_otel_exports_over_otlp_when_only_the_endpoint_is_set",
    "signals/test_window_fast_paths.py::test_view_equals_the_per_character_reference",
    "signals/test_window_fast_paths.py::test_s_skipping_ascii_windows_keeps_every_script_hit",
    "signals/test_window_fast_paths.py::test_c_word_before_finds_the_span_of_the_end_anchored_pattern",
    "signals/test_signals_field.py::test_detect_never_raises_with_or_without_tools",
    "signals/test_marker_spans.py::test_marker_spans_equal_the_pattern_as_written",
    "test_benchmarks.py::test_quick_run_prints_tables_with_ratios",
    "gate/test_gate.py::test_detect_never_raises_and_offsets_point_at_evidence",
    "gate/test_dense_path.py::test_d6_streams_give_the_whole_text_hits",
    "serve/test_sse_decoder.py::test_the_fast_path_decodes_like_the_line_by_line_path",
}


#: single tests (``module::name``) that measure memory or time growth: marked ``complexity``
COMPLEXITY = {
    "stream/test_stream_bounds.py::test_dense_text_keeps_a_bounded_record",
}
#: the share of its examples a property test gets in the default run, and the least it gets
CORE_SHARE = 12
CORE_FLOOR = 10


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full-properties",
        action="store_true",
        help="run every hypothesis test with the examples it asks for (CI's long property run)",
    )


@pytest.fixture
def examples(request: pytest.FixtureRequest) -> Callable[[int], int]:
    """For seeded loops that are property runs of their own: ``examples(n)`` is ``n`` with
    ``--full-properties``, else a :data:`CORE_SHARE`-th of it (at least :data:`CORE_FLOOR`). A test
    that takes this fixture is marked ``property``."""
    full = bool(request.config.getoption("--full-properties"))
    return lambda n: n if full else max(CORE_FLOOR, n // CORE_SHARE)


def _shorten(test: object) -> None:
    """Give a hypothesis test a :data:`CORE_SHARE`-th of its examples, once per function."""
    function = getattr(test, "__func__", test)
    if getattr(function, "_guard_core_examples", False):
        return
    asked = getattr(function, "_hypothesis_internal_use_settings", None) or settings.default
    function._hypothesis_internal_use_settings = settings(  # type: ignore[attr-defined]
        parent=asked, max_examples=max(CORE_FLOOR, asked.max_examples // CORE_SHARE)
    )
    function._guard_core_examples = True  # type: ignore[attr-defined]


def _relative(path: Path) -> str:
    return path.resolve().relative_to(_HERE).as_posix()


def _left_out(config: pytest.Config, marker: str) -> bool:
    """Whether ``-m`` deselects every test carrying ``marker`` (and no other of ours)."""
    expression = config.getoption("markexpr") or ""
    if not expression:
        return False
    try:  # pytest's own reader of -m (private, so any failure means "collect as usual")
        from _pytest.mark.expression import Expression

        return not Expression.compile(expression).evaluate(lambda name, **_: name == marker)
    except Exception:
        return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    try:
        relative = _relative(collection_path)
    except ValueError:
        return None
    package = INTEGRATION_MODULES.get(relative)
    if package is None:
        return None
    if importlib.util.find_spec(package) is None:
        return True  # the test extra alone: the framework is not installed
    if _left_out(config, "integration"):
        return True  # deselected anyway: importing the framework would cost seconds per worker
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            module = _relative(item.path)
        except ValueError:
            continue
        test = f"{module}::{item.originalname if isinstance(item, pytest.Function) else item.name}"
        if module in INTEGRATION_MODULES or test in INTEGRATION_TESTS:
            item.add_marker(pytest.mark.integration)
        if module.startswith(SLOW_FOLDERS) or test in SLOW:
            item.add_marker(pytest.mark.slow)
        if test in COMPLEXITY:
            item.add_marker(pytest.mark.complexity)
        if isinstance(item, pytest.Function) and "examples" in item.fixturenames:
            item.add_marker(pytest.mark.property)
        if isinstance(item, pytest.Function) and getattr(item.obj, "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
            if not config.getoption("--full-properties"):
                _shorten(item.obj)
