// Unauthenticated endpoints: liveness and readiness (the OpenAPI document: http/documentation.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.js';
import { ok } from '../../http/envelope.js';
import { ANSWER_UNDER_PRESSURE } from '../../http/overload.js';
import { dataEnvelope } from '../../http/schemas.js';

const tags = ['System'];
const StatusSchema = Type.Object({
  status: Type.String({ description: '"ok" when the check passed.', example: 'ok' }),
});

/** What /ready checks besides the database: the attachment store (docs/api-contract.md §30). */
export interface SystemOptions {
  readyChecks?: ReadonlyArray<{ name: string; check: () => Promise<void> }>;
}

export const systemRoutes: FastifyPluginAsyncTypebox<SystemOptions> = async (app, options) => {
  app.get(
    '/health',
    {
      config: ANSWER_UNDER_PRESSURE,
      schema: {
        tags,
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
        description: 'Answers 200 while the process runs, even when overloaded; for a process supervisor.',
        response: { 200: dataEnvelope(StatusSchema) },
      },
    },
    async (request) => ok(request, { status: 'ok' }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags,
        operationId: 'getReadiness',
        summary: 'Readiness: the database and the attachment store answer and the process is not overloaded',
        description:
          'Answers 503 with Retry-After when the database does not answer or refused a recent write, the attachment store cannot be written, or the process is overloaded; for a load balancer.',
        response: { 200: dataEnvelope(StatusSchema), 503: { $ref: 'ErrorEnvelope' } },
      },
    },
    async (request, reply) => {
      try {
        await app.database.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        reply.header('retry-after', '5');
        throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable.');
      }
      const failure = app.storage.recentFailure(app.clock.now());
      if (failure) {
        reply.header('retry-after', '5');
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `The database refused a write at ${failure.toISOString()} (full, read-only or failing).`,
        );
      }
      for (const { name, check } of options.readyChecks ?? []) {
        try {
          await check();
        } catch (error) {
          request.log.warn({ err: error }, `readiness check failed: ${name}`);
          reply.header('retry-after', '5');
          throw new AppError('SERVICE_UNAVAILABLE', `The ${name} is not reachable or not writable.`);
        }
      }
      return ok(request, { status: 'ok' });
    },
  );
};
