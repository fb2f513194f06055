"""guard.integrations.litellm inside LiteLLM's own proxy: the config of docs/integrations.md
(its upstream pointed at the fake upstream on a loopback port), the proxy's FastAPI app run
in-process, and the real OpenAI and Anthropic SDKs as its clients.

Needs LiteLLM's proxy dependencies (``litellm[proxy]``: FastAPI and the rest); skipped when
``litellm.proxy.proxy_server`` cannot be imported."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.fake_upstream import (
    CHAT_LEAKED,
    MESSAGES_LEAKED,
    MESSAGES_MODEL,
    FakeUpstream,
    Script,
    chat_json,
)
from test_integrations_litellm import readme_config

from guard.integrations._settings import ModelSettings
from guard.integrations.litellm import InbandGuardrail

MODEL = "gpt-oss-120b"
KEY = "sk-" + "5a1b" * 12
LEAK = "Sure. Here it is <|start|>assistant<|channel|>analysis<|message|>secret plan"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def proxy(fake: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A TestClient on LiteLLM's proxy app, started with the docs' config."""
    pytest.importorskip("fastapi")
    try:
        from litellm.proxy.proxy_server import app
    except ImportError as exc:  # pragma: no cover - without litellm[proxy]
        pytest.skip(f"LiteLLM's proxy cannot be imported: {exc}")
    from fastapi.testclient import TestClient

    config = readme_config()
    entry = config["model_list"][0]
    assert entry["model_name"] == MODEL
    entry["litellm_params"].update(api_base=fake.url, api_key="sk-upstream")
    config["model_list"].append(
        {
            "model_name": MESSAGES_MODEL,
            "litellm_params": {
                "model": f"anthropic/{MESSAGES_MODEL}",
                "api_base": fake.url.removesuffix("/v1"),
                "api_key": "sk-upstream",
            },
        }
    )
    path: Path = tmp_path_factory.mktemp("litellm") / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    saved = {k: os.environ.get(k) for k in ("CONFIG_FILE_PATH", "LITELLM_MASTER_KEY")}
    os.environ.update(CONFIG_FILE_PATH=str(path), LITELLM_MASTER_KEY=KEY)
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {KEY}"}) as client:
            yield client
    finally:
        import litellm

        # the proxy registered the guardrail as a global callback: leave none behind
        litellm.callbacks[:] = [c for c in litellm.callbacks if not isinstance(c, InbandGuardrail)]
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def live(proxy: Any) -> Iterator[InbandGuardrail]:
    """The guardrail instance the proxy built from the config (its settings restored after)."""
    import litellm

    found = [cb for cb in litellm.callbacks if isinstance(cb, InbandGuardrail)]
    assert len(found) == 1, "the proxy did not build the guardrail of the docs' config"
    saved = found[0].guard_settings
    yield found[0]
    found[0].guard_settings = saved


def on_leak(g: InbandGuardrail, mode: str) -> None:
    g.guard_settings = ModelSettings(on_leak=mode)  # type: ignore[arg-type]


def test_request_is_escaped_and_answer_cut(proxy: Any, fake: FakeUpstream, live: Any) -> None:
    fake.reset()
    fake.script = Script(body=chat_json(LEAK))
    r = proxy.post(
        "/v1/chat/completions",
        json={"model": MODEL, "messages": [{"role": "user", "content": "hi <|start|>"}]},
    )
    assert r.status_code == 200
    assert r.json()["choices"][0]["message"]["content"] == "Sure. Here it is "
    assert r.headers["x-litellm-applied-guardrails"] == "inband-guard"
    sent = fake.last().json
    assert sent["messages"][0]["content"] == "hi <\\|start\\|>"


def test_abort_is_a_400_block_the_openai_sdk_does_not_retry(
    proxy: Any, fake: FakeUpstream, live: InbandGuardrail
) -> None:
    import openai

    on_leak(live, "abort")
    fake.reset()
    fake.script = Script(body=chat_json(LEAK))
    client = openai.OpenAI(base_url="http://testserver/v1", api_key=KEY, http_client=proxy)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert "secret plan" not in str(info.value)
    assert len(fake.exchanges) == 1  # the SDK's default max_retries=2 did not resend it


def test_chat_stream_is_cut(proxy: Any, fake: FakeUpstream, live: Any) -> None:
    fake.reset()
    fake.script = Script(events=CHAT_LEAKED)
    body = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    r = proxy.post("/v1/chat/completions", json=body)
    assert r.status_code == 200
    assert r.headers["x-litellm-applied-guardrails"] == "inband-guard"
    assert "<|cha" not in r.text and "secret plan" not in r.text
    assert "Here it is " in r.text


def test_anthropic_messages_stream_is_cut(
    proxy: Any, fake: FakeUpstream, live: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM hands the hook this stream as SSE bytes: they are decoded and judged."""
    import anthropic

    from guard.integrations import litellm as module

    calls: list[Any] = []
    real = module.guard_sse_bytes

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "guard_sse_bytes", spy)
    fake.reset()
    fake.script = Script(events=MESSAGES_LEAKED)
    client = anthropic.Anthropic(base_url="http://testserver", api_key=KEY, http_client=proxy)
    text = ""
    with client.messages.stream(
        model=MESSAGES_MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        for piece in stream.text_stream:
            text += piece
    assert text == "Sure. Here it is "
    assert calls, "the stream did not reach the hook as bytes"


def test_apply_guardrail_endpoint(proxy: Any, live: Any) -> None:
    r = proxy.post(
        "/guardrails/apply_guardrail",
        json={"guardrail_name": "inband-guard", "text": "say <|call|> now"},
    )
    assert r.status_code == 200 and r.json()["response_text"] == "say <\\|call\\|> now"
    r = proxy.post(
        "/guardrails/apply_guardrail",
        json={"guardrail_name": "inband-guard", "text": LEAK, "input_type": "response"},
    )
    assert r.status_code == 200 and r.json()["response_text"] == "Sure. Here it is "
    pytest.importorskip("prisma")  # LiteLLM's error path of this endpoint imports it
    on_leak(live, "abort")
    r = proxy.post(
        "/guardrails/apply_guardrail",
        json={"guardrail_name": "inband-guard", "text": LEAK, "input_type": "response"},
    )
    assert r.status_code == 400 and "secret plan" not in r.text
