// The entry point: `new BmsClient({ apiKey, baseUrl })` (or `new BmsClient()` with BMS_API_KEY and
// BMS_BASE_URL set), with one property per resource. The API key lives in a private field of the
// transport: `console.log(client)` and `JSON.stringify(client)` show the address, never the key.
import { type Import, type ImportCreateParams, Resources } from './generated.js';
import { runtime } from './runtime.js';
import type { WithResponse } from './response.js';
import { Transport, type BmsClientOptions, type Parts, type RequestOptions } from './transport.js';
import * as webhooks from './webhooks.js';

export class BmsClient extends Resources {
  readonly #transport: Transport;
  /** `bms.webhooks.verify(payload, headers, secret)`: the same functions as the package's `webhooks`. */
  readonly webhooks: typeof webhooks = webhooks;

  constructor(options: BmsClientOptions = {}) {
    const transport = new Transport(options);
    super(transport);
    this.#transport = transport;
  }

  /**
   * Any request, for what the SDK has no method for yet (an endpoint newer than this version): `path` starts
   * with `/v1`; the answer's `data` is returned with `lastResponse`, with the same authentication, retries,
   * idempotency key and errors as every method. Type the answer yourself: `bms.request<Client>('GET', …)`.
   */
  request<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    parts: Parts = {},
    options?: RequestOptions,
  ): Promise<WithResponse<T>> {
    return this.#transport.request<T>(method, path, parts, options);
  }

  /**
   * Imports a CSV file and waits for it to end (contract §26): makes the import from `params` (`kind`, `dry_run`,
   * `mapping`, `options`), uploads `csv` as `text/csv`, then reads the import every `pollMs` (500) until it is
   * completed, failed or canceled, and answers it as it ended: `counts`, `error`, and its report through
   * `bms.imports.listRows(id)`. Past `timeoutMs` (10 minutes) it throws, leaving the import to go on.
   */
  async importCsv(
    params: ImportCreateParams,
    csv: string,
    wait: { pollMs?: number; timeoutMs?: number } = {},
  ): Promise<Import> {
    const made = await this.imports.create(params);
    const path = `/v1/imports/${made.id}`;
    await this.#transport.request('PUT', `${path}/file`, { text: { body: csv, contentType: 'text/csv' } });
    const deadline = Date.now() + (wait.timeoutMs ?? 600_000);
    for (;;) {
      const current = await this.imports.get(made.id);
      if (current.status === 'completed' || current.status === 'failed' || current.status === 'canceled')
        return current;
      if (Date.now() > deadline) throw new Error(`The import ${made.id} has not ended yet (status ${current.status}).`);
      await new Promise((resolve) => runtime.setTimeout(() => resolve(undefined), wait.pollMs ?? 500));
    }
  }

  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `BmsClient { baseUrl: '${this.baseUrl}' }`;
  }
}
