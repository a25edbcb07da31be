// The only body parser: JSON. Empty bodies are "no body" (so DELETE or send with a stray Content-Type
// works); prototype-pollution keys are refused rather than silently dropped.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from './errors.js';

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(new AppError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`));
    }
    try {
      // Re-scan for __proto__ / constructor.prototype keys, which JSON.parse accepts.
      if (typeof parsed === 'object' && parsed !== null) secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(fieldError('__proto__', 'forbidden property name (__proto__ or constructor.prototype)'));
    }
    return done(null, parsed);
  });
}
