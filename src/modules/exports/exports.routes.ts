// GET /v1/exports/:list (docs/api-contract.md §26, "Export"): every object of a list that its filters and sort
// select, streamed as CSV or NDJSON from one read snapshot. The list's route is called once (`selfDispatch` in an
// operation scope holding the snapshot) and hands over its first page and its page reader, through which the export
// reads the next pages of 100 (docs/decisions.md, "Exports: pages without the HTTP round trip"): an export's objects,
// filters, sort and scope are exactly the list's; memory holds one page and the stream's buffer, whatever the count.
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError, type ErrorCode, type ErrorDetail, fieldError } from '../../core/errors.js';
import { inReadSnapshot } from '../../db/index.js';
import { insufficientScope } from '../../kernel/auth-context.js';
import { type ListPage, runAsOperation } from '../../kernel/operation-scope.js';
import { auth } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { type SelfAnswer, selfDispatch } from '../../http/self-dispatch.js';
import { currentChangeCursor } from '../events/index.js';
import { csvColumns, csvHeader, csvRecords } from './exports.csv.js';

/** Each list an export reads: its object's schema ($id), the kind of its custom fields, and whether it has lines. */
const LISTS: Record<string, { schema: string; custom?: string; lines?: boolean }> = {
  clients: { schema: 'Client', custom: 'client' },
  properties: { schema: 'Property', custom: 'property' },
  'service-requests': { schema: 'ServiceRequest', custom: 'service_request' },
  quotes: { schema: 'Quote', custom: 'quote', lines: true },
  jobs: { schema: 'Job', custom: 'job' },
  visits: { schema: 'Visit', custom: 'visit' },
  'visit-schedules': { schema: 'VisitSchedule' },
  invoices: { schema: 'Invoice', custom: 'invoice', lines: true },
  'recurring-invoices': { schema: 'RecurringInvoice' },
  payments: { schema: 'Payment' },
  'credit-notes': { schema: 'CreditNote' },
  'team-members': { schema: 'TeamMember', custom: 'team_member' },
  products: { schema: 'Product', custom: 'product' },
  'tax-rates': { schema: 'TaxRate' },
};

/**
 * §32: an export lasts at most 10 minutes of the process's clock (the test clock moves it too), and an account runs
 * at most 2 at once (a third: 429). The clock is read before each row is written and every second besides, so an
 * export whose reader has stopped reading is cut too, and its slot and snapshot given back.
 */
const EXPORT_MS = 10 * 60_000;
const DEADLINE_CHECK_MS = 1000;
const AT_ONCE = 2;
const RETRY_AFTER_S = 5;

function errorOf(answer: SelfAnswer): AppError {
  const error = (answer.body as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | null)?.error;
  const code = (error?.code ?? 'INTERNAL_ERROR') as ErrorCode;
  const headers: Record<string, string> = {};
  const challenge = answer.headers['www-authenticate'];
  if (typeof challenge === 'string') headers['www-authenticate'] = challenge;
  return new AppError(code, error?.message ?? 'The list could not be read.', error?.details, headers);
}

/** Text gathered before it is written: a write a row would make a Buffer and a stream step of every row. */
const CHUNK_CHARS = 16 * 1024;

/**
 * Writes text to `stream` in pieces of about CHUNK_CHARS, each followed by a turn of the event loop, waiting while
 * the reader is behind (the stream's buffer is all that is held); `add` and `flush` answer false once it is closed.
 * The turn matters on SQLite, which reads synchronously: a page's read and the stream's writes would otherwise all
 * settle in one turn, and an export ran whole in it, other requests waiting and unsent bytes piling up in memory.
 */
class ChunkWriter {
  private pending = '';
  constructor(private readonly stream: PassThrough) {}

  async add(text: string): Promise<boolean> {
    this.pending += text;
    return this.pending.length < CHUNK_CHARS ? !this.stream.destroyed : this.flush();
  }

  /** Writes what is gathered (if anything), then lets the loop turn. */
  async flush(): Promise<boolean> {
    const { stream } = this;
    const text = this.pending;
    this.pending = '';
    if (stream.destroyed) return false;
    if (text !== '' && !stream.write(text))
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
      });
    await new Promise((resolve) => setImmediate(resolve));
    return !stream.destroyed;
  }
}

export const exportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const running = new Map<string, number>();

  app.get(
    '/v1/exports/:list',
    {
      // The list's read scope, checked by the handler (§26).
      config: { authenticated: true },
      schema: {
        tags: ['Exports'],
        operationId: 'downloadExport',
        summary: 'Export every object of a list as CSV or NDJSON',
        description:
          'Streams every object the list’s filters and sort select (`GET /v1/exports/clients?format=csv&created_after=…`), from one read snapshot, with the list’s read scope. NDJSON: one object a line, then `{"object": "export_end", "count": N}`. CSV: RFC 4180, UTF-8 with a BOM, CRLF, a header row; nested fields dotted, `metadata` as JSON, lists joined by `|`, quotes and invoices a row per line, text cells formula-escaped: the import’s columns. `Bms-Change-Cursor` is the change feed’s position at the export.',
        params: Type.Object({
          list: Type.String({
            description: `The list: ${Object.keys(LISTS).join(', ')}.`,
            example: 'clients',
          }),
        }),
        querystring: Type.Object(
          {
            format: Type.Unsafe<'csv' | 'ndjson'>({
              type: 'string',
              enum: ['csv', 'ndjson'],
              description: 'csv or ndjson. Every other parameter is the list’s own (filters and sort).',
              example: 'csv',
            }),
          },
          { additionalProperties: true },
        ),
        response: {
          200: {
            description: 'Every selected object, streamed.',
            headers: {
              'bms-change-cursor': {
                type: 'string',
                description: 'The change feed’s position at the export: pass it as `since` to GET /v1/changes.',
              },
            },
            content: {
              'text/csv': { schema: { type: 'string', description: 'RFC 4180, UTF-8 with a BOM, CRLF.' } },
              'application/x-ndjson': { schema: { type: 'string', description: 'One JSON object a line.' } },
            },
          },
          ...errorResponses('VALIDATION_ERROR', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'RATE_LIMITED'),
        },
      },
    },
    async (request, reply) => {
      const { list } = request.params;
      const spec = LISTS[list];
      if (!spec) throw new AppError('NOT_FOUND', `There is no list ${list} to export.`);
      const caller = auth(request);
      const scope = app.routeTable.routes.find((route) => route.method === 'GET' && route.url === `/v1/${list}`)?.scope;
      if (scope !== undefined && !caller.scopes.has(scope)) throw insufficientScope(scope);
      const { format, ...filters } = request.query as unknown as Record<string, string> & { format: 'csv' | 'ndjson' };
      for (const name of ['limit', 'cursor'])
        if (name in filters) throw fieldError(name, 'is not taken by an export, which gives every object at once');
      const busy = running.get(caller.accountId) ?? 0;
      if (busy >= AT_ONCE)
        throw new AppError(
          'RATE_LIMITED',
          `This account already runs ${AT_ONCE} exports, the most at once; retry after ${RETRY_AFTER_S} seconds.`,
          undefined,
          { 'retry-after': String(RETRY_AFTER_S) },
        );
      running.set(caller.accountId, busy + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const left = (running.get(caller.accountId) ?? 1) - 1;
        if (left > 0) running.set(caller.accountId, left);
        else running.delete(caller.accountId);
      };

      const query = new URLSearchParams(filters);
      query.set('limit', '100');
      const cursor = await currentChangeCursor(app.db, caller.accountId, app.clock.now().getTime()).catch((error) => {
        release();
        throw error;
      });
      const dispatch = selfDispatch(request);
      const stream = new PassThrough();
      let settle: (error: AppError | undefined) => void = () => {};
      const ready = new Promise<AppError | undefined>((resolve) => {
        settle = resolve;
      });
      const deadline = app.clock.now().getTime() + EXPORT_MS;
      /** Cuts the stream once the export has lasted 10 minutes; answers whether it did. */
      const cutIfLate = () => {
        if (app.clock.now().getTime() < deadline) return false;
        stream.destroy(new Error('the export took longer than 10 minutes'));
        return true;
      };
      const timer = setInterval(cutIfLate, DEADLINE_CHECK_MS);
      timer.unref();

      const streamed = inReadSnapshot(app.db, (db) =>
        runAsOperation({ pass: 'run', db, actor: 'api_key' }, async () => {
          let columns: string[] = [];
          if (format === 'csv') {
            let customKeys: string[] = [];
            if (spec.custom) {
              const schema = await runAsOperation({ pass: 'read', db, actor: 'api_key' }, () =>
                dispatch({ method: 'GET', path: `/v1/custom-fields/schema?resource=${spec.custom}` }),
              );
              const properties = (schema.body as { data?: { schema?: { properties?: object } } } | null)?.data?.schema
                ?.properties;
              customKeys = Object.keys(properties ?? {});
            }
            columns = csvColumns(
              app.getSchema(spec.schema) as Record<string, unknown>,
              customKeys,
              spec.lines === true,
            );
          }
          // The list's route, called once in this scope, checks the query as it does for any request, reads its
          // first page and hands it over with its page reader (http/pagination.ts `answerList`): the export then
          // pages on through the list's own code, each object's JSON as the list answers it, without a page's
          // answer being written, sent and parsed again.
          let pages: { first: ListPage; read: (cursor: string) => Promise<ListPage> } | undefined;
          if (cutIfLate()) return;
          const answer = await runAsOperation(
            { pass: 'run', db, actor: 'api_key', pages: (first, read) => (pages = { first, read }) },
            () => dispatch({ method: 'GET', path: `/v1/${list}?${query}` }),
          );
          if (!pages) {
            if (answer.status === 204) throw new Error(`the list ${list} did not hand over its pages`);
            return settle(errorOf(answer));
          }
          settle(undefined);
          const writer = new ChunkWriter(stream);
          if (format === 'csv' && !(await writer.add(csvHeader(columns)))) return;
          let page = pages.first;
          let count = 0;
          for (;;) {
            for (const json of page.data) {
              if (cutIfLate()) return;
              // Parsed and written again, as the objects of a page's envelope were: the same bytes as before.
              const item = JSON.parse(json) as unknown;
              const text =
                format === 'csv' ? csvRecords(item, columns, spec.lines === true) : `${JSON.stringify(item)}\n`;
              if (!(await writer.add(text))) return;
              count += 1;
            }
            // A page's rows all go out, and the loop turns, before the next page is read.
            if (!(await writer.flush())) return;
            if (page.nextCursor === null) break;
            if (cutIfLate()) return;
            page = await pages.read(page.nextCursor);
          }
          if (format === 'ndjson' && !(await writer.add(`${JSON.stringify({ object: 'export_end', count })}\n`)))
            return;
          if (!(await writer.flush())) return;
          stream.end();
        }),
      );
      streamed
        .catch((error: unknown) => {
          // Before the first byte, the error is the answer; after it, the stream is cut without its last chunk.
          settle(error instanceof AppError ? error : new AppError('INTERNAL_ERROR', 'The export failed.'));
          stream.destroy(error instanceof Error ? error : new Error(String(error)));
          if (!(error instanceof AppError)) request.log.error({ err: error }, 'export failed');
        })
        .finally(() => {
          // Cut before its first page (late, or its reader gone): nothing was answered yet.
          settle(
            new AppError('SERVICE_UNAVAILABLE', 'The export ended before its first row; retry it.', undefined, {
              'retry-after': '1',
            }),
          );
          clearInterval(timer);
          release();
        });

      const refused = await ready;
      if (refused) throw refused;
      const date = app.clock.now().toISOString().slice(0, 10);
      return reply
        .header('bms-change-cursor', cursor)
        .header('content-disposition', `attachment; filename="${list}-${date}.${format}"`)
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .send(stream);
    },
  );
};
