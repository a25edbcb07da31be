// The entry point: `new BmsClient({ apiKey, baseUrl })` (or `new BmsClient()` with BMS_API_KEY and
// BMS_BASE_URL set), with one property per resource. The API key lives in a private field of the
// transport: `console.log(client)` and `JSON.stringify(client)` show the address, never the key.
import { Resources } from './generated.js';
import { Transport, type BmsClientOptions } from './transport.js';

export class BmsClient extends Resources {
  readonly #transport: Transport;

  constructor(options: BmsClientOptions = {}) {
    const transport = new Transport(options);
    super(transport);
    this.#transport = transport;
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
