// Tag shapes (docs/api-contract.md §27): an object's `tags`, the tag itself (`/v1/tags`), and the list filters
// `tags_any` / `tags_all`. The single source of validation, serialization, types and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, TimestampSchema } from '../../kernel/fields.js';

/** The kinds that carry tags, as their objects name themselves. */
export const TAGGED_KINDS = ['client', 'property', 'quote', 'job', 'invoice', 'visit'] as const;
export type TaggedKind = (typeof TAGGED_KINDS)[number];

/** The most tags an object holds, and a filter names (docs/api-contract.md §32). */
export const MAX_TAGS = 20;
export const MAX_FILTER_TAGS = 10;

/** 1–50 characters, no comma, `|` or control character. */
export const TAG_PATTERN = '^[^,|\\u0000-\\u001f\\u007f-\\u009f]+$';

export const TagNameSchema = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: TAG_PATTERN,
  description: '1–50 characters, no comma, | or control character. Case-insensitive: the first spelling is kept.',
  example: 'VIP',
});

/** A write's tags: the list replaces the object's (PUT), or is added to them (POST …/tags). */
export const TagsInputSchema = Type.Array(TagNameSchema, {
  maxItems: MAX_TAGS,
  description:
    'The object’s tags (at most 20), case-insensitive: a tag the account has keeps its first spelling. A PUT replaces the list; POST /v1/<kind>/{id}/tags adds and DELETE /v1/<kind>/{id}/tags/{tag} removes one, so writers never overwrite each other.',
  example: ['VIP', 'North'],
});

/** An object's tags as answered, in the order they were given. */
export const TagsSchema = Type.Array(Type.String(), {
  description: 'The object’s tags, as the account spells them (GET /v1/tags lists them with their counts).',
  example: ['VIP', 'North'],
});

/** The list filters every tagged kind's list takes. */
export const tagFilterProperties = {
  tags_any: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 600,
      description: 'Objects holding any of these tags (comma-separated, at most 10, case-insensitive).',
      example: 'VIP,North',
    }),
  ),
  tags_all: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 600,
      description: 'Objects holding every one of these tags (comma-separated, at most 10, case-insensitive).',
      example: 'VIP,North',
    }),
  ),
};

const count = (kind: string) => Type.Integer({ minimum: 0, description: `How many ${kind} hold the tag.`, example: 3 });

export const TagSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('tag', { description: 'Always "tag".' }),
    name: Type.String({ description: 'Its spelling (the first, unless renamed).', example: 'VIP' }),
    counts: Type.Object(
      {
        client: count('clients'),
        property: count('properties'),
        quote: count('quotes'),
        job: count('jobs'),
        invoice: count('invoices'),
        visit: count('visits'),
      },
      { description: 'How many objects of each kind hold the tag.' },
    ),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Tag', description: 'A tag of the account: made by its first use, renamed or deleted everywhere at once.' },
);

export const ListTagsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'Tags whose name starts with this (any case).',
        example: 'vi',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateTagBody = Type.Object({ name: TagNameSchema }, { additionalProperties: false });

export const UpdateTagQuery = Type.Object(
  {
    merge: Type.Optional(
      Type.Boolean({
        description: 'true: a rename onto another tag’s name merges this tag into it (else 409 CONFLICT).',
        example: true,
      }),
    ),
  },
  { additionalProperties: false },
);

export const AddTagsBody = Type.Object(
  { tags: Type.Array(TagNameSchema, { minItems: 1, maxItems: MAX_TAGS, description: 'The tags to add.' }) },
  { additionalProperties: false },
);

export type Tag = Static<typeof TagSchema>;
export type ListTagsInput = Static<typeof ListTagsQuery>;
