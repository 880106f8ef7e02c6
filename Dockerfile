# signoff: multi-stage build on a current Node LTS; runs as a non-root user.
# Build: docker build -t signoff .   Run: docker run --env-file .env -p 3000:3000 signoff

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
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
USER signoff
EXPOSE 3000
# Every role answers GET /healthz on PORT: HTTP mode through Bolt, Socket Mode and workers on
# their own small server.
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/bin.js"]
