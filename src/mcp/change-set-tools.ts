// The MCP tool of change sets (docs/api-contract.md §26): several REST operations at once, all or none, so an
// assistant that makes a client, its property and a quote never leaves half a job. A set that sends something
// or moves money takes the two-call confirmation of §20; any other set acts as a write.
import { applyChangeSet, CreateChangeSetBody } from '../modules/change-sets/index.js';
import { type Args, objectSchema, quoted, type Tool } from './tool-kit.js';

interface OperationArgs {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

/** Paths that contact a customer or move money: sends, payments, refunds, applications, and issuing a credit note. */
const SENDS_OR_MOVES_MONEY = /\/(send|refund|apply|unapply|payments)(\?|\/|$)|^\/v1\/payments(\?|\/|$)/;

function sendsOrMovesMoney(operation: OperationArgs): boolean {
  if (SENDS_OR_MOVES_MONEY.test(operation.path)) return true;
  const status = operation.body?.status;
  return operation.path.startsWith('/v1/credit-notes/') && (status === 'issued' || status === 'void');
}

const operationsOf = (args: Args): OperationArgs[] =>
  Array.isArray(args.operations) ? (args.operations as OperationArgs[]) : [];

export const CHANGE_SET_TOOLS: Tool[] = [
  {
    name: 'apply_change_set',
    title: 'Apply several changes at once, all or none',
    description:
      'Runs 1–50 REST operations ({method: POST | PUT | DELETE, path: "/v1/…", body?, if_match?}) in order in one transaction: all are made or none. "$ref:<j>" in a path segment or an id field (client_id, property_id, …) is the id operation j answered, so a client, its property and a quote take one call. Answers each operation’s result. When an operation sends something or moves money, it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    kind: 'confirm',
    visibleTo: (scopes) => [...scopes].some((scope) => scope.endsWith(':write')),
    confirmWhen: (args) => operationsOf(args).some(sendsOrMovesMoney),
    input: objectSchema(CreateChangeSetBody, { omit: ['dry_run'] }),
    run: (ctx, args, call) => applyChangeSet(ctx, { operations: operationsOf(args) as never }, call.dispatch),
    describes: async () => [],
    summary(args) {
      const operations = operationsOf(args);
      const named = operations.map((operation) => `${operation.method} ${quoted(operation.path)}`).join(', ');
      const moving = operations.filter(sendsOrMovesMoney).map((operation) => quoted(operation.path));
      return `Apply ${operations.length} operation${operations.length === 1 ? '' : 's'} together (${named}); ${moving.join(', ')} ${moving.length === 1 ? 'sends something or moves money' : 'send something or move money'}.`;
    },
  },
];
