/**
 * An HTTP proxy in front of a LangGraph server that ends a run's stream early, cleanly: once the
 * first event has passed, the client's answer is ended as if the stream were over (the last
 * chunk sent, no error), and the server's connection is dropped, so that the server cancels the
 * run (`onDisconnect: cancel`). As a proxy or load balancer with a response time limit may do.
 * Only the first `cuts` run streams are cut; everything else passes as it is.
 */
import { httpProxy, type TestProxy } from './http-proxy.js';

export interface CuttingProxy extends TestProxy {
  /** How many run streams it cut. */
  cut(): number;
}

export async function cuttingProxy(port: number, upstream: string, cuts = 1): Promise<CuttingProxy> {
  let done = 0;
  const proxy = await httpProxy(port, upstream, (req, up, answer, res) => {
    const cutting = /\/runs\/stream$/.test(req.url ?? '') && done < cuts;
    if (!cutting) return void answer.pipe(res);
    done += 1;
    answer.once('data', (chunk) => {
      res.end(chunk);
      up.destroy();
    });
  });
  return { ...proxy, cut: () => done };
}
