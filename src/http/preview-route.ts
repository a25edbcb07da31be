// `POST /v1/quotes/preview`, `POST /v1/invoices/preview` (docs/api-contract.md §19): the create body, answered
// 200 with the document as the create would store it; nothing stored, no number used, no event.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { contextOf, requireScope } from './auth.js';
import { ok } from './envelope.js';
import { pascal } from './resource-definition.js';
import { BODY_ERRORS, dataEnvelope, errorResponses, schemaRef } from './schemas.js';
import type { ErrorCode } from '../core/errors.js';

export interface PreviewDefinition {
  path: string;
  /** Singular and plural names, e.g. ['quote', 'quotes']. */
  names: [string, string];
  scope: Scope;
  item: TSchema & { $id?: string };
  body: TSchema;
  /** Body fields that name a second resource the preview reads, and the scope that takes. */
  linkScopes: Record<string, Scope>;
  errors: ErrorCode[];
  /** The create's field and reference checks: a 422 names every wrong field, as the create's does. */
  fieldChecks?: FastifyContextConfig['fieldChecks'];
  referenceChecks?: FastifyContextConfig['referenceChecks'];
  preview(ctx: Context, body: unknown): Promise<unknown>;
}

export function previewRoute(definition: PreviewDefinition): FastifyPluginAsyncTypebox {
  const [singular, plural] = definition.names;
  return async (app) => {
    app.post(
      `${definition.path}/preview`,
      {
        config: {
          scope: definition.scope,
          ownTransaction: true,
          ...(definition.fieldChecks ? { fieldChecks: definition.fieldChecks } : {}),
          ...(definition.referenceChecks ? { referenceChecks: definition.referenceChecks } : {}),
        },
        schema: {
          tags: [plural.charAt(0).toUpperCase() + plural.slice(1)],
          operationId: `preview${pascal(singular)}`,
          summary: `Preview ${singular === 'invoice' ? 'an' : 'a'} ${singular}: its figures, nothing stored`,
          description: `The body of POST ${definition.path}, answered with the ${singular} exactly as the create would store it (every line, tax and total), so that no client computes totals itself. Nothing is stored, no number is used and no event is recorded; the answer's id names nothing.`,
          body: definition.body,
          response: {
            200: dataEnvelope(schemaRef(definition.item)),
            ...errorResponses(...BODY_ERRORS, ...definition.errors),
          },
        },
      },
      async (request) => {
        for (const [field, scope] of Object.entries(definition.linkScopes)) {
          if ((request.body as Record<string, unknown>)[field] !== undefined) requireScope(request, scope);
        }
        return ok(request, await definition.preview(contextOf(request), request.body));
      },
    );
  };
}
