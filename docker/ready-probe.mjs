// Container HEALTHCHECK: healthy once the process says it is ready on its metrics port
// (METRICS_PORT, default 9464): a worker once its model is loaded and its queues consumed.
const port = process.env.METRICS_PORT || '9464';
fetch(`http://127.0.0.1:${port}/ready`).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
);
