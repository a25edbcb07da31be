// The e-invoicing identity of a party (docs/api-contract.md §31), as the business profile (seller) and clients
// (buyer) both have it: VAT id, legal registration, electronic address; the seller's payment account too.
// Stored as one JSON object per row (every key present), answered field by field beside the row's others.
import { Type, type Static } from '@sinclair/typebox';
import { type ErrorDetail } from '../../core/errors.js';
import { fromJson } from '../../db/index.js';
import { Nullable } from '../../kernel/fields.js';

export const VatIdSchema = Type.String({
  pattern: '^[A-Z]{2}[A-Z0-9]{2,28}$',
  description:
    'The VAT identifier with its country prefix (EL for Greece, XI for Northern Ireland) and 2–28 letters or digits, no spaces.',
  example: 'DE123456789',
});

export const RegistrationSchemeSchema = Type.String({
  pattern: '^[0-9]{4}$',
  description:
    'The ISO 6523 ICD of registration_id (0088 GLN, 0060 DUNS, 0002 SIRENE, 0208 Belgian enterprise number, …).',
  example: '0088',
});

export const ElectronicAddressSchema = Type.Object(
  {
    scheme: Type.String({
      pattern: '^([0-9]{4}|EM|AN|AQ|AS|AU)$',
      description: 'The Electronic Address Scheme code (EAS): 9930 German VAT, 0088 GLN, EM e-mail, …',
      example: '9930',
    }),
    value: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', example: 'DE123456789' }),
  },
  {
    additionalProperties: false,
    description: 'Where e-invoices are delivered electronically (BT-34, BT-49).',
    example: { scheme: '9930', value: 'DE123456789' },
  },
);

export const PaymentAccountSchema = Type.Object(
  {
    iban: Type.String({
      pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$',
      description: 'The IBAN, capitals and digits without spaces; its check digits must hold (mod 97).',
      example: 'DE89370400440532013000',
    }),
    bic: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$',
          description: 'The BIC (8 or 11 characters).',
          example: 'COBADEFFXXX',
        }),
      ),
    ),
    name: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: 200, description: 'The account’s name.', example: 'Cooper Plumbing' }),
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'The bank account payments are made to (BG-17), with payment means 58 (SEPA) in EUR, else 30.',
  },
);

export const PaymentAccountResponseSchema = Type.Object({
  iban: Type.String({ example: 'DE89370400440532013000' }),
  bic: Nullable(Type.String({ example: 'COBADEFFXXX' })),
  name: Nullable(Type.String({ example: 'Cooper Plumbing' })),
});

export const EinvoiceFormatSchema = Type.Unsafe<'ubl' | 'cii' | 'facturx'>({
  type: 'string',
  enum: ['ubl', 'cii', 'facturx'],
  description: 'ubl: UBL 2.1 Invoice; cii: UN/CEFACT CII D16B; facturx: a PDF/A-3 with the CII embedded.',
  example: 'ubl',
});
export type EinvoiceFormat = Static<typeof EinvoiceFormatSchema>;

export type ElectronicAddress = Static<typeof ElectronicAddressSchema>;
export type PaymentAccount = Static<typeof PaymentAccountResponseSchema>;

/** What either party holds; the seller's payment account and switch, the buyer's reference and format. */
export interface Einvoicing {
  vat_id: string | null;
  registration_id: string | null;
  registration_scheme: string | null;
  electronic_address: ElectronicAddress | null;
  payment_account: PaymentAccount | null;
  einvoicing_enabled: boolean;
  buyer_reference: string | null;
  einvoice_format: EinvoiceFormat | null;
}

const NONE: Einvoicing = {
  vat_id: null,
  registration_id: null,
  registration_scheme: null,
  electronic_address: null,
  payment_account: null,
  einvoicing_enabled: false,
  buyer_reference: null,
  einvoice_format: null,
};

export function readEinvoicing(stored: string | null | undefined): Einvoicing {
  if (stored === null || stored === undefined) return NONE;
  return { ...NONE, ...fromJson<Partial<Einvoicing>>(stored) };
}

export type EinvoicingInput = {
  [key in keyof Einvoicing]?:
    | (key extends 'payment_account' ? Static<typeof PaymentAccountSchema> : Einvoicing[key])
    | null;
};

/** The JSON to store after `input` changed `stored`, or undefined when the input names none of its fields. */
export function mergeEinvoicing(stored: string | null | undefined, input: EinvoicingInput): string | null | undefined {
  const keys = (Object.keys(NONE) as Array<keyof Einvoicing>).filter((key) => input[key] !== undefined);
  if (keys.length === 0) return undefined;
  const next: Record<string, unknown> = { ...readEinvoicing(stored) };
  for (const key of keys) {
    const value = input[key];
    if (key === 'einvoicing_enabled') next[key] = value === true;
    else if (key === 'payment_account' && value !== null)
      next[key] = {
        iban: (value as PaymentAccount).iban,
        bic: (value as PaymentAccount).bic ?? null,
        name: (value as PaymentAccount).name ?? null,
      };
    else next[key] = value;
  }
  return JSON.stringify(next);
}

/** An IBAN's check digits hold: the rearranged number is 1 modulo 97 (ISO 13616). */
export function ibanHolds(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const code = character.charCodeAt(0);
    const digits = code >= 65 ? String(code - 55) : character;
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** What a schema cannot say about a party's fields: a registration id and scheme go together, the IBAN holds. */
export function einvoicingProblems(input: EinvoicingInput, stored: string | null | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const current = readEinvoicing(stored);
  const id = input.registration_id !== undefined ? input.registration_id : current.registration_id;
  const scheme = input.registration_scheme !== undefined ? input.registration_scheme : current.registration_scheme;
  if (scheme !== null && id === null)
    details.push({ field: 'registration_id', message: 'is required with registration_scheme' });
  const account = input.payment_account;
  if (account && !ibanHolds(account.iban))
    details.push({ field: 'payment_account.iban', message: 'is not a valid IBAN: its check digits do not hold' });
  return details;
}

export const registrationIdSchema = (description: string) =>
  Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description, example: '4000001123452' });
