// Client endpoints: the five standard operations. Deleting a client deletes what depends on it (its
// properties), which app.ts passes in: those modules stand above this one.
import { tagSeam } from '../tags/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { ClientSchema, CreateClientBody, ListClientsQuery, UpdateClientBody } from './clients.schemas.js';
import { customFieldChecks } from '../custom-fields/index.js';
import { keptClientJson } from './client-cache.js';
import * as service from './clients.service.js';

export const clientRoutes = (dependents: service.ClientDependents) =>
  resourceRoutes({
    path: '/v1/clients',
    names: ['client', 'clients'],
    scopes: { read: 'clients:read', write: 'clients:write', delete: 'clients:delete' },
    schemas: { item: ClientSchema, create: CreateClientBody, update: UpdateClientBody, list: ListClientsQuery },
    stateErrors: ['CONFLICT'],
    // The custom fields' checks need the account's definitions: they join a 422 as reference checks do.
    referenceChecks: { create: customFieldChecks('client', true), update: customFieldChecks('client', false) },
    // A client is its row alone (client-cache.ts): its JSON and ETag are kept with its kept copies.
    kept: keptClientJson,
    tags: tagSeam('client'),
    service: {
      list: service.listClients,
      present: service.presentClient,
      create: service.createClient,
      createMany: service.createClients,
      get: service.getClient,
      update: service.updateClient,
      delete: (ctx, id, precondition) => service.deleteClient(ctx, id, precondition, dependents),
    },
  });
