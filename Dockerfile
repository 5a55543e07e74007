# syntax=docker/dockerfile:1
# boxbot in a container: a build stage with the dev dependencies compiles dist/ and the bundled
# WASM tools, then drops them; the runtime stage runs as an unprivileged user with its state in
# the /data volume.
#   docker build -t boxbot .
#   docker run -d -p 127.0.0.1:8787:8787 -v boxbot-data:/data -e BOXBOT_ADMIN_TOKEN=... -e ANTHROPIC_API_KEY=... boxbot
# Node 24 is the active LTS (22 is supported too). Debian, not Alpine: the prebuilt native
# bindings some dependencies ship are glibc builds.

FROM node:24-bookworm AS build
WORKDIR /app
# The full image has python3, make and g++, which a dev dependency's native addon builds with.
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
COPY tools ./tools
COPY skills ./skills
COPY ui ./ui
# npm ci installs from the lock file and runs prepare (esbuild bundles src/ into dist/bundle and
# ui/admin into dist/admin, the bundled tools into tools/dist/); prune then removes the dev
# dependencies (compilers, jco, componentize-js).
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/tools ./tools
COPY --from=build /app/skills ./skills
COPY LICENSE README.md ./
COPY deploy/container.config.json /etc/boxbot/boxbot.config.json
# The image's node user (uid 1000) owns only the data volume; the code stays root-owned.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
# Inside the container boxbot listens on 0.0.0.0 (see deploy/container.config.json), so it
# refuses to start without BOXBOT_ADMIN_TOKEN: that token then guards the admin API and the web
# chat. Publish the port on the host's loopback (-p 127.0.0.1:8787:8787) unless a reverse
# proxy with TLS is in front.
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/boxbot.cjs", "--config", "/etc/boxbot/boxbot.config.json"]
CMD ["start"]
