// The log of a request: one line when it is answered, and a logger for anything its handlers log. Both are cut
// to what a request uses: most requests log nothing but their line, so the request's child logger
// (pino's child(), the request id serialized into its bindings) is made only when something logs through it,
// and the line is written as pino would write it through that child, without making the child for it.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { symbols, type Bindings, type ChildLoggerOptions, type Logger } from 'pino';
import { redactUrl } from './log-redaction.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

function write(logger: FastifyBaseLogger, level: Level, args: unknown[]): void {
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);
}

/**
 * A request's logger that becomes pino's child of the app's logger (with `reqId`) the first time it is used:
 * what it writes is the child's line, byte for byte.
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    write(this.logger, 'fatal', args);
  }
  error(...args: unknown[]): void {
    write(this.logger, 'error', args);
  }
  warn(...args: unknown[]): void {
    write(this.logger, 'warn', args);
  }
  info(...args: unknown[]): void {
    write(this.logger, 'info', args);
  }
  debug(...args: unknown[]): void {
    write(this.logger, 'debug', args);
  }
  trace(...args: unknown[]): void {
    write(this.logger, 'trace', args);
  }
  silent(...args: unknown[]): void {
    write(this.logger, 'silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a request's logger, made into pino's child only when it logs. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route with its own log level or serializers gets its child at once, as Fastify would make it.
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

interface PinoInternals {
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.timeSym]: () => string;
  [symbols.chindingsSym]: string;
  [symbols.endSym]: string;
  [symbols.streamSym]: { write(line: string): unknown };
}

const INFO = 30;

/**
 * The request's line, `request` at info level with reqId, method, url (credentials redacted), status and ms:
 * what `request.log.info({method, url, status, ms}, 'request')` writes, from the app logger's own level
 * label, clock, bindings and line end, without a child logger and pino's walk over the fields.
 */
export function logRequest(logger: FastifyBaseLogger, request: FastifyRequest, reply: FastifyReply): void {
  const pino = logger as unknown as Logger & PinoInternals;
  if (!pino.isLevelEnabled('info')) return;
  const ms = Math.round(reply.elapsedTime * 10) / 10;
  pino[symbols.streamSym].write(
    `${pino[symbols.lsCacheSym][INFO]}${pino[symbols.timeSym]()}${pino[symbols.chindingsSym]},"reqId":"${request.id}","method":"${request.method}","url":${JSON.stringify(redactUrl(request.url))},"status":${reply.statusCode},"ms":${Number.isFinite(ms) ? ms : null},"msg":"request"${pino[symbols.endSym]}`,
  );
}
