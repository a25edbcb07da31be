// Ledger shapes (docs/api-contract.md §22): an append-only entry per move of a client's money, and the client's
// balance per currency.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, Nullable, TimestampSchema } from '../../kernel/fields.js';
import { CurrencySchema, DateSchema, idFilter } from '../documents/index.js';
import { ActorSchema } from '../events/index.js';

/** The closed list of entry types (docs/api-contract.md §22, "Types"). */
export const LEDGER_ENTRY_TYPES = [
  'invoice_issued',
  'invoice_adjusted',
  'late_fee',
  'invoice_voided',
  'payment_received',
  'payment_refunded',
  'credit_note_issued',
  'credit_note_voided',
  'credit_note_refunded',
  'applied',
  'unapplied',
] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

/** The types that change a document's figures: an invoice's sum to its total (0 once void). */
export const INVOICE_DOCUMENT_TYPES: readonly LedgerEntryType[] = [
  'invoice_issued',
  'invoice_adjusted',
  'late_fee',
  'invoice_voided',
];

const reference = (description: string) => Nullable({ ...IdSchema, description });
const money = (description: string, example: number) => Type.Integer({ description, example });
const optionalMoney = (description: string, example: number) => Nullable(Type.Integer({ description, example }));

export const LedgerTaxSchema = Type.Object({
  tax_rate_id: Nullable({ ...IdSchema, description: 'The rate (null for a version-1 `tax_rate`).' }),
  name: Nullable(Type.String({ description: 'The rate’s printed name.', example: 'GST' })),
  percentage: Nullable(Type.Number({ description: 'The rate, in percent.', example: 5 })),
  taxable_amount: money('What the rate was applied to, in minor units.', 10000),
  tax_amount: money('The tax, in minor units.', 500),
});

export const LedgerEntrySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('ledger_entry', { description: 'Always "ledger_entry".' }),
    sequence: Type.Integer({
      minimum: 1,
      description:
        'Counts from 1 per account without gaps, in commit order: whoever saw entry N saw every entry before it.',
      example: 42,
    }),
    client_id: IdSchema,
    currency: CurrencySchema,
    type: Type.Unsafe<LedgerEntryType>({
      type: 'string',
      enum: [...LEDGER_ENTRY_TYPES],
      description: 'What moved, from a closed list.',
      example: 'invoice_issued',
    }),
    effective_date: { ...DateSchema, description: 'The local date (in the account’s zone) the move counts on.' },
    amount: money('How this entry changes what the client owes: + owes more, − owes less. 0 for applications.', 10000),
    applied_amount: money('For applied (+) and unapplied (−) entries: the money moved onto or off the invoice.', 0),
    balance_amount: money('The running sum of amount per (client, currency), in sequence order.', 10000),
    invoice_id: reference('The invoice concerned.'),
    credit_note_id: reference('The credit note concerned.'),
    payment_id: reference('The payment concerned.'),
    refund_id: reference('The refund recorded.'),
    application_id: reference('The application made or released.'),
    due_date: Nullable({ ...DateSchema, description: 'The invoice’s due date, on invoice entries.' }),
    net_amount: optionalMoney('The change of the document’s net (before tax), on document entries.', 9524),
    tax_amount: optionalMoney('The change of the document’s tax, on document entries.', 476),
    cost_amount: optionalMoney('The change of the document’s internal cost, when known.', 0),
    taxes: Nullable(Type.Array(LedgerTaxSchema, { description: 'The change of each rate’s figures.' })),
    actor: ActorSchema,
    created_at: TimestampSchema,
    updated_at: { ...TimestampSchema, description: 'Always equal to created_at: an entry never changes.' },
  },
  {
    $id: 'LedgerEntry',
    description: 'One move of a client’s money, posted in the transaction of the change; never edited or removed.',
  },
);

export const ListLedgerEntriesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'sequence'] as const),
    client_id: idFilter('Only entries of this client.'),
    currency: Type.Optional(CurrencySchema),
    type: Type.Optional(
      Type.Unsafe<LedgerEntryType>({ type: 'string', enum: [...LEDGER_ENTRY_TYPES], description: 'Only this type.' }),
    ),
    invoice_id: idFilter('Only entries naming this invoice.'),
    credit_note_id: idFilter('Only entries naming this credit note.'),
    payment_id: idFilter('Only entries naming this payment.'),
    effective_from: Type.Optional({ ...DateSchema, description: 'Only entries effective on or after this date.' }),
    effective_to: Type.Optional({ ...DateSchema, description: 'Only entries effective on or before this date.' }),
    after_sequence: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Only entries after this sequence: with sort=sequence, a feed that never skips.',
        example: 41,
      }),
    ),
  },
  { additionalProperties: false },
);

export const CurrencyBalanceSchema = Type.Object({
  currency: CurrencySchema,
  receivable_amount: money('The sum of amount_due of the client’s sent invoices.', 12000),
  credit_amount: money(
    'The sum of amount_remaining of its issued credit notes and amount_unapplied of its payments.',
    2000,
  ),
  balance_amount: money('receivable_amount − credit_amount; below 0 the business owes the client.', 10000),
});

export const ClientBalanceSchema = Type.Object(
  {
    object: Type.Literal('client_balance', { description: 'Always "client_balance".' }),
    client_id: IdSchema,
    ledger_sequence: Type.Integer({
      minimum: 0,
      description: 'The account’s last ledger sequence when the balance was read (0 before any entry).',
      example: 42,
    }),
    balances: Type.Array(CurrencyBalanceSchema, { description: 'One row per currency the client has moved money in.' }),
  },
  { $id: 'ClientBalance', description: 'What a client owes, or is owed, per currency.' },
);

export type LedgerEntry = Static<typeof LedgerEntrySchema>;
export type ListLedgerEntriesInput = Static<typeof ListLedgerEntriesQuery>;
export type ClientBalance = Static<typeof ClientBalanceSchema>;
export type CurrencyBalance = Static<typeof CurrencyBalanceSchema>;
