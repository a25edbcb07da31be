// GET /v1/changes (docs/api-contract.md §26): the change feed. Each entry is an object changed after the cursor,
// at its latest change, in commit order, with the object as its GET answers it (read through the app itself,
// `selfDispatch`, so the feed's objects are exactly the API's), or `deleted: true` and `data: null`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError, fieldError } from '../../core/errors.js';
import { insufficientScope } from '../../kernel/auth-context.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { TimestampSchema } from '../../kernel/fields.js';
import { runAsOperation } from '../../kernel/operation-scope.js';
import { auth, contextOf } from '../../http/auth.js';
import { meta } from '../../http/envelope.js';
import { errorResponses, listEnvelope, schemaRef } from '../../http/schemas.js';
import { selfDispatch } from '../../http/self-dispatch.js';
import { encodeChangeCursor, hasPendingChanges, listChanges, sequenceChanges } from './changes.repository.js';

/** Each kind of the feed and its list's path; its read scope is that of `GET <path>/:id`. */
export const CHANGE_KINDS: Record<string, string> = {
  client: '/v1/clients',
  property: '/v1/properties',
  service_request: '/v1/service-requests',
  quote: '/v1/quotes',
  job: '/v1/jobs',
  visit: '/v1/visits',
  visit_schedule: '/v1/visit-schedules',
  invoice: '/v1/invoices',
  recurring_invoice: '/v1/recurring-invoices',
  payment: '/v1/payments',
  credit_note: '/v1/credit-notes',
  team_member: '/v1/team-members',
  product: '/v1/products',
  tax_rate: '/v1/tax-rates',
  time_entry: '/v1/time-entries',
  availability_exception: '/v1/availability-exceptions',
  webhook_endpoint: '/v1/webhook-endpoints',
  api_key: '/v1/api-keys',
  custom_field: '/v1/custom-fields',
  tag: '/v1/tags',
};
const KINDS = Object.keys(CHANGE_KINDS);
const MAX_PAGE = 1000;

export const ChangeSchema = Type.Object(
  {
    object: Type.Literal('change', { description: 'Always "change".' }),
    kind: Type.String({ enum: KINDS, description: 'The kind of the object that changed.', example: 'client' }),
    id: Type.String({ format: 'uuid', description: 'The object’s id.' }),
    deleted: Type.Boolean({ description: 'Whether its latest change deleted it.' }),
    changed_at: { ...TimestampSchema, description: 'When its latest change was made.' },
    data: Type.Unknown({ description: 'The object as its GET answers it; null once deleted.' }),
  },
  { $id: 'Change', description: 'An object changed after the cursor, at its latest change (§26).' },
);

const ListChangesQuery = Type.Object(
  {
    kinds: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Comma-separated kinds (default: every kind the key can read).',
        example: 'client,invoice',
        'x-comma-list': { type: 'string', enum: KINDS },
      }),
    ),
    since: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The `next_cursor` of an earlier page; absent: from the start.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The same as `since`, as §5’s lists follow `next_cursor` (the SDKs’ iterators do): give one of the two.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 100, description: '1–1,000.' })),
  },
  { additionalProperties: false },
);

interface Cursor {
  /** The last position read. */
  p: number;
  /** When the cursor was given (ms): past the retention, its deletions may be gone. */
  t: number;
}

const encode = encodeChangeCursor;

function decode(text: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (Number.isSafeInteger(value.p) && value.p >= 0 && Number.isSafeInteger(value.t)) return value;
  } catch {}
  throw fieldError('since', 'is not a cursor this feed gave (use meta.pagination.next_cursor)');
}

export const changeRoutes =
  (options: { retentionDays: number }): FastifyPluginAsyncTypebox =>
  async (app) => {
    /** The read scope of each kind, from its route. */
    const scopeOf = (kind: string) =>
      app.routeTable.routes.find((route) => route.method === 'GET' && route.url === `${CHANGE_KINDS[kind]}/:id`)?.scope;

    /** The objects of a page as their GETs answer them, read as the caller (no scope, no token: checked above). */
    const objectsOf = (request: FastifyRequest, entries: Array<{ kind: string; object_id: string }>) => {
      const dispatch = selfDispatch(request);
      return runAsOperation({ pass: 'read', actor: 'api_key' }, () =>
        Promise.all(
          entries.map(async (entry) => {
            const answer = await dispatch({ method: 'GET', path: `${CHANGE_KINDS[entry.kind]}/${entry.object_id}` });
            return answer.status === 200 ? ((answer.body as { data?: unknown }).data ?? null) : null;
          }),
        ),
      );
    };

    app.get(
      '/v1/changes',
      {
        // Each kind's read scope, checked by the handler (§26).
        config: { authenticated: true },
        schema: {
          tags: ['Change sets'],
          operationId: 'listChanges',
          summary: 'The change feed: objects changed after a cursor, in commit order',
          description:
            'An entry per object changed after `since`, at its latest change, in commit order; deleted objects too (kept 90 days). `meta.pagination.next_cursor` is given even on an empty page: keep it and ask again. A cursor is a position, never a time: changes sharing a millisecond all come, and a transaction that commits after a later one is not skipped.',
          querystring: ListChangesQuery,
          response: {
            200: listEnvelope(schemaRef(ChangeSchema)),
            ...errorResponses('VALIDATION_ERROR', 'INSUFFICIENT_SCOPE'),
          },
        },
      },
      async (request) => {
        const query = request.query as { kinds?: string; since?: string; cursor?: string; limit?: number };
        if (query.since !== undefined && query.cursor !== undefined)
          throw fieldError('cursor', 'give since or cursor, not both: they are the same');
        const since = query.since ?? query.cursor;
        const caller = auth(request);
        const asked = query.kinds?.split(',').map((kind) => kind.trim());
        const unknown = asked?.filter((kind) => !KINDS.includes(kind)) ?? [];
        if (unknown.length > 0) throw fieldError('kinds', `unknown kinds: ${unknown.join(', ')}`);
        const readable = (kind: string) => {
          const scope = scopeOf(kind);
          return scope !== undefined && caller.scopes.has(scope);
        };
        const refused = asked?.find((kind) => !readable(kind));
        if (refused !== undefined) throw insufficientScope(scopeOf(refused) ?? refused);
        const kinds = asked ?? KINDS.filter(readable);
        const now = app.clock.now().getTime();
        const cursor = since === undefined ? { p: 0, t: now } : decode(since);
        if (now - cursor.t > options.retentionDays * 86_400_000)
          throw new AppError('VALIDATION_ERROR', 'The cursor is older than the feed keeps deletions.', [
            {
              field: 'since',
              message: `since is older than ${options.retentionDays} days: its deletions may be gone; read the lists again and start a new feed`,
              reason: 'expired',
            } as never,
          ]);
        const limit = query.limit ?? 100;
        const ctx: Context = contextOf(request);
        await inTransaction(ctx, (tx) => sequenceChanges(tx.db, ctx.accountId, MAX_PAGE));
        const rows = await listChanges(ctx.db, ctx.accountId, cursor.p, kinds, limit);
        const page = rows.slice(0, limit);
        const objects = await objectsOf(
          request,
          page.filter((row) => row.deleted === 0),
        );
        let next = 0;
        const data = page.map((row) => {
          const deleted = row.deleted !== 0;
          return {
            object: 'change' as const,
            kind: row.kind,
            id: row.object_id,
            deleted,
            changed_at: new Date(row.changed_at).toISOString(),
            data: deleted ? null : objects[next++],
          };
        });
        const last = page.length === 0 ? undefined : Number(page[page.length - 1]!.position);
        const hasMore = rows.length > limit || (await hasPendingChanges(ctx.db, ctx.accountId));
        return {
          data,
          meta: {
            ...meta(request),
            pagination: { limit, has_more: hasMore, next_cursor: encode({ p: last ?? cursor.p, t: now }) },
          },
        };
      },
    );
  };
