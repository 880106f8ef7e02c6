/**
 * An HTTP proxy in front of a server that does not pass a client's hang-up on: when the client
 * goes, it keeps its own connection to the server open and reads what comes (as a proxy or load
 * balancer that pools or buffers upstream connections may). A server that cancels a run when its
 * stream's client disconnects never hears of it through this proxy, so only an explicit cancel
 * stops the run.
 */
import { httpProxy, type TestProxy } from './http-proxy.js';

export type HoldingProxy = TestProxy;

export const holdingProxy = (port: number, upstream: string): Promise<HoldingProxy> =>
  httpProxy(port, upstream, (_req, _up, answer, res) => {
    answer.pipe(res);
    // The client hung up: the proxy keeps reading the server's answer to its end.
    res.on('close', () => answer.resume());
  });
