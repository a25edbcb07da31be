// The MCP tools that change an object's custom fields (docs/api-contract.md §27): one for each kind an agent can
// create, carrying the account's fields of that kind in its input schema at every tools/list (server.ts), merged
// as a PUT merges them and checked by the same code as the API's (the kind's update: its 422 names
// `custom_fields.<key>`).
import type { CustomFieldResource } from '../modules/custom-fields/index.js';
import { updateClient } from '../modules/clients/index.js';
import { updateInvoice } from '../modules/invoices/index.js';
import { updateJob } from '../modules/jobs/index.js';
import { updateQuote } from '../modules/quotes/index.js';
import { updateServiceRequest } from '../modules/service-requests/index.js';
import { updateVisit } from '../modules/visits/index.js';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { id, refsOf, type Tool } from './tool-kit.js';
import type { ObjectKind } from './versions.js';

type Update = (ctx: Context, id: string, input: { custom_fields: Record<string, unknown> }) => Promise<unknown>;

/** The tool that sets custom fields of one kind's objects. */
function customFieldsTool(kind: CustomFieldResource & ObjectKind, label: string, scope: Scope, update: Update): Tool {
  const idField = `${kind}_id`;
  return {
    name: `update_${kind}_custom_fields`,
    title: `Update a ${label}’s custom fields`,
    description: `Sets custom fields of a ${label}: only the keys given change, null clears one; the others stay. The fields, their types and allowed values are in the custom_fields argument's schema.`,
    scope,
    customFields: kind,
    customFieldsMerged: true,
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: {
        [idField]: id(`The ${label}’s id.`),
        custom_fields: { type: 'object', description: 'The values to set, by key (null clears one).' },
      },
      required: [idField, 'custom_fields'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      update(ctx, String(args[idField]), { custom_fields: args.custom_fields as Record<string, unknown> }),
    touches: (args) => refsOf(kind, args[idField]),
  };
}

export const CUSTOM_FIELD_TOOLS: Tool[] = [
  customFieldsTool('client', 'client', 'clients:write', (ctx, objectId, input) => updateClient(ctx, objectId, input)),
  customFieldsTool('quote', 'quote', 'quotes:write', (ctx, objectId, input) => updateQuote(ctx, objectId, input)),
  customFieldsTool('invoice', 'invoice', 'invoices:write', (ctx, objectId, input) =>
    updateInvoice(ctx, objectId, input),
  ),
  customFieldsTool('job', 'job', 'jobs:write', (ctx, objectId, input) => updateJob(ctx, objectId, input)),
  customFieldsTool('service_request', 'service request', 'requests:write', (ctx, objectId, input) =>
    updateServiceRequest(ctx, objectId, input),
  ),
  customFieldsTool('visit', 'visit', 'visits:write', (ctx, objectId, input) => updateVisit(ctx, objectId, input)),
];
