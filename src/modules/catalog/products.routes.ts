// Product endpoints (docs/api-contract.md §19): the five standard operations, catalog:read / catalog:write.
import { customFieldSeam } from '../custom-fields/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { CreateProductBody, ListProductsQuery, ProductSchema, UpdateProductBody } from './products.schemas.js';
import * as service from './products.service.js';

export const productRoutes = resourceRoutes({
  path: '/v1/products',
  names: ['product', 'products'],
  scopes: { read: 'catalog:read', write: 'catalog:write', delete: 'catalog:write' },
  schemas: { item: ProductSchema, create: CreateProductBody, update: UpdateProductBody, list: ListProductsQuery },
  stateErrors: ['CONFLICT'],
  fieldChecks: service.productFieldChecks,
  customFields: customFieldSeam('product'),
  service: {
    list: service.listProducts,
    present: service.presentProduct,
    create: service.createProduct,
    get: service.getProduct,
    update: service.updateProduct,
    delete: service.deleteProduct,
  },
});
