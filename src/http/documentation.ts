// The OpenAPI document (/v1/openapi.json) and its reader (/docs): the only answers sent compressed, gzip or
// Brotli as the client accepts. Compression is registered in this scope alone, so the API's own routes get
// no hook from it: compressing their answers is a cost on the hot path that no benchmark has weighed.
import compress from '@fastify/compress';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import { etagOfJson, noneMatch } from './etag.js';

export const documentationRoutes: FastifyPluginAsync = async (app) => {
  await app.register(compress, { encodings: ['br', 'gzip'] });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v1/openapi.json' } as never });

  // The document is the same until the process restarts: written out once, with one ETag (weak: the same
  // document whichever encoding carries it), so a reader that has it gets a 304 rather than the document again.
  let document: { text: string; etag: string } | undefined;
  app.get(
    '/v1/openapi.json',
    { schema: { tags: ['System'], summary: 'This API as an OpenAPI 3.1 document', hide: true } },
    async (request, reply) => {
      if (!document) {
        const text = JSON.stringify(app.swagger());
        document = { text, etag: etagOfJson(text) };
      }
      reply.header('etag', `W/${document.etag}`).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
      if (noneMatch(request.headers['if-none-match'], document.etag)) return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(document.text);
    },
  );
};
