// Change sets (docs/api-contract.md §26): up to 50 operations run in order in one transaction, each through its
// route's own code, answered together.
import { type Static, Type } from '@sinclair/typebox';
import { IdSchema } from '../../kernel/fields.js';

export const MAX_OPERATIONS = 50;

export const ChangeSetOperationSchema = Type.Object(
  {
    method: Type.Union([Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('DELETE')], {
      description: 'The operation’s HTTP method.',
      example: 'POST',
    }),
    path: Type.String({
      minLength: 4,
      maxLength: 2000,
      pattern: '^/v1/',
      description:
        'A /v1 route and its query, as a request would send it. A path segment may be "$ref:<j>": the id operation j (an earlier one, not a delete) answered.',
      example: '/v1/properties',
    }),
    body: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'The route’s own body. A field taking an id (`*_id`, items of `*_ids`) may be "$ref:<j>", the id an earlier operation answered.',
        example: { client_id: '$ref:0', address: { line1: '1 Main St', city: 'Springfield' } },
      }),
    ),
    if_match: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The If-Match header of the operation: its object’s ETag.',
        example: '"3f2a9c1e"',
      }),
    ),
  },
  { additionalProperties: false, description: 'One request of the set.' },
);

export const CreateChangeSetBody = Type.Object(
  {
    operations: Type.Array(ChangeSetOperationSchema, {
      minItems: 1,
      maxItems: MAX_OPERATIONS,
      description: '1 to 50 operations, run in order: all commit, or none.',
    }),
    dry_run: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: run the same transaction and answer what each operation would answer (objects, totals and numbers as they would be, updates with previous_attributes), then roll it all back: no row, number, event, e-mail or hosted link survives.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ChangeSetOperation = Static<typeof ChangeSetOperationSchema>;
export type CreateChangeSetInput = Static<typeof CreateChangeSetBody>;

export const ChangeSetResultSchema = Type.Object(
  {
    status: Type.Integer({ description: 'The status the route answered (201 for a create).', example: 201 }),
    location: Type.Optional(
      Type.String({
        description: 'The Location a create answered.',
        example: '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    etag: Type.Optional(Type.String({ description: 'The ETag the route answered.', example: '"3f2a9c1e"' })),
    data: Type.Unknown({ description: 'What the route answered as `data`: the object, or `{id, deleted}`.' }),
    previous_attributes: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'In a dry run, for an update: the changed fields’ values before it.',
      }),
    ),
  },
  { description: 'One operation’s answer.' },
);

export const ChangeSetSchema = Type.Object(
  {
    id: { ...IdSchema, description: 'The change set’s id: the `origin.id` of the events it recorded.' },
    object: Type.Literal('change_set', { description: 'Always "change_set".' }),
    dry_run: Type.Boolean({ description: 'Whether the set was rolled back after answering.' }),
    results: Type.Array(ChangeSetResultSchema, { description: 'One answer per operation, in order.' }),
  },
  { $id: 'ChangeSet', description: 'The answers of a change set’s operations, committed together (or a dry run).' },
);

export type ChangeSetResult = Static<typeof ChangeSetResultSchema>;
export type ChangeSet = Static<typeof ChangeSetSchema>;
