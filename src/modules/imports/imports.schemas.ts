// The shapes of CSV imports (docs/api-contract.md §26, "Imports"): the import, its options and mapping, and a
// row of its report. One schema per shape: validation, answers and the OpenAPI document.
import { type Static, Type } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';

export const IMPORT_KINDS = ['client', 'property', 'product', 'invoice'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const IMPORT_STATUSES = [
  'awaiting_file',
  'queued',
  'validating',
  'running',
  'completed',
  'failed',
  'canceled',
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export const ROW_OUTCOMES = ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const;
export type RowOutcome = (typeof ROW_OUTCOMES)[number];

const KindSchema = Type.Unsafe<ImportKind>({
  type: 'string',
  enum: [...IMPORT_KINDS],
  description: 'What each row makes or updates: client, property, product, or invoice (a row per line).',
  example: 'client',
});

const StatusSchema = Type.Unsafe<ImportStatus>({
  type: 'string',
  enum: [...IMPORT_STATUSES],
  description:
    'awaiting_file → queued (file uploaded) → validating → running → completed | failed; canceled by `POST …/cancel`.',
  example: 'completed',
});

const MappingSchema = Type.Record(Type.String({ maxLength: 200 }), Nullable(Type.String({ maxLength: 200 })), {
  maxProperties: 200,
  description:
    'Column → field path (`name`, `address.city`, `line.quantity`, `client_external_id`), or null to ignore the column. Columns not named map to the writable field of the same name, or to `id`.',
  example: { 'Customer name': 'name', City: 'address.city', Internal: null },
});

export const ImportOptionsSchema = Type.Object(
  {
    delimiter: Type.Optional(
      Type.Unsafe<'comma' | 'semicolon' | 'tab'>({
        type: 'string',
        enum: ['comma', 'semicolon', 'tab'],
        default: 'comma',
        description: 'The cell separator.',
        example: 'comma',
      }),
    ),
    amounts: Type.Optional(
      Type.Unsafe<'minor_units' | 'decimal'>({
        type: 'string',
        enum: ['minor_units', 'decimal'],
        default: 'minor_units',
        description: '`_amount` cells as integer minor units (`12345`) or decimal text in the currency (`123.45`).',
        example: 'minor_units',
      }),
    ),
    empty_cells: Type.Optional(
      Type.Unsafe<'keep' | 'clear'>({
        type: 'string',
        enum: ['keep', 'clear'],
        default: 'keep',
        description: 'On an update, an empty cell keeps the field (`keep`) or sets it null (`clear`).',
        example: 'keep',
      }),
    ),
    on_error: Type.Optional(
      Type.Unsafe<'abort' | 'skip'>({
        type: 'string',
        enum: ['abort', 'skip'],
        default: 'abort',
        description: '`abort`: any failed row fails the import and nothing is written; `skip`: the other rows are.',
        example: 'abort',
      }),
    ),
    mark_sent: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Invoices: mark each one sent (no e-mail), as `PUT {status: "sent"}`.',
      }),
    ),
  },
  { additionalProperties: false, description: 'How the file is read and written.' },
);

export type ImportOptions = Required<Static<typeof ImportOptionsSchema>>;

export const DEFAULT_OPTIONS: ImportOptions = {
  delimiter: 'comma',
  amounts: 'minor_units',
  empty_cells: 'keep',
  on_error: 'abort',
  mark_sent: false,
};

const CountsSchema = Type.Object(
  {
    created: Type.Integer({ minimum: 0, example: 120 }),
    updated: Type.Integer({ minimum: 0, example: 3 }),
    unchanged: Type.Integer({ minimum: 0, example: 0 }),
    skipped: Type.Integer({ minimum: 0, example: 0 }),
    failed: Type.Integer({ minimum: 0, example: 1 }),
  },
  { description: 'Rows by outcome so far (an invoice with its lines is one row).' },
);

export type ImportCounts = Static<typeof CountsSchema>;

export const ImportSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('import', { description: 'Always "import".' }),
    kind: KindSchema,
    dry_run: Type.Boolean({ description: 'A dry run reports each row’s outcome and writes nothing.' }),
    mapping: MappingSchema,
    ignored_columns: Type.Array(Type.String(), {
      description: 'The file’s columns that map to no field, once the file is read.',
      example: ['Internal'],
    }),
    options: Type.Object(
      {
        delimiter: Type.String({ example: 'comma' }),
        amounts: Type.String({ example: 'minor_units' }),
        empty_cells: Type.String({ example: 'keep' }),
        on_error: Type.String({ example: 'abort' }),
        mark_sent: Type.Boolean(),
      },
      { description: 'How the file is read and written.' },
    ),
    status: StatusSchema,
    rows: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'Rows in the file; while validating, the rows checked so far (null until the first 500 are, or the file is read).',
        example: 124,
      }),
    ),
    counts: CountsSchema,
    error: Nullable(
      Type.Object(
        {
          code: Type.String({ example: 'rows_failed' }),
          message: Type.String({ example: '1 row failed; nothing was written (on_error: abort).' }),
        },
        { description: 'Why the import failed.' },
      ),
    ),
    created_by: Type.Object(
      {
        type: Type.String({ description: 'api_key, mcp or app.', example: 'api_key' }),
        id: Nullable({ ...IdSchema, description: 'The key (or install) that made it.' }),
      },
      { description: 'Who made the import; its rows’ events name the same actor.' },
    ),
    started_at: Nullable({ ...TimestampSchema, description: 'When the worker began reading the file.' }),
    finished_at: Nullable({ ...TimestampSchema, description: 'When it ended (completed, failed or canceled).' }),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Import', description: 'A CSV import of clients, properties, products or invoices (§26).' },
);

export type Import = Static<typeof ImportSchema>;

export const CreateImportBody = Type.Object(
  {
    kind: KindSchema,
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Report each row’s outcome, write nothing.' })),
    mapping: Type.Optional(MappingSchema),
    options: Type.Optional(ImportOptionsSchema),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);
export type CreateImportInput = Static<typeof CreateImportBody>;

/** The body of an action that takes none: absent, or an empty object. */
export const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body is needed.',
});

export const ListImportsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    status: Type.Optional(
      Type.String({
        description: 'Comma-separated statuses.',
        example: 'running,queued',
        'x-comma-list': { type: 'string', enum: [...IMPORT_STATUSES] },
      }),
    ),
    kind: Type.Optional(KindSchema),
  },
  { additionalProperties: false },
);
export type ListImportsInput = Static<typeof ListImportsQuery>;

export const RowErrorSchema = Type.Object({
  field: Type.String({ description: 'The column’s field path, or `row`.', example: 'email' }),
  code: Type.String({ description: 'The API’s error code for it.', example: 'VALIDATION_ERROR' }),
  message: Type.String({ example: 'email must be an e-mail address' }),
});
export type RowError = Static<typeof RowErrorSchema>;

export const ImportRowSchema = Type.Object(
  {
    object: Type.Literal('import_row', { description: 'Always "import_row".' }),
    line: Type.Integer({ minimum: 2, description: 'The row’s first CSV record (the header is 1).', example: 2 }),
    outcome: Type.Unsafe<RowOutcome>({ type: 'string', enum: [...ROW_OUTCOMES], example: 'created' }),
    object_id: Nullable({ ...IdSchema, description: 'The object made or updated (null when none).' }),
    external_id: Nullable(Type.String({ description: 'The row’s external_id.', example: 'CRM-1042' })),
    changed_fields: Type.Array(Type.String(), {
      description: 'The fields an update changed.',
      example: ['email'],
    }),
    errors: Type.Array(RowErrorSchema, { description: 'Why the row failed.' }),
  },
  { $id: 'ImportRow', description: 'A row of an import’s report.' },
);
export type ImportRowReport = Static<typeof ImportRowSchema>;

export const ListImportRowsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: '1–100.' })),
    cursor: Type.Optional(Type.String({ maxLength: 100, description: 'The `next_cursor` of the previous page.' })),
    outcome: Type.Optional(
      Type.String({
        description: 'Comma-separated outcomes.',
        example: 'failed',
        'x-comma-list': { type: 'string', enum: [...ROW_OUTCOMES] },
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListImportRowsInput = Static<typeof ListImportRowsQuery>;
