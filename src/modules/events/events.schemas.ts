// Event shapes: what happened, to which object, and the object as it was after.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, Nullable, pageQueryProperties, TimestampSchema } from '../../kernel/fields.js';
import { EVENT_TYPES, type EventType } from '../../kernel/event-types.js';

const AnyObject = (description: string, example: Record<string, unknown>) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description, example });

export const EventDataSchema = Type.Object({
  object: AnyObject('The object exactly as GET returns it after the change (before it, for *.deleted).', {
    id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    object: 'quote',
    status: 'approved',
  }),
  previous_attributes: Type.Optional(
    AnyObject('For updates and status changes: the changed fields, with their values before the change.', {
      status: 'sent',
    }),
  ),
  source: Type.Optional(
    Type.Literal('hub', { description: 'Present when the client made the change on the hosted page.' }),
  ),
  truncated: Type.Optional(
    Type.Literal(true, {
      description:
        'Present when the whole event would exceed 64 KB: previous_attributes is left out, and if that is not enough, object holds only its id and object; GET the object for the rest.',
    }),
  ),
});

export const ACTOR_TYPES = ['api_key', 'mcp', 'hub', 'system', 'app'] as const;

export const ActorSchema = Type.Object(
  {
    type: Type.Unsafe<(typeof ACTOR_TYPES)[number]>({
      type: 'string',
      enum: [...ACTOR_TYPES],
      description:
        'api_key: a request to /v1; mcp: a tool call of the MCP server; hub: the client on the hosted page; system: the server’s own work (deliveries, disabled endpoints, the command line); app: a request to /v1 with an app’s token.',
      example: 'api_key',
    }),
    id: Nullable({
      ...IdSchema,
      description:
        'The API key’s id for api_key and mcp; the install’s id when an app’s token acted (app, or mcp); null for hub and system, and for events recorded before actors were (their key is unknown).',
    }),
    app_id: Type.Optional(
      Nullable({ ...IdSchema, description: 'The app whose token acted (docs/api-contract.md §25); null otherwise.' }),
    ),
  },
  { description: 'Who caused the event (docs/api-contract.md §20).' },
);

export const OriginSchema = Nullable(
  Type.Object(
    {
      type: Type.Unsafe<'change_set' | 'import'>({
        type: 'string',
        enum: ['change_set', 'import'],
        description: 'change_set: an operation of POST /v1/change-sets; import: a row of an import.',
        example: 'change_set',
      }),
      id: { ...IdSchema, description: 'The change set’s or the import’s id.' },
    },
    { description: 'The change set or import the change was part of; null for a single request (§26).' },
  ),
);

export const EventSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('event', { description: 'Always "event".' }),
    type: Type.Unsafe<EventType>({
      type: 'string',
      enum: [...EVENT_TYPES],
      description: 'What happened: <resource>.<what>, from a closed list.',
      example: 'quote.approved',
    }),
    created_at: TimestampSchema,
    account_id: { ...IdSchema, description: 'The account the event belongs to.' },
    actor: ActorSchema,
    origin: OriginSchema,
    data: EventDataSchema,
  },
  { $id: 'Event', description: 'Something that happened in the account. Kept at least 90 days.' },
);

export const ListEventsQuery = Type.Object(
  {
    ...pageQueryProperties,
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Comma-separated types; `invoice.*` matches every invoice event.',
        example: 'invoice.*,payment.created',
        'x-comma-list': {
          type: 'string',
          enum: [...EVENT_TYPES, ...new Set(EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`))],
        },
      }),
    ),
    resource_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only events about this object.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    actor_type: Type.Optional(
      Type.Unsafe<(typeof ACTOR_TYPES)[number]>({
        type: 'string',
        enum: [...ACTOR_TYPES],
        description: 'Only events caused by this kind of actor.',
        example: 'mcp',
      }),
    ),
    actor_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only events caused by this API key (over /v1 or through the MCP server), or this app install.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    app_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only events caused by this app’s tokens.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    origin_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only events recorded by this change set or import.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    created_after: Type.Optional({ ...TimestampSchema, description: 'Only events at or after this instant.' }),
    created_before: Type.Optional({ ...TimestampSchema, description: 'Only events before this instant.' }),
  },
  { additionalProperties: false },
);

export type Event = Static<typeof EventSchema>;
export type EventData = Static<typeof EventDataSchema>;
export type ListEventsInput = Static<typeof ListEventsQuery>;
