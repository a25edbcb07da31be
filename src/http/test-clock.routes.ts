// The test clock's routes (docs/api-contract.md §32, "Test clock"), registered by app.ts only when the server was
// started with NODE_ENV=test and BMS_TEST_CLOCK=true: without both, every /test/* path is an unknown route (404).
// They take no key: a test suite drives the process's time and its workers directly. Hidden from the OpenAPI
// document, which describes the API of every server, not this test fixture.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { fieldError } from '../core/errors.js';
import type { TestClock } from '../core/test-clock.js';
import { TimestampSchema } from '../kernel/fields.js';
import { ok } from './envelope.js';
import { dataEnvelope } from './schemas.js';

/** Every worker the contract names, and the sweeper of lapsed app installs; a server runs the ones it has. */
export const WORKER_NAMES = [
  'outbox',
  'webhooks',
  'schedules',
  'recurring_invoices',
  'reminders',
  'imports',
  'attachments',
  // docs/api-contract.md §25: installs whose refresh token lapsed are uninstalled (`expired`).
  'app_installs',
] as const;
export type WorkerName = (typeof WORKER_NAMES)[number];

/** One pass of each worker this process runs, resolving with how many items it processed; filled by main.ts. */
export type WorkerPasses = Map<WorkerName, () => Promise<number>>;

const ClockSchema = Type.Object({ now: TimestampSchema });
const WorkerRunSchema = Type.Object({
  worker: Type.String({ description: 'The worker that ran.', example: 'recurring_invoices' }),
  processed: Type.Integer({ minimum: 0, description: 'How many items the pass processed.', example: 1 }),
});

export function testClockRoutes(clock: TestClock, passes: WorkerPasses): FastifyPluginAsyncTypebox {
  return async (app) => {
    const hide = true;
    app.get('/test/clock', { schema: { hide, response: { 200: dataEnvelope(ClockSchema) } } }, async (request) =>
      ok(request, { now: clock.now().toISOString() }),
    );

    app.put(
      '/test/clock',
      {
        schema: {
          hide,
          body: Type.Object(
            { now: Type.String({ format: 'date-time', description: 'The instant the clock is set to.' }) },
            { additionalProperties: false },
          ),
          response: { 200: dataEnvelope(ClockSchema) },
        },
      },
      async (request) => {
        const instant = new Date(request.body.now);
        if (Number.isNaN(instant.getTime())) throw fieldError('now', 'must be an RFC 3339 instant');
        if (!clock.set(instant))
          throw fieldError(
            'now',
            `must not be before the clock's current time (${clock.now().toISOString()}): the test clock only moves forward`,
          );
        return ok(request, { now: clock.now().toISOString() });
      },
    );

    app.post(
      '/test/workers/run',
      {
        schema: {
          hide,
          body: Type.Object(
            {
              worker: Type.Unsafe<WorkerName>({ type: 'string', enum: [...WORKER_NAMES] }),
            },
            { additionalProperties: false },
          ),
          response: { 200: dataEnvelope(WorkerRunSchema) },
        },
      },
      async (request) => {
        const { worker } = request.body;
        const pass = passes.get(worker);
        if (!pass)
          throw fieldError(
            'worker',
            `this server has no ${worker} worker; it runs ${[...passes.keys()].join(', ') || 'none'}`,
          );
        return ok(request, { worker, processed: await pass() });
      },
    );
  };
}
