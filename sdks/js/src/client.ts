// The entry point: `new BmsClient({ apiKey, baseUrl })`, with one property per resource.
import { Resources } from './generated.js';
import { Transport, type BmsClientOptions } from './transport.js';

export class BmsClient extends Resources {
  constructor(options: BmsClientOptions) {
    super(new Transport(options));
  }
}
