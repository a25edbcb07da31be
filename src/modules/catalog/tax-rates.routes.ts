// Tax rate endpoints (docs/api-contract.md §19): the five standard operations, catalog:read / catalog:write.
import { resourceRoutes } from '../../http/resource-routes.js';
import { CreateTaxRateBody, ListTaxRatesQuery, TaxRateSchema, UpdateTaxRateBody } from './tax-rates.schemas.js';
import * as service from './tax-rates.service.js';

export const taxRateRoutes = resourceRoutes({
  path: '/v1/tax-rates',
  names: ['tax rate', 'tax rates'],
  scopes: { read: 'catalog:read', write: 'catalog:write', delete: 'catalog:write' },
  schemas: { item: TaxRateSchema, create: CreateTaxRateBody, update: UpdateTaxRateBody, list: ListTaxRatesQuery },
  stateErrors: ['INVALID_STATE', 'CONFLICT'],
  fieldChecks: service.taxRateFieldChecks,
  service: {
    list: service.listTaxRates,
    present: service.presentTaxRate,
    create: service.createTaxRate,
    get: service.getTaxRate,
    update: service.updateTaxRate,
    delete: service.deleteTaxRate,
  },
});
