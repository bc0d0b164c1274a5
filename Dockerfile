# One image for every role: `serve` (all), `serve --role api`, `serve --role worker`.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would compile before the sources are copied in.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev

FROM node:22-bookworm-slim
# No Go here, so no embedded FerretDB (it is built with Go at first start): MONGODB_URI is required,
# and EMBEDDED_DB=none makes its absence a clear start-up error rather than a failed build.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data EMBEDDED_DB=none
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# `postdeck` on PATH, so `docker compose exec api postdeck login` works as the start message says.
RUN ln -s /app/bin/postdeck.js /usr/local/bin/postdeck && mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# No HEALTHCHECK: the image runs every role, and each needs its own check (docker-compose.yml):
# `serve` and `--role api` answer GET /healthz on PORT; `--role worker` serves no HTTP, and
# `node bin/postdeck.js admin worker-health` reads the heartbeat it writes.
ENTRYPOINT ["node", "bin/postdeck.js"]
CMD ["serve"]
