# guard serve as a container: the guarding proxy in front of an OpenAI-compatible provider.
#   docker build -t guard-serve .
#   docker run --rm -p 8787:8787 -e GUARD_UPSTREAM=http://llm.internal:8000/v1 guard-serve
# Settings come from GUARD_* variables (GUARD_UPSTREAM, GUARD_PORT, GUARD_ON_LEAK,
# GUARD_API_KEYS, ...) or a mounted policy file (GUARD_POLICY); docs/deployment.md, "Deployment".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY guard ./guard
COPY signals ./signals
COPY recovery ./recovery
COPY corpora ./corpora
# serve: the proxy; vocab: the o200k encoding shipped in a package, so nothing is fetched at run;
# otel: spans with GUARD_OTEL=true, exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set
RUN pip install ".[serve,vocab,otel]" && rm -rf /src

# an unprivileged user of its own; the proxy needs no file it could write
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin guard
USER 10001:10001
WORKDIR /

EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GUARD_PORT', '8787'), timeout=4)"]
ENTRYPOINT ["guard", "serve", "--host", "0.0.0.0"]
