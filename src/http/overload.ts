// Overload shedding. When the process has more work than it can do, its event loop lags; rather than
// queue every request until all of them time out, requests are refused at once with
// 503 SERVICE_UNAVAILABLE and Retry-After (which our SDKs honour), and served again as soon as the lag
// falls. Only a share of requests is refused, growing with the lag (see shedShare). /health keeps
// answering (the process is alive); /ready says 503, so a load balancer sends traffic elsewhere meanwhile.
//
// @fastify/under-pressure measures the lag (mean event-loop delay per sample). Its own gate is not used:
// its first sample includes the start-up work, which would shed the first requests after every start,
// so the gate here ignores the samples taken before the app was ready (listen makes it ready, then listens).
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.js';
import { currentOperation } from '../kernel/operation-scope.js';

/** How often the lag is measured; also how long a spike keeps the process shedding. */
const SAMPLE_INTERVAL_MS = 250;
const RETRY_AFTER_SECONDS = 1;

/** Route config for routes that answer however loaded the process is. */
export const ANSWER_UNDER_PRESSURE = { answerUnderPressure: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    answerUnderPressure?: boolean;
  }
}

export async function registerOverloadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): Promise<void> {
  if (maxEventLoopDelayMs === 0) return;
  await app.register(underPressure, { sampleInterval: SAMPLE_INTERVAL_MS });
  // The share to refuse, read from under-pressure's last sample on a timer of the same interval rather than
  // on every request (0 until the app is ready, and while the lag is under the limit).
  let share = 0;
  let sampler: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    const measuringFrom = Date.now() + 2 * SAMPLE_INTERVAL_MS;
    sampler = setInterval(() => {
      share = Date.now() < measuringFrom ? 0 : shedShare(app.memoryUsage().eventLoopDelay, maxEventLoopDelayMs);
    }, SAMPLE_INTERVAL_MS / 5);
    sampler.unref();
  });
  app.addHook('onClose', async () => clearInterval(sampler));
  // A request the app makes to itself (a change set's operation, an import's row: kernel/operation-scope.ts) is
  // part of work already admitted: refusing it would fail a row or a set half-way, not shed load.
  app.addHook('onRequest', (request, _reply, done) => {
    if (
      share === 0 ||
      request.routeOptions.config.answerUnderPressure ||
      Math.random() >= share ||
      currentOperation() !== undefined
    ) {
      done();
      return;
    }
    done(
      new AppError(
        'SERVICE_UNAVAILABLE',
        `The server is overloaded. Retry after ${RETRY_AFTER_SECONDS} second.`,
        undefined,
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      ),
    );
  });
}

/**
 * The share of requests refused at a given lag: none up to the limit, then in proportion to the excess
 * (half at twice the limit), at most 95%. Refusing only the excess keeps the process serving at about
 * its capacity instead of flapping between refusing everything and accepting everything.
 */
export function shedShare(lag: number, limit: number): number {
  return lag <= limit ? 0 : Math.min(0.95, 1 - limit / lag);
}
