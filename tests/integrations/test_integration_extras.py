"""Each framework integration is an extra: importing it without its framework fails with an
ImportError that names the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("guard.integrations.litellm", "litellm", "inband-guard[litellm]"),
        ("guard.integrations.agents", "agents", "inband-guard[agents]"),
        ("guard.integrations.langchain", "langchain", "inband-guard[langchain]"),
        ("guard.integrations.nemo", "nemoguardrails", "inband-guard[nemo]"),
        ("guard.integrations.guardrails_ai", "guardrails", "inband-guard[guardrails]"),
    ],
)
def test_missing_framework_names_the_extra(module: str, framework: str, extra: str) -> None:
    code = (
        f"import sys; sys.modules[{framework!r}] = None\n"  # as if it were not installed
        f"try:\n    import {module}\n"
        "except ImportError as exc:\n    print(exc)\n"
        "else:\n    print('imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert extra in out.stdout, out.stdout + out.stderr


def test_the_protocols_and_wrappers_need_no_framework() -> None:
    code = (
        "import sys\n"
        "for name in ('anthropic', 'openai', 'litellm', 'agents', 'langchain'):\n"
        "    sys.modules[name] = None\n"
        "import guard.integrations.anthropic, guard.integrations.openai\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "ok"
