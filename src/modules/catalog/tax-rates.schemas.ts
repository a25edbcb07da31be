// Tax rate shapes (docs/api-contract.md §19): a named, printed rate such as GST 5 % or QST 9.975 %; the single
// source of validation, serialization, types and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import {
  ExternalIdSchema,
  externalIdFilter,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';

const name = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '\\S',
  description: 'The name printed on documents, one tax row per rate.',
  example: 'GST',
});
const percentage = Type.Number({
  minimum: 0,
  maximum: 100,
  description: 'Percent, 0 to 100, at most 4 decimals (9.975). Frozen once used on a document that is not a draft.',
  example: 9.975,
});
const compound = Type.Boolean({
  description:
    'true: applied on the amount plus the line’s non-compound taxes (never on another compound rate). Default false. Frozen once used on a document that is not a draft.',
  example: false,
});
const priority = Type.Integer({
  minimum: 0,
  maximum: 9,
  description:
    'Order among the rates, lowest first (then creation order): of taxes on a line and rows of tax_breakdown. Default 0. Frozen once used on a document that is not a draft.',
  example: 0,
});
const registrationNumber = Nullable(
  Type.String({
    maxLength: 50,
    description: 'The business’s registration number for this tax, printed beside it.',
    example: '123456789 RT0001',
  }),
);
export const TAX_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export type TaxCategory = (typeof TAX_CATEGORIES)[number];
// The enum names null too: a JSON Schema enum is checked on its own, whatever `type` allows.
const taxCategory = Nullable(
  Type.Unsafe<TaxCategory>({
    type: 'string',
    enum: [...TAX_CATEGORIES, null],
    description:
      'The EN 16931 VAT category (UNCL 5305) an e-invoice states for the rate: S standard (above 0 %), Z zero-rated, E exempt, AE reverse charge, K intra-community supply, G export (all at 0 %), O outside the scope of VAT (0 %, printed without a rate). null (the default): none, and no e-invoice can use the rate. Frozen with the percentage.',
    example: 'S',
  }),
);
const exemptionReason = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 300,
    pattern: '\\S',
    description:
      'BT-120: why no VAT is charged, printed on e-invoices; E, AE, K, G and O need it or exemption_reason_code, S and Z take neither. Frozen with the percentage.',
    example: 'Reverse charge',
  }),
);
const exemptionReasonCode = Nullable(
  Type.String({
    pattern: '^VATEX-[A-Z]{2}(-[0-9A-Z]{1,20}){1,3}$',
    maxLength: 30,
    description:
      'BT-121: the VATEX code of the exemption (VATEX-EU-AE, VATEX-EU-IC, VATEX-EU-G, VATEX-EU-O, …). Frozen with the percentage.',
    example: 'VATEX-EU-AE',
  }),
);
const active = Type.Boolean({
  description: 'Whether new lines may take the rate. An inactive rate stays valid on the documents that have it.',
  example: true,
});

export const TaxRateSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('tax_rate', { description: 'Always "tax_rate".' }),
    name,
    percentage,
    compound,
    priority,
    registration_number: registrationNumber,
    tax_category: taxCategory,
    exemption_reason: exemptionReason,
    exemption_reason_code: exemptionReasonCode,
    active,
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'TaxRate', description: 'A named tax rate, printed on the documents that use it.' },
);

const writable = {
  compound: Type.Optional(compound),
  priority: Type.Optional(priority),
  registration_number: Type.Optional(registrationNumber),
  tax_category: Type.Optional(taxCategory),
  exemption_reason: Type.Optional(exemptionReason),
  exemption_reason_code: Type.Optional(exemptionReasonCode),
  active: Type.Optional(active),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateTaxRateBody = Type.Object({ name, percentage, ...writable }, { additionalProperties: false });

export const UpdateTaxRateBody = Type.Object(
  { name: Type.Optional(name), percentage: Type.Optional(percentage), ...writable },
  { additionalProperties: false },
);

export const ListTaxRatesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    active: Type.Optional(Type.Boolean({ description: 'true: only active rates; false: only inactive ones.' })),
    external_id: externalIdFilter,
  },
  { additionalProperties: false },
);

export type TaxRate = Static<typeof TaxRateSchema>;
export type CreateTaxRateInput = Static<typeof CreateTaxRateBody>;
export type UpdateTaxRateInput = Static<typeof UpdateTaxRateBody>;
export type ListTaxRatesInput = Static<typeof ListTaxRatesQuery>;
