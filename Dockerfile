# signoff: multi-stage build on a current Node LTS; runs as a non-root user.
# Build: docker build -t signoff .
# Slack:    docker run -d --env-file .env -p 3000:3000 -v signoff-data:/app/.data signoff
# Terminal: docker run -it --env-file .env -v signoff-data:/app/.data signoff
# A team: compose.yaml (PostgreSQL, a web process and a worker): docker compose up -d
# What of this image was checked without a Docker daemon, and how: README.md, "Self-hosting".

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci installs exactly the lock and fails when package.json and the lock disagree. It installs
# only the optional packages the lock lists, and the lock lists every platform's (esbuild, biome and
# the embedded PostgreSQL for linux x64 and arm64, darwin, windows; a unit test keeps it so), so an
# amd64 or an arm64 build finds its own. (.ci/run keeps npm install: npm 11 has written locks with
# this machine's platform only, and CI must still install from such a lock.)
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# tini as PID 1: it forwards SIGTERM to node (which stops cleanly) and reaps the embedded
# PostgreSQL's children; node itself is started directly, not through npm, so signals reach it.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# The embedded PostgreSQL refuses to run as root; so does this image as a whole.
RUN groupadd --system signoff && useradd --system --gid signoff --create-home signoff \
  && mkdir -p /app/.data && chown signoff:signoff /app/.data
COPY --from=build --chown=signoff:signoff /app/node_modules ./node_modules
COPY --from=build --chown=signoff:signoff /app/dist ./dist
COPY --chown=signoff:signoff package.json manifest.yml signoff.example.yml ./
COPY --chown=signoff:signoff migrations ./migrations
# `node bin/signoff.mjs …` inside the container (bin/ runs the compiled build where there is no source), and
# the example workflows and scenarios (SIGNOFF_CONFIG=examples/declared/release-notes.yml).
COPY --chown=signoff:signoff bin ./bin
COPY --chown=signoff:signoff examples ./examples
USER signoff
# Tasks, reviews and checkpoints live here when DATABASE_URL is unset (the embedded PostgreSQL):
# mount a volume (-v signoff-data:/app/.data) or they go with the container.
VOLUME /app/.data
EXPOSE 3000
# Every role answers GET /healthz on PORT: HTTP mode through Bolt, Socket Mode and workers on
# their own small server (503 "starting" while Socket Mode connects). The start period covers a
# first start: the embedded PostgreSQL's initdb and the migrations.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/bin.js"]
