import http from 'node:http';
import type { Metrics } from './metrics.js';

/**
 * A second, unauthenticated listener for Prometheus and Kubernetes probes (METRICS_PORT):
 * `GET /metrics` and `GET /ready` (200 once `ready()` says so — for a worker, once its model is
 * loaded and its queues are consumed — else 503). Keep the port inside the cluster network.
 */
export async function startMetricsServer(port: number, host: string, metrics: Metrics, ready: () => boolean): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      metrics.render().then(
        (text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (req.method === 'GET' && path === '/ready') {
      const ok = ready();
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ready: ok }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(port, host));
  return server;
}
