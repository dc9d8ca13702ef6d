# markless API and CPU worker: one image, two commands.
#   docker build -t markless:2026.7.1 .
#   API:    docker run markless:2026.7.1                      (node --import tsx api/src/main.ts)
#   worker: docker run markless:2026.7.1 node --import tsx workers/src/main.ts
# The GPU worker is Dockerfile.gpu (same app, CUDA runtime base, ONNX Runtime CUDA provider).

# --- build: compilers for hnswlib-node's native addon, then production dependencies only ---
FROM node:20.19-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# onnxruntime-node's install script (a CUDA download) stays denied, as in package.json's allowScripts.
RUN npm ci --omit=dev --ignore-scripts \
 && npm rebuild hnswlib-node msgpackr-extract esbuild sharp \
 && npm cache clean --force

# --- runtime: no compilers, no npm cache, non-root ---
FROM node:20.19-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    MODE=distributed \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_PORT=9464 \
    DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY shared ./shared
COPY api ./api
COPY workers ./workers
COPY models ./models
COPY docker/ready-probe.mjs ./docker/
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --retries=12 CMD ["node", "docker/ready-probe.mjs"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "api/src/main.ts"]
