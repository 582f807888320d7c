# syntax=docker/dockerfile:1
# Ninepoint serving one spec, on SQLite in the /data volume or on PostgreSQL (DATABASE_URL).
# How to build, run, back up and scale it: docs/deploy.md.
#
#   docker build -t ninepoint .
#   docker run -d --name app -p 3000:3000 -v ninepoint-data:/data \
#     -v "$PWD/spec.md:/spec/spec.md:ro" ninepoint

ARG NODE_VERSION=24

# Build: every dependency, then the web app (packages/web/dist, precompressed).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# The manifests first, so that this layer is rebuilt only when dependencies change.
COPY package.json package-lock.json ./
COPY packages/spec/package.json packages/spec/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
COPY packages/cli/package.json packages/cli/
COPY packages/typed-client/package.json packages/typed-client/
COPY packages/create-ninepoint/package.json packages/create-ninepoint/
# No install scripts: better-sqlite3 ships its native builds, and the root's postinstall (the web
# build) needs the sources, which are not here yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The web app is built here; the development tools are then dropped. The server runs the
# TypeScript sources directly (Node 24 strips the types), as it does in a clone.
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: Node and the built app only, run as the unprivileged `node` user.
FROM node:${NODE_VERSION}-bookworm-slim
# NODE_OPTIONS: V8's young generation capped at 16 MiB a half (scripts/node-flags.mjs says why).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=16 \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# Owned by root: the app cannot change its own code. Only /data is writable for it.
COPY --from=build /app /app
RUN ln -s /app/packages/cli/bin/ninepoint.js /usr/local/bin/ninepoint \
    && mkdir -p /data /spec \
    && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Ready when it answers /api/health, which also reads the database.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# On SIGTERM (docker stop) the server stops taking connections, lets the requests under way finish
# (cutting any still running after 8 s), closes the database and exits 0. docker stop waits 10 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["ninepoint"]
CMD ["serve", "/spec/spec.md", "--db", "/data/ninepoint.db"]
