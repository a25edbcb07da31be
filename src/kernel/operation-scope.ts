// The operations of a change set (docs/api-contract.md §26) run through each route's own code, as requests the
// change set makes to the app itself. This scope is what those requests carry that no request from outside
// can: the change set's open transaction, its origin for the events, and which pass it is in. Only the change
// set's runner enters it (`runAsOperation`); a request from the network never has one.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from '../db/index.js';
import type { AuthContext } from './auth-context.js';

/** Where a change came from, when not a single request: every event records it (`origin`, §26). */
export interface Origin {
  readonly type: 'change_set' | 'import';
  readonly id: string;
}

export interface OperationScope {
  /**
   * `check`: authentication, scopes (link scopes included) and the body's schema, then stop before the handler;
   * `run`: the route's code, in `db`; `read`: a GET for a dry run's `previous_attributes`, without a scope.
   */
  readonly pass: 'check' | 'run' | 'read';
  /** The change set's transaction (absent in the check pass, which touches nothing). */
  readonly db?: Executor;
  /** The change set's (absent for the change feed's reads). */
  readonly origin?: Origin;
  /** Who acts in the operations: the set's own caller, over /v1 (`api_key`) or through the MCP server (`mcp`). */
  readonly actor: 'api_key' | 'mcp';
  /**
   * Who the operation acts as when no request carries a key: an import's rows, written by the imports worker
   * with the scopes its creator held (docs/api-contract.md §26). A change set's operations carry the key instead.
   */
  readonly auth?: AuthContext;
  /**
   * An export's (modules/exports): a list's route called in this scope reads its first page, then hands it over
   * with its page reader instead of answering it (http/pagination.ts `answerList`), and the export reads the
   * next pages through the same code, each object's JSON as the list answers it.
   */
  readonly pages?: (first: ListPage, read: (cursor: string) => Promise<ListPage>) => void;
}

/** A page of a list as an export reads it: each object's JSON, and the cursor after them (null: the last). */
export interface ListPage {
  readonly data: readonly string[];
  readonly nextCursor: string | null;
}

const storage = new AsyncLocalStorage<OperationScope>();

/** The scope of the operation this code runs for, if it runs for one. */
export function currentOperation(): OperationScope | undefined {
  return storage.getStore();
}

export function runAsOperation<T>(scope: OperationScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}
