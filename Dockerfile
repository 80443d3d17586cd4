# guardrail serve in a container: slim Python, the shipped ONNX models baked in (they are package
# data of the wheel), a non-root user, a health check. No network is needed at run time.
#   docker build -t rag-guardrail .
#   docker run -p 8080:8080 -e GUARDRAIL_API_KEYS="acme:$(printf %s "$KEY" | sha256sum | cut -d' ' -f1)" rag-guardrail
# Mount your own policies over /srv/policies and a volume on /srv/data for the audit log.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE constraints.txt ./
COPY guardrail ./guardrail
COPY integrations ./integrations
COPY policies ./policies
RUN pip install --no-cache-dir --prefix=/install -c constraints.txt ".[serve]"

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
COPY --from=build /install /usr/local
RUN useradd --create-home --uid 10001 guard \
 && mkdir -p /srv/data \
 && chown guard:guard /srv/data
COPY --chown=guard:guard policies /srv/policies
USER guard
WORKDIR /srv
# Fail the build, not the first request, if the baked models cannot load.
RUN python -c "from guardrail import Guardrail; Guardrail()"
EXPOSE 8080
# Liveness; use /readyz for a readiness probe (models loaded, policies valid, audit writable).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2).status != 200)"
CMD ["guardrail", "serve", "--policies", "/srv/policies", "--audit", "/srv/data/audit.db", "--host", "0.0.0.0", "--port", "8080"]
