# Mine Devil: the web app under gunicorn (gevent worker) with SQLite in the /data volume.
#   docker build -t mine-devil .
#   docker run -p 8000:8000 -v mine-devil-data:/data mine-devil
# Set MINE_DEVIL_DATABASE_URL to use PostgreSQL instead of SQLite.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 10001 devil \
    && useradd --system --uid 10001 --gid devil --no-create-home --shell /usr/sbin/nologin devil \
    && mkdir -p /data \
    && chown devil:devil /data

WORKDIR /src
COPY pyproject.toml README.md hatch_build.py ./
COPY devil ./devil
COPY app ./app
COPY templates ./templates
COPY static ./static
# a C compiler only while installing: the build compiles the engine's hot loops with mypyc
# (hatch_build.py), then the compiler goes again
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install --no-cache-dir "/src[web]" \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/* \
    && python -c "import devil.native as n; assert n.ENGINE == 'compiled', n.REASON"

WORKDIR /data
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]

CMD ["mine-devil", "--host", "0.0.0.0", "--port", "8000", "--data", "/data"]
