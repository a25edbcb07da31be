// Attachment shapes (docs/api-contract.md §30): the single source of request validation, response serialization,
// types and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';
import { ActorSchema } from '../events/index.js';

export const PARENT_TYPES = ['client', 'property', 'service_request', 'quote', 'job', 'visit', 'invoice'] as const;
export type ParentType = (typeof PARENT_TYPES)[number];

export const ATTACHMENT_KINDS = ['upload', 'signature', 'einvoice'] as const;

const ParentTypeSchema = Type.Unsafe<ParentType>({
  type: 'string',
  enum: [...PARENT_TYPES],
  description: 'The kind of object the file is on.',
  example: 'job',
});

// No `single-line` format: a filename's controls are removed, not refused (docs/api-contract.md §30).
const FilenameSchema = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'The file’s name (at most 255 bytes of UTF-8): without a path or controls, with the detected extension added when its own differs.',
  example: 'before.jpg',
});

const CaptionSchema = Type.String({
  maxLength: 500,
  format: 'multi-line',
  description: 'What the file shows, for the crew or the client.',
  example: 'Before: the gutter above the porch.',
});

export const AttachmentSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('attachment', { description: 'Always "attachment".' }),
    parent_type: ParentTypeSchema,
    parent_id: { ...IdSchema, description: 'The object the file is on.' },
    kind: Type.Unsafe<(typeof ATTACHMENT_KINDS)[number]>({
      type: 'string',
      enum: [...ATTACHMENT_KINDS],
      description:
        'upload: a file sent to /v1/attachments; signature: a drawn signature’s image; einvoice: a frozen e-invoice. Only uploads change or go alone.',
      example: 'upload',
    }),
    filename: Type.String({ description: 'The file’s name as kept.', example: 'before.jpg' }),
    content_type: Type.String({
      description: 'The type detected from the bytes (never the declared one).',
      example: 'image/jpeg',
    }),
    size_bytes: Type.Integer({ description: 'The stored size in bytes.', example: 482133 }),
    sha256: Type.String({
      description: 'SHA-256 of the stored bytes (after location was removed), hex.',
      example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    }),
    visible_on_hub: Type.Boolean({ description: 'Listed on the client hub’s page of a quote or invoice.' }),
    caption: Nullable(Type.String({ description: 'What the file shows.', example: 'Before' })),
    location_removed: Type.Boolean({
      description: 'Whether location (Exif GPS, XMP exif:GPS*) was found and overwritten before storage.',
    }),
    created_by: ActorSchema,
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Attachment', description: 'A file on a client, property, request, quote, job, visit or invoice.' },
);

/** The upload's fields: the query of a raw upload, or the parts before `file` in multipart/form-data. */
export const UploadQuery = Type.Object(
  {
    parent_type: Type.Optional(ParentTypeSchema),
    parent_id: Type.Optional({ ...IdSchema, description: 'The object the file is on.' }),
    filename: Type.Optional({ ...FilenameSchema, description: 'The file’s name (a raw upload).' }),
  },
  { additionalProperties: false },
);

export const UploadFields = Type.Object(
  {
    parent_type: ParentTypeSchema,
    parent_id: { ...IdSchema, description: 'The object the file is on.' },
    filename: Type.Optional(FilenameSchema),
    visible_on_hub: Type.Optional(Type.Boolean({ description: 'List it on the client hub. Default false.' })),
    caption: Type.Optional(Nullable(CaptionSchema)),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const UpdateAttachmentBody = Type.Object(
  {
    filename: Type.Optional(FilenameSchema),
    caption: Type.Optional(Nullable(CaptionSchema)),
    visible_on_hub: Type.Optional(Type.Boolean({ description: 'List it on the client hub.' })),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const ListAttachmentsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    parent_type: ParentTypeSchema,
    parent_id: Type.Optional({ ...IdSchema, description: 'Only the files on this object.' }),
  },
  { additionalProperties: false },
);

export const ContentQuery = Type.Object(
  {
    disposition: Type.Optional(
      Type.Unsafe<'attachment' | 'inline'>({
        type: 'string',
        enum: ['attachment', 'inline'],
        description: 'inline is honoured for JPEG, PNG, GIF, WebP and PDF only; every other type is an attachment.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type Attachment = Static<typeof AttachmentSchema>;
export type UploadInput = Static<typeof UploadFields>;
export type UpdateAttachmentInput = Static<typeof UpdateAttachmentBody>;
export type ListAttachmentsInput = Static<typeof ListAttachmentsQuery>;
