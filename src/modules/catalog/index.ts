// The face of the catalog module (tax rates and products, docs/api-contract.md §19): what other modules, the
// workers and the composition may use. The rest is private.
export { parsePercentage, percentageNumber } from './percentages.js';
export { findProducts } from './products.repository.js';
export { getProduct, listProducts, presentProduct } from './products.service.js';
export { CreateProductBody, ProductSchema, type Product } from './products.schemas.js';
export { MAX_TAX_RATE_IDS, requireTaxRates, TaxRateIdsSchema } from './tax-rate-references.js';
export { findTaxRates } from './tax-rates.repository.js';
export { presentTaxRate } from './tax-rates.service.js';
export { TaxRateSchema, type TaxRate } from './tax-rates.schemas.js';
