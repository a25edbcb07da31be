// The face of the clients module: what other modules, the workers and the composition may use. The rest is private.
export { ClientSchema } from './clients.schemas.js';
export { getClientRow, requireClientReference } from './clients.service.js';
