// The face of the clients module: what other modules, the workers and the composition may use. The rest is private.
export { ClientSchema, CreateClientBody } from './clients.schemas.js';
export {
  createClient,
  getClient,
  getClientRow,
  listClients,
  presentClient,
  requireClientReference,
  updateClient,
} from './clients.service.js';
