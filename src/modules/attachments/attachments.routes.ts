// Attachment endpoints (docs/api-contract.md §30): list, get, update and delete as every resource has them; the
// upload, the one /v1 body that is not JSON (multipart/form-data, or the raw bytes with their own Content-Type),
// streamed to the store; and the download with headers that keep a browser from running anything. Every
// operation needs the parent's read scope besides its own.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { isUuid } from '../../core/deps.js';
import { AppError, type ErrorDetail, validationError } from '../../core/errors.js';
import { contextOf, requireScope } from '../../http/auth.js';
import { etagOfJson } from '../../http/etag.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  schemaRef,
} from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import type { Scope } from '../../kernel/scopes.js';
import { findAttachment } from './attachments.repository.js';
import {
  type Attachment,
  AttachmentSchema,
  ContentQuery,
  ListAttachmentsQuery,
  PARENT_TYPES,
  type ParentType,
  UpdateAttachmentBody,
  type UploadInput,
  UploadQuery,
} from './attachments.schemas.js';
import * as service from './attachments.service.js';
import { contentHeaders, parseRange } from './download.js';

/** The read scope of each parent kind (docs/api-contract.md §30). */
export const PARENT_SCOPES: Record<ParentType, Scope> = {
  client: 'clients:read',
  property: 'clients:read',
  service_request: 'requests:read',
  quote: 'quotes:read',
  job: 'jobs:read',
  visit: 'visits:read',
  invoice: 'invoices:read',
};

const isParentType = (value: unknown): value is ParentType =>
  typeof value === 'string' && (PARENT_TYPES as readonly string[]).includes(value);

/** The parent's read scope of the attachment an `:id` names (an unknown id is the route's own 404). */
async function requireParentScopeOfId(request: FastifyRequest): Promise<void> {
  const id = (request.params as { id?: string }).id;
  if (id === undefined || !isUuid(id) || !request.auth) return;
  const row = await findAttachment(request.server.db, request.auth.accountId, id);
  if (row && isParentType(row.parent_type)) requireScope(request, PARENT_SCOPES[row.parent_type]);
}

const resources = resourceRoutes({
  path: '/v1/attachments',
  names: ['attachment', 'attachments'],
  scopes: { read: 'attachments:read', write: 'attachments:write', delete: 'attachments:delete' },
  schemas: {
    item: AttachmentSchema,
    create: UpdateAttachmentBody,
    update: UpdateAttachmentBody,
    list: ListAttachmentsQuery,
  },
  stateErrors: ['INVALID_STATE'],
  service: {
    list: service.listAttachments,
    present: service.presentAttachment,
    get: service.getAttachment,
    update: service.updateAttachment,
    delete: service.deleteAttachment,
  },
});

/** A raw upload's body stream, by request (the content-type parser's payload). */
const uploads = new WeakMap<FastifyRequest, Readable>();

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The upload's fields as multipart's text parts carry them, checked: every wrong one named in one 422. */
function uploadFields(raw: Record<string, string>): UploadInput {
  const details: ErrorDetail[] = [];
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    switch (name) {
      case 'parent_type':
        if (!isParentType(value)) details.push({ field: name, message: `must be one of ${PARENT_TYPES.join(', ')}` });
        fields.parent_type = value;
        break;
      case 'parent_id':
        fields.parent_id = value;
        break;
      case 'filename':
        if (Buffer.byteLength(value) > 255 || value === '')
          details.push({ field: name, message: 'must be 1 to 255 bytes of UTF-8' });
        fields.filename = value;
        break;
      case 'visible_on_hub':
        if (value !== 'true' && value !== 'false') details.push({ field: name, message: 'must be true or false' });
        fields.visible_on_hub = value === 'true';
        break;
      case 'caption':
        if (value.length > 500) details.push({ field: name, message: 'must be at most 500 characters' });
        else if (CONTROL.test(value))
          details.push({ field: name, message: 'must not hold control characters (line feeds and tabs only)' });
        fields.caption = value === '' ? null : value;
        break;
      case 'metadata': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          details.push({ field: name, message: 'must be a JSON object (as text)' });
          break;
        }
        const entries =
          parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : undefined;
        if (
          !entries ||
          entries.length > 50 ||
          entries.some(([key, item]) => key.length > 40 || typeof item !== 'string' || item.length > 500)
        )
          details.push({
            field: name,
            message: 'must be an object of at most 50 string values (keys ≤ 40 characters, values ≤ 500)',
          });
        fields.metadata = parsed;
        break;
      }
      default:
        details.push({ field: name, message: 'is not a field of an upload' });
    }
  }
  if (fields.parent_type === undefined) details.push({ field: 'parent_type', message: 'is required' });
  if (fields.parent_id === undefined) details.push({ field: 'parent_id', message: 'is required' });
  if (details.length > 0) throw validationError(details);
  return fields as UploadInput;
}

const UPLOAD_DESCRIPTION = `Uploads a file onto a client, property, service request, quote, job, visit or invoice: the one /v1 body that is not JSON.

Send \`multipart/form-data\` with the fields \`parent_type\`, \`parent_id\` and optionally \`visible_on_hub\`, \`caption\`, \`metadata\` (JSON text) and \`filename\`, then one part \`file\`; or the raw bytes with their own \`Content-Type\` and \`?parent_type=…&parent_id=…&filename=…\` (\`application/json\` is 415).

The type is detected from the bytes: JPEG, PNG, GIF, WebP, HEIC/HEIF, PDF, MP4/QuickTime, and text declared as text/plain or text/csv. Anything else (HTML, SVG, XML, scripts, archives, executables) is 422 on \`file\`. Location (Exif GPS, XMP exif:GPS*) is overwritten in place before storage. At most ATTACHMENT_MAX_BYTES (25 MiB): 413, also mid-stream. Needs the parent's read scope too.`;

/**
 * The upload's body as the OpenAPI document states it, so that generators make an upload method: a multipart
 * form (the fields, then the binary `file`), or the file's own bytes with the fields in the query.
 */
const UPLOAD_BODY = {
  description: 'The file: a multipart form, or its raw bytes with its own Content-Type (never application/json).',
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['parent_type', 'parent_id', 'file'],
        properties: {
          parent_type: { type: 'string', enum: [...PARENT_TYPES], description: 'The kind of object the file is on.' },
          parent_id: { type: 'string', format: 'uuid', description: 'The object the file is on.' },
          visible_on_hub: { type: 'boolean', description: 'List it on the client hub (true or false). Default false.' },
          caption: { type: 'string', maxLength: 500, description: 'What the file shows.' },
          metadata: { type: 'string', description: 'A JSON object of up to 50 string values, as text.' },
          filename: { type: 'string', maxLength: 255, description: 'The name to keep (default: the part’s).' },
          file: { type: 'string', format: 'binary', description: 'The file, after the other fields.' },
        },
      },
      encoding: { file: { contentType: 'application/octet-stream' } },
    },
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
  },
};

/** POST /v1/attachments, in a context of its own: its bodies are streams, never parsed as JSON. */
function uploadRoute(settings: service.AttachmentSettings): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.removeAllContentTypeParsers();
    await app.register(multipart, {
      limits: { fileSize: settings.maxBytes + 1, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
    });
    // Every other type is a raw upload: the body (after any preParsing step) is kept unread for the handler to
    // stream; `body` stays undefined, so nothing (the idempotency hash) walks the stream as an object.
    app.addContentTypeParser('*', (request, payload, done) => {
      uploads.set(request, payload);
      done(null, undefined);
    });
    app.post(
      '/v1/attachments',
      {
        config: { scope: 'attachments:write', ownTransaction: true, documentedBody: UPLOAD_BODY },
        preValidation: async (request) => {
          const parentType = (request.query as Record<string, unknown>).parent_type;
          if (isParentType(parentType)) requireScope(request, PARENT_SCOPES[parentType]);
        },
        schema: {
          tags: ['Attachments'],
          operationId: 'createAttachment',
          summary: 'Upload an attachment',
          description: UPLOAD_DESCRIPTION,
          headers: IdempotencyHeaders,
          querystring: UploadQuery,
          response: {
            201: dataEnvelope(schemaRef(AttachmentSchema)),
            ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS),
          },
        },
      },
      async (request, reply) => {
        const ctx = contextOf(request);
        const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
        // A body that will not fit is refused before a byte is read (a multipart body has its boundaries too).
        const length = Number(request.headers['content-length']);
        const overhead = contentType === 'multipart/form-data' ? 64 * 1024 : 0;
        if (Number.isFinite(length) && length > settings.maxBytes + overhead) {
          reply.header('connection', 'close');
          throw tooLarge(settings.maxBytes);
        }
        let attachment: Attachment;
        try {
          if (contentType === 'multipart/form-data') attachment = await multipartUpload(request, ctx, settings);
          else {
            if (contentType === 'application/json' || contentType === '')
              throw new AppError(
                'UNSUPPORTED_MEDIA_TYPE',
                'An upload is multipart/form-data, or the file’s own bytes with their Content-Type (image/jpeg, application/pdf, …), never application/json.',
              );
            const query = request.query as Record<string, string | undefined>;
            const fields = uploadFields(
              Object.fromEntries(
                Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
              ),
            );
            const body = uploads.get(request) ?? request.raw;
            attachment = await service.uploadAttachment(ctx, settings, fields, body, contentType);
          }
        } catch (error) {
          // The rest of a refused body is not read: the connection closes after the answer.
          if (!request.raw.readableEnded) reply.header('connection', 'close');
          throw error;
        }
        reply.code(201).header('location', `/v1/attachments/${attachment.id}`);
        reply.header('etag', etagOfJson(JSON.stringify(attachment)));
        return ok(request, attachment);
      },
    );
  };
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${maxBytes.toLocaleString('en-US')} bytes, the most an attachment may be (ATTACHMENT_MAX_BYTES).`,
  );
}

/** The fields, then the one part `file`, streamed as it arrives. */
async function multipartUpload(
  request: FastifyRequest,
  ctx: ReturnType<typeof contextOf>,
  settings: service.AttachmentSettings,
) {
  const raw: Record<string, string> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file')
        throw validationError([
          { field: part.fieldname, message: 'is not a field of an upload; the file goes in the part named file' },
        ]);
      if (raw.filename === undefined && part.filename) raw.filename = part.filename;
      const fields = uploadFields(raw);
      requireScope(request, PARENT_SCOPES[fields.parent_type]);
      return service.uploadAttachment(ctx, settings, fields, part.file as Readable, part.mimetype);
    }
    raw[part.fieldname] = String(part.value);
  }
  throw validationError([{ field: 'file', message: 'is required: the part named file, after the other fields' }]);
}

/** GET /v1/attachments/:id/content: the stored bytes, with headers that let no browser run them. */
function contentRoute(settings: service.AttachmentSettings): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/attachments/:id/content',
      {
        config: { scope: 'attachments:read' },
        preHandler: requireParentScopeOfId,
        schema: {
          tags: ['Attachments'],
          operationId: 'downloadAttachment',
          summary: 'Download an attachment’s bytes',
          description:
            "The stored bytes with Content-Disposition: attachment (inline on request for JPEG, PNG, GIF, WebP and PDF), X-Content-Type-Options: nosniff, Content-Security-Policy: default-src 'none' and Cache-Control: private, no-store. One byte range (Range) answers 206.",
          params: IdParamsSchema,
          querystring: ContentQuery,
          response: {
            200: {
              description: 'The file’s bytes.',
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
            206: {
              description: 'The asked range of the file’s bytes.',
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
            ...errorResponses('NOT_FOUND', 'RANGE_NOT_SATISFIABLE'),
          },
        },
        // After the app's own headers: an attachment's Cache-Control is its own (private, no-store).
        onSend: async (_request, reply, payload) => {
          reply.header('cache-control', 'private, no-store');
          return payload;
        },
      },
      async (request, reply) => {
        const row = await service.getAttachmentRow(contextOf(request), request.params.id);
        return sendContent(request, reply, settings, row, request.query.disposition);
      },
    );
  };
}

/** The bytes of `row` as an answer: whole, or the one range asked (206), or 416 for a range past the end. */
export async function sendContent(
  request: FastifyRequest,
  reply: FastifyReply,
  settings: service.AttachmentSettings,
  row: Parameters<typeof service.presentAttachment>[0],
  disposition: 'attachment' | 'inline' | undefined,
) {
  const size = Number(row.size_bytes);
  const range = parseRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    throw new AppError('RANGE_NOT_SATISFIABLE', `The range asked is not within the file's ${size} bytes.`, undefined, {
      'content-range': `bytes */${size}`,
    });
  }
  const stream = await service.openContent(settings.store, row, range);
  reply.headers(contentHeaders(row, disposition));
  if (range) {
    reply.code(206);
    reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
    reply.header('content-length', range.end - range.start + 1);
  } else reply.header('content-length', size);
  return reply.send(stream);
}

export function attachmentRoutes(settings: service.AttachmentSettings): FastifyPluginAsyncTypebox {
  return async (app) => {
    // The parent's read scope: for a list, from the query (checked before the query is validated, as scopes are);
    // for one attachment, from its row.
    app.addHook('preValidation', async (request) => {
      if (!request.auth) return;
      if (request.routeOptions.url === '/v1/attachments' && request.method === 'GET') {
        const parentType = (request.query as Record<string, unknown>).parent_type;
        if (isParentType(parentType)) requireScope(request, PARENT_SCOPES[parentType]);
      } else if (request.routeOptions.url === '/v1/attachments/:id') await requireParentScopeOfId(request);
    });
    await resources(app, {});
    await app.register(uploadRoute(settings));
    await app.register(contentRoute(settings));
  };
}
