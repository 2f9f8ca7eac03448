# A durable-agent worker image: built once (no npm install at container start), run as a non-root
# user, with bubblewrap for the contained shell. `docker compose up` builds it (docker-compose.yml).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# Production dependencies only; `prepare` (the build) already ran in the build stage.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY demo ./demo
USER node
ENTRYPOINT ["node", "bin/dagent.mjs"]
CMD ["worker"]
