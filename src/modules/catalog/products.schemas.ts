// Product shapes (docs/api-contract.md §19): what a business sells, from which a line takes its description,
// price, quantity and taxes. The single source of validation, serialization, types and OpenAPI.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { Type, type Static } from '@sinclair/typebox';
import {
  CustomFieldValuesInputSchema,
  CustomFieldValuesSchema,
  externalIdFilter,
  ExternalIdSchema,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';
import { TaxRateIdsSchema } from './tax-rate-references.js';

export const PRODUCT_TYPES = ['service', 'material', 'fee'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

const AMOUNT_BOUND = 99_999_999_999_999;

const type = Type.Unsafe<ProductType>({
  type: 'string',
  enum: [...PRODUCT_TYPES],
  description: `What it is: ${PRODUCT_TYPES.join(', ')}.`,
  example: 'service',
});
const name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'The product’s name; a line’s description when the product has none.',
  example: 'Drain cleaning',
});
const description = Nullable(
  Type.String({
    maxLength: 2000,
    description: 'What a line made from the product says (else its name).',
    example: 'Drain cleaning, up to 1 hour',
  }),
);
const code = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The business’s own code (SKU), unique among the account’s active products.',
    example: 'SVC-DRAIN',
  }),
);
const unitAmount = Nullable(
  Type.Integer({
    minimum: -AMOUNT_BOUND,
    maximum: AMOUNT_BOUND,
    description: 'Price of one unit in minor units (cents); null: priced when used (the line must give it).',
    example: 14500,
  }),
);
const currency = Type.String({
  pattern: '^[A-Z]{3}$',
  format: 'currency',
  description: 'ISO 4217 code, upper case, of unit_amount and cost_amount. Default the account’s.',
  example: 'USD',
});
const unitLabel = Nullable(Type.String({ maxLength: 20, description: 'The unit, printed: "hour".', example: 'hour' }));
/** UN/ECE Recommendation 20 (and 21) codes: two or three capitals and digits (C62, HUR, KGM, MTR, X1A). */
export const UnitCodeSchema = Type.String({
  pattern: '^[A-Z0-9]{2,3}$',
  description:
    'The unit of quantity an e-invoice states (UN/ECE Recommendation 20 or 21: HUR hour, KGM kilogram, MTR metre, C62 one); a line made with the product takes it. null: none (an e-invoice says C62).',
  example: 'HUR',
});
const unitCode = Nullable(UnitCodeSchema);
const defaultQuantity = Type.Number({
  exclusiveMinimum: 0,
  maximum: 1_000_000,
  description: 'The quantity a line takes when it gives none; at most 3 decimals. Default 1.',
  example: 1,
});
const taxRateIds = Nullable(
  TaxRateIdsSchema(
    'The rates of lines made from the product (at most 5); null: the property’s or account’s defaults when taxable.',
  ),
);
const taxable = Type.Boolean({
  description: 'false: lines made from it carry no tax (unless they name their own rates). Default true.',
  example: true,
});
const costAmount = Nullable(
  Type.Integer({
    minimum: 0,
    maximum: AMOUNT_BOUND,
    description: 'What one unit costs the business, in minor units. Internal: never on a client-facing page.',
    example: 4000,
  }),
);
const durationMinutes = Nullable(
  Type.Integer({ minimum: 1, maximum: 44_640, description: 'The default length of a visit for it.', example: 60 }),
);
const active = Type.Boolean({
  description: 'Whether new lines may use it. Deactivate rather than delete a product that documents used.',
  example: true,
});

export const ProductSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('product', { description: 'Always "product".' }),
    type,
    name,
    description,
    code,
    unit_amount: unitAmount,
    currency,
    unit_label: unitLabel,
    unit_code: unitCode,
    default_quantity: defaultQuantity,
    tax_rate_ids: taxRateIds,
    taxable,
    cost_amount: costAmount,
    duration_minutes: durationMinutes,
    active,
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Product', description: 'A service, material or fee from the price list.' },
);

const writable = {
  description: Type.Optional(description),
  code: Type.Optional(code),
  unit_amount: Type.Optional(unitAmount),
  currency: Type.Optional(currency),
  unit_label: Type.Optional(unitLabel),
  unit_code: Type.Optional(unitCode),
  default_quantity: Type.Optional(defaultQuantity),
  tax_rate_ids: Type.Optional(taxRateIds),
  taxable: Type.Optional(taxable),
  cost_amount: Type.Optional(costAmount),
  duration_minutes: Type.Optional(durationMinutes),
  active: Type.Optional(active),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
};

export const CreateProductBody = Type.Object({ type, name, ...writable }, { additionalProperties: false });

export const UpdateProductBody = Type.Object(
  { type: Type.Optional(type), name: Type.Optional(name), ...writable },
  { additionalProperties: false },
);

export const ListProductsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'name'] as const),
    active: Type.Optional(Type.Boolean({ description: 'true: only active products; false: only inactive ones.' })),
    type: Type.Optional({ ...type, description: `Only products of this type: ${PRODUCT_TYPES.join(', ')}.` }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only the products with this code.' })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case-insensitive match anywhere in the name or code.',
        example: 'drain',
      }),
    ),
    external_id: externalIdFilter,
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Product = Static<typeof ProductSchema>;
export type CreateProductInput = Static<typeof CreateProductBody>;
export type UpdateProductInput = Static<typeof UpdateProductBody>;
export type ListProductsInput = Static<typeof ListProductsQuery>;
