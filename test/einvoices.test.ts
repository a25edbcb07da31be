// E-invoices (contract §31): the new fields and their checks, GET …/einvoice in UBL and CII for invoices and
// credit notes with the worked figures written out below, each refusal BMS-EI-01…07 and the missing party data
// with their rule ids, and POST …/einvoice/validate. Every file this suite makes is checked against the XSD and
// the EN 16931 Schematron (CEN's validation-1.3.15), and CEN's own test instances are fixtures.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { renderHtml, renderText, type MailSnapshot } from '../src/mail/document-mail.js';
import { validateEinvoiceXml } from '../src/mail/einvoice-validation.js';
import type { OutgoingMail } from '../src/mail/transports.js';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { pdfText } from './helpers/smtp.js';
import { clientSuite } from './helpers/state-table.js';

// Validation and freezing run in the pool: on a busy test machine, give them time.
const suite = clientSuite('E-invoices', { PDF_RENDER_TIMEOUT_MS: '120000' });

const request = (method: string, path: string, body?: unknown, key = suite.key) =>
  suite.context.request(method, path, { key, ...(body === undefined ? {} : { body }) });
async function ok(method: string, path: string, body?: unknown, status = 200) {
  const response = await request(method, path, body);
  assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
  return response.body.data;
}

/** The findings of the XSD and the Schematron that are fatal: [] for a valid file. */
async function fatalFindings(xml: string, syntax: 'ubl' | 'cii') {
  return (await validateEinvoiceXml(xml, syntax))
    .filter((finding) => finding.severity === 'fatal')
    .map((finding) => `${finding.rule}: ${finding.message}`);
}

/** GETs the e-invoice, checks its headers, and validates it against the XSD and the Schematron. */
async function einvoice(path: string, format: 'ubl' | 'cii'): Promise<string> {
  const response = await request('GET', `${path}/einvoice?format=${format}`);
  assert.equal(response.status, 200, response.text);
  assert.match(String(response.headers['content-type']), /^application\/xml/);
  assert.match(String(response.headers['content-disposition']), /^attachment; filename="(INV|CN)-\d{6}\.xml"$/);
  assert.ok(response.headers.etag);
  const xml = response.raw.toString('utf8');
  assert.deepEqual(await fatalFindings(xml, format), [], xml);
  return xml;
}

async function refusedRules(path: string, format = 'ubl'): Promise<string[]> {
  const response = await request('GET', `${path}/einvoice?format=${format}`);
  assert.equal(response.status, 422, response.text);
  assert.equal(response.body.error.code, 'VALIDATION_ERROR');
  return response.body.error.details.map((detail: { rule: string }) => detail.rule);
}

const SELLER = {
  name: 'Müller Haustechnik',
  legal_name: 'Müller Haustechnik GmbH',
  email: 'buero@mueller-haustechnik.example',
  phone: '+49 30 1234567',
  currency: 'EUR',
  address: { line1: 'Lindenstraße 5', city: 'Berlin', postal_code: '10969', country: 'DE' },
  vat_id: 'DE123456789',
  registration_id: '4000001123452',
  registration_scheme: '0088',
  electronic_address: { scheme: '9930', value: 'DE123456789' },
  payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Müller Haustechnik GmbH' },
  payment_instructions: 'Bank transfer within 30 days, quoting the invoice number.',
};

let buyerId: string;
let vat19: string;
let vat7: string;

async function draftInvoice(lines: unknown[], extra: Record<string, unknown> = {}, clientId = buyerId) {
  return ok(
    'POST',
    '/v1/invoices',
    { client_id: clientId, currency: 'EUR', rounding: 'per_document', line_items: lines, ...extra },
    201,
  );
}
async function sentInvoice(lines: unknown[], extra: Record<string, unknown> = {}, clientId = buyerId) {
  const draft = await draftInvoice(lines, extra, clientId);
  return ok('PUT', `/v1/invoices/${draft.id}`, { status: 'sent' });
}

/** The worked example: 2 × 45.50 and 10.01 less 10 % at 19 %, 3 × 3.33 at 7 %. */
const workedLines = () => [
  { description: 'Boiler service', quantity: 2, unit_amount: 4550, tax_rate_ids: [vat19], unit_code: 'HUR' },
  {
    description: 'Spare part',
    quantity: 1,
    unit_amount: 1001,
    tax_rate_ids: [vat19],
    discount: { type: 'percent', value: 10 },
  },
  { description: 'Manual', quantity: 3, unit_amount: 333, tax_rate_ids: [vat7] },
];

/** The world of the file's tests, made once, after the suite's (a describe's before runs after the file's). */
let made: Promise<void> | undefined;
const world = () => (made ??= makeWorld());
async function makeWorld() {
  await ok('PUT', '/v1/account', SELLER);
  buyerId = (
    await ok(
      'POST',
      '/v1/clients',
      {
        name: 'Claire Dubois',
        company_name: 'Boulangerie Dubois SARL',
        email: 'claire@boulangerie-dubois.example',
        address: { line1: '12 rue des Lilas', city: 'Lyon', postal_code: '69003', country: 'FR' },
        vat_id: 'FR40303265045',
        buyer_reference: 'LEITWEG-991',
      },
      201,
    )
  ).id;
  vat19 = (await ok('POST', '/v1/tax-rates', { name: 'MwSt 19 %', percentage: 19, tax_category: 'S' }, 201)).id;
  vat7 = (await ok('POST', '/v1/tax-rates', { name: 'MwSt 7 %', percentage: 7, tax_category: 'S' }, 201)).id;
}

describe('the new fields (§31)', () => {
  before(world);
  test('the account, the client, the tax rate and the line answer them', async () => {
    const account = await ok('GET', '/v1/account');
    assert.deepEqual(
      [
        account.vat_id,
        account.registration_id,
        account.registration_scheme,
        account.electronic_address,
        account.payment_account,
        account.einvoicing_enabled,
      ],
      [
        'DE123456789',
        '4000001123452',
        '0088',
        { scheme: '9930', value: 'DE123456789' },
        { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Müller Haustechnik GmbH' },
        false,
      ],
    );
    const client = await ok('GET', `/v1/clients/${buyerId}`);
    assert.deepEqual(
      [client.vat_id, client.buyer_reference, client.einvoice_format, client.electronic_address],
      ['FR40303265045', 'LEITWEG-991', null, null],
    );
    const rate = await ok('GET', `/v1/tax-rates/${vat19}`);
    assert.deepEqual([rate.tax_category, rate.exemption_reason, rate.exemption_reason_code], ['S', null, null]);
    const invoice = await draftInvoice(workedLines(), { purchase_order: 'PO-4711' });
    assert.deepEqual(
      [
        invoice.buyer_reference,
        invoice.purchase_order,
        invoice.delivery_date,
        invoice.service_period,
        invoice.einvoice,
      ],
      ['LEITWEG-991', 'PO-4711', null, null, null],
    );
    assert.deepEqual(
      invoice.line_items.map((line: { unit_code: string | null }) => line.unit_code),
      ['HUR', null, null],
    );
  });

  test('an IBAN whose check digits fail, and a registration scheme without its id, are 422', async () => {
    const response = await request('PUT', '/v1/account', {
      payment_account: { iban: 'DE89370400440532013001' },
      registration_id: null,
    });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
      'payment_account.iban',
      'registration_id',
    ]);
    const vat = await request('PUT', '/v1/account', { vat_id: 'DE 123' });
    assert.equal(vat.status, 422);
  });

  test('a tax rate’s category, exemption and percentage must agree', async () => {
    const refused = [
      { name: 'S at 0', percentage: 0, tax_category: 'S' },
      { name: 'Z above 0', percentage: 5, tax_category: 'Z' },
      { name: 'E without reason', percentage: 0, tax_category: 'E' },
      { name: 'Z with reason', percentage: 0, tax_category: 'Z', exemption_reason: 'Zero' },
      { name: 'Reason alone', percentage: 0, exemption_reason: 'Exempt' },
    ];
    for (const body of refused) {
      const response = await request('POST', '/v1/tax-rates', body);
      assert.equal(response.status, 422, `${body.name}: ${response.text}`);
    }
    const exempt = await ok(
      'POST',
      '/v1/tax-rates',
      { name: 'Reverse charge', percentage: 0, tax_category: 'AE', exemption_reason_code: 'VATEX-EU-AE' },
      201,
    );
    assert.equal(exempt.exemption_reason_code, 'VATEX-EU-AE');
  });
});

describe('GET …/einvoice (§31)', () => {
  before(world);
  test('the worked example: 110.00 net, 19.00 at 19 % on 100.01 and 0.70 at 7 % on 9.99, 129.70 due', async () => {
    const invoice = await sentInvoice(workedLines(), { purchase_order: 'PO-4711' });
    assert.deepEqual(
      [invoice.subtotal_amount, invoice.tax_amount, invoice.total_amount, invoice.line_items[1].discount_amount],
      [11_000, 1_970, 12_970, 100],
    );
    const ubl = await einvoice(`/v1/invoices/${invoice.id}`, 'ubl');
    for (const fragment of [
      '<cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>',
      `<cbc:ID>${invoice.number}</cbc:ID>`,
      '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>',
      '<cbc:BuyerReference>LEITWEG-991</cbc:BuyerReference>',
      '<cbc:LineExtensionAmount currencyID="EUR">110.00</cbc:LineExtensionAmount>',
      '<cbc:TaxAmount currencyID="EUR">19.70</cbc:TaxAmount>',
      '<cbc:TaxableAmount currencyID="EUR">100.01</cbc:TaxableAmount>',
      '<cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount>',
      '<cbc:TaxableAmount currencyID="EUR">9.99</cbc:TaxableAmount>',
      '<cbc:TaxAmount currencyID="EUR">0.70</cbc:TaxAmount>',
      '<cbc:TaxInclusiveAmount currencyID="EUR">129.70</cbc:TaxInclusiveAmount>',
      '<cbc:PayableAmount currencyID="EUR">129.70</cbc:PayableAmount>',
      '<cbc:InvoicedQuantity unitCode="HUR">2</cbc:InvoicedQuantity>',
      '<cbc:InvoicedQuantity unitCode="C62">3</cbc:InvoicedQuantity>',
      '<cbc:Amount currencyID="EUR">1.00</cbc:Amount>',
      '<cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>',
      '<cbc:ID>DE89370400440532013000</cbc:ID>',
    ])
      assert.ok(ubl.includes(fragment), `${fragment} in\n${ubl}`);
    const cii = await einvoice(`/v1/invoices/${invoice.id}`, 'cii');
    for (const fragment of [
      '<ram:TypeCode>380</ram:TypeCode>',
      '<ram:LineTotalAmount>110.00</ram:LineTotalAmount>',
      '<ram:TaxTotalAmount currencyID="EUR">19.70</ram:TaxTotalAmount>',
      '<ram:GrandTotalAmount>129.70</ram:GrandTotalAmount>',
      '<ram:DuePayableAmount>129.70</ram:DuePayableAmount>',
      '<ram:BasisAmount>100.01</ram:BasisAmount>',
      '<ram:CalculatedAmount>19.00</ram:CalculatedAmount>',
    ])
      assert.ok(cii.includes(fragment), `${fragment} in\n${cii}`);
    // The same invoice gives the same bytes, and its ETag answers 304.
    const again = await request('GET', `/v1/invoices/${invoice.id}/einvoice?format=ubl`);
    assert.equal(again.raw.toString('utf8'), ubl);
    const unchanged = await suite.context.request('GET', `/v1/invoices/${invoice.id}/einvoice?format=ubl`, {
      key: suite.key,
      headers: { 'if-none-match': String(again.headers.etag) },
    });
    assert.equal(unchanged.status, 304);
  });

  test('a paid part is BT-113 and the rest BT-115; a discount line is a negated quantity and price', async () => {
    const invoice = await sentInvoice([
      { description: 'Heating repair', quantity: 1, unit_amount: 20_000, tax_rate_ids: [vat19] },
      { description: 'Goodwill', quantity: 1, unit_amount: -5_000, tax_rate_ids: [vat19] },
    ]);
    assert.deepEqual([invoice.subtotal_amount, invoice.tax_amount, invoice.total_amount], [15_000, 2_850, 17_850]);
    await ok('POST', '/v1/payments', { invoice_id: invoice.id, amount: 7_850, method: 'bank_transfer' }, 201);
    const ubl = await einvoice(`/v1/invoices/${invoice.id}`, 'ubl');
    for (const fragment of [
      '<cbc:PrepaidAmount currencyID="EUR">78.50</cbc:PrepaidAmount>',
      '<cbc:PayableAmount currencyID="EUR">100.00</cbc:PayableAmount>',
      '<cbc:InvoicedQuantity unitCode="C62">-1</cbc:InvoicedQuantity>',
      '<cbc:LineExtensionAmount currencyID="EUR">-50.00</cbc:LineExtensionAmount>',
      '<cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount>',
    ])
      assert.ok(ubl.includes(fragment), `${fragment} in\n${ubl}`);
    await einvoice(`/v1/invoices/${invoice.id}`, 'cii');
  });

  test('a draft is 409 INVALID_STATE; an unknown format 422', async () => {
    const draft = await draftInvoice(workedLines());
    const response = await request('GET', `/v1/invoices/${draft.id}/einvoice?format=ubl`);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'INVALID_STATE');
    assert.equal((await request('GET', `/v1/invoices/${draft.id}/einvoice?format=pdf`)).status, 422);
    assert.equal((await request('GET', `/v1/invoices/${draft.id}/einvoice`)).status, 422);
  });

  test('a credit note is a UBL CreditNote and a CII 381 citing its invoice', async () => {
    const invoice = await sentInvoice(workedLines());
    const note = await ok(
      'POST',
      '/v1/credit-notes',
      {
        invoice_id: invoice.id,
        reason: 'Spare part returned',
        rounding: 'per_document',
        line_items: [{ description: 'Spare part', quantity: 1, unit_amount: 901, tax_rate_ids: [vat19] }],
      },
      201,
    );
    const issued = await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.deepEqual([issued.subtotal_amount, issued.tax_amount, issued.total_amount], [901, 171, 1_072]);
    const ubl = await einvoice(`/v1/credit-notes/${note.id}`, 'ubl');
    for (const fragment of [
      'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
      '<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>',
      `<cbc:ID>${invoice.number}</cbc:ID>`,
      `<cbc:IssueDate>${invoice.issue_date}</cbc:IssueDate>`,
      '<cbc:CreditedQuantity unitCode="C62">1</cbc:CreditedQuantity>',
      '<cbc:PayableAmount currencyID="EUR">10.72</cbc:PayableAmount>',
    ])
      assert.ok(ubl.includes(fragment), `${fragment} in\n${ubl}`);
    assert.ok(!ubl.includes('PrepaidAmount'));
    const cii = await einvoice(`/v1/credit-notes/${note.id}`, 'cii');
    assert.ok(cii.includes('<ram:TypeCode>381</ram:TypeCode>'));
    assert.ok(cii.includes(`<ram:IssuerAssignedID>${invoice.number}</ram:IssuerAssignedID>`));
  });
});

describe('not e-invoices: the refusals (§31)', () => {
  before(world);
  test('BMS-EI-01: a line with no named rate, with version 1’s tax_rate, or with two rates', async () => {
    const invoice = await sentInvoice([
      { description: 'Untaxed', quantity: 1, unit_amount: 1_000, tax_rate_ids: [] },
      { description: 'Version 1', quantity: 1, unit_amount: 1_000, tax_rate: 19 },
      { description: 'Two rates', quantity: 1, unit_amount: 1_000, tax_rate_ids: [vat19, vat7] },
    ]);
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-01', 'BMS-EI-01', 'BMS-EI-01']);
  });

  test('BMS-EI-02: a compound rate', async () => {
    const compound = (
      await ok('POST', '/v1/tax-rates', { name: 'Compound', percentage: 5, compound: true, tax_category: 'S' }, 201)
    ).id;
    const invoice = await sentInvoice([
      { description: 'Compound', quantity: 1, unit_amount: 1_000, tax_rate_ids: [compound] },
    ]);
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-02']);
  });

  test('BMS-EI-03: a rate without tax_category', async () => {
    const plain = (await ok('POST', '/v1/tax-rates', { name: 'Plain', percentage: 19 }, 201)).id;
    const invoice = await sentInvoice([
      { description: 'Plain', quantity: 1, unit_amount: 1_000, tax_rate_ids: [plain] },
    ]);
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-03']);
  });

  test('BMS-EI-04: two rates of one category and percentage', async () => {
    const twin = (await ok('POST', '/v1/tax-rates', { name: 'MwSt twin', percentage: 19, tax_category: 'S' }, 201)).id;
    const invoice = await sentInvoice([
      { description: 'One', quantity: 1, unit_amount: 1_000, tax_rate_ids: [vat19] },
      { description: 'Two', quantity: 1, unit_amount: 1_000, tax_rate_ids: [twin] },
    ]);
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-04']);
  });

  test('BMS-EI-05: prices including tax (0.03 EUR at 19 % cannot split), and a credit note made by amount', async () => {
    const invoice = await sentInvoice([{ description: 'Gross', quantity: 1, unit_amount: 3, tax_rate_ids: [vat19] }], {
      prices_include_tax: true,
    });
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-05']);
    const source = await sentInvoice(workedLines());
    const note = await ok('POST', '/v1/credit-notes', { invoice_id: source.id, amount: 1_000 }, 201);
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.deepEqual(await refusedRules(`/v1/credit-notes/${note.id}`), ['BMS-EI-05']);
  });

  test('BMS-EI-06: a currency of three minor digits', async () => {
    const invoice = await sentInvoice(
      [{ description: 'Bahrain', quantity: 1, unit_amount: 1_000, tax_rate_ids: [vat19] }],
      { currency: 'BHD' },
    );
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BMS-EI-06']);
  });

  test('BMS-EI-07: per_line figures breaking BR-CO-17 (ten lines of 0.02 at 19 %: 0.00 per line, 0.04 per document)', async () => {
    const lines = Array.from({ length: 10 }, (_, index) => ({
      description: `Washer ${index + 1}`,
      quantity: 1,
      unit_amount: 2,
      tax_rate_ids: [vat19],
    }));
    const perLine = await sentInvoice(lines, { rounding: 'per_line' });
    assert.deepEqual([perLine.subtotal_amount, perLine.tax_amount], [20, 0]);
    assert.deepEqual(await refusedRules(`/v1/invoices/${perLine.id}`), ['BMS-EI-07']);
    const perDocument = await sentInvoice(lines);
    assert.deepEqual([perDocument.subtotal_amount, perDocument.tax_amount, perDocument.total_amount], [20, 4, 24]);
    const ubl = await einvoice(`/v1/invoices/${perDocument.id}`, 'ubl');
    assert.ok(ubl.includes('<cbc:TaxAmount currencyID="EUR">0.04</cbc:TaxAmount>'));
    // per_line where it is exact passes: the worked example.
    const exact = await sentInvoice(workedLines(), { rounding: 'per_line' });
    assert.equal(exact.tax_amount, 1_970);
    await einvoice(`/v1/invoices/${exact.id}`, 'ubl');
  });

  test('missing party data: the buyer’s country (BR-11), and K’s buyer VAT id, delivery and deliver-to (BR-IC-…)', async () => {
    const nowhere = (await ok('POST', '/v1/clients', { name: 'No address', email: 'no@example.com' }, 201)).id;
    const invoice = await sentInvoice(
      [{ description: 'Work', quantity: 1, unit_amount: 1_000, tax_rate_ids: [vat19] }],
      {},
      nowhere,
    );
    assert.deepEqual(await refusedRules(`/v1/invoices/${invoice.id}`), ['BR-11']);
    const intra = (
      await ok(
        'POST',
        '/v1/tax-rates',
        { name: 'Intra-EU', percentage: 0, tax_category: 'K', exemption_reason_code: 'VATEX-EU-IC' },
        201,
      )
    ).id;
    const k = await sentInvoice(
      [{ description: 'Supply', quantity: 1, unit_amount: 1_000, tax_rate_ids: [intra] }],
      {},
      nowhere,
    );
    assert.deepEqual(await refusedRules(`/v1/invoices/${k.id}`), ['BR-11', 'BR-IC-02', 'BR-IC-11', 'BR-IC-12']);
  });

  test('a seller without a VAT id or registration (BR-CO-26, BR-S-02) in another account', async () => {
    const { key } = await suite.context.account('Unidentified seller');
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await request(method, path, body, key);
      assert.ok(response.status < 300, response.text);
      return response.body.data;
    };
    await call('PUT', '/v1/account', { currency: 'EUR', address: { city: 'Wien', country: 'AT' } });
    const client = await call('POST', '/v1/clients', { name: 'Buyer', address: { country: 'AT' } });
    const rate = await call('POST', '/v1/tax-rates', { name: 'USt 20 %', percentage: 20, tax_category: 'S' });
    const draft = await call('POST', '/v1/invoices', {
      client_id: client.id,
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 1_000, tax_rate_ids: [rate.id] }],
    });
    const invoice = await call('PUT', `/v1/invoices/${draft.id}`, { status: 'sent' });
    const response = await request('GET', `/v1/invoices/${invoice.id}/einvoice?format=cii`, undefined, key);
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.error.details.map((detail: { field: string; rule: string }) => [detail.field, detail.rule]),
      [
        ['account.vat_id', 'BR-CO-26'],
        ['account.vat_id', 'BR-S-02'],
      ],
    );
  });
});

describe('POST …/einvoice/validate (§31)', () => {
  before(world);
  test('a draft validates as DRAFT, dated today, in the three formats (Factur-X: its CII and the embedding)', async () => {
    const draft = await draftInvoice(workedLines());
    for (const format of ['ubl', 'cii', 'facturx']) {
      const result = await ok('POST', `/v1/invoices/${draft.id}/einvoice/validate`, { format });
      assert.equal(result.object, 'einvoice_validation');
      assert.equal(result.format, format);
      assert.deepEqual(
        result.errors.filter((error: { severity: string }) => error.severity === 'fatal'),
        [],
      );
      assert.equal(result.valid, true);
      assert.equal(result.artefacts.length, 2);
    }
  });

  test('a refused invoice reports BMS’s rules as fatal errors with their fields', async () => {
    const invoice = await sentInvoice([{ description: 'Untaxed', quantity: 1, unit_amount: 1_000, tax_rate_ids: [] }]);
    const result = await ok('POST', `/v1/invoices/${invoice.id}/einvoice/validate`, { format: 'cii' });
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.errors.map((error: { rule: string; severity: string; field: string }) => [
        error.rule,
        error.severity,
        error.field,
      ]),
      [['BMS-EI-01', 'fatal', 'line_items[0].tax_rate_ids']],
    );
  });
});

describe('CEN’s own test instances', () => {
  before(world);
  const fixture = (file: string) =>
    readFileSync(new URL(`../vendor/en16931-validation-1.3.15/${file}`, import.meta.url), 'utf8');

  test('are accepted by the validator', async () => {
    for (const file of ['ubl/examples/ubl-tc434-example1.xml', 'ubl/examples/ubl-tc434-creditnote1.xml'])
      assert.deepEqual(await fatalFindings(fixture(file), 'ubl'), [], file);
    for (const file of ['cii/examples/CII_example1.xml', 'cii/examples/CII_example2.xml'])
      assert.deepEqual(await fatalFindings(fixture(file), 'cii'), [], file);
  });

  test('a broken copy is refused with the rule it breaks', async () => {
    const ubl = fixture('ubl/examples/ubl-tc434-example1.xml').replace(
      /<cbc:PayableAmount currencyID="([A-Z]+)">[^<]*<\/cbc:PayableAmount>/,
      '<cbc:PayableAmount currencyID="$1">1.00</cbc:PayableAmount>',
    );
    assert.ok((await fatalFindings(ubl, 'ubl')).some((finding) => finding.startsWith('BR-CO-16:')));
    const cii = fixture('cii/examples/CII_example1.xml').replace(
      /<ram:DuePayableAmount>[^<]*<\/ram:DuePayableAmount>/,
      '<ram:DuePayableAmount>1.00</ram:DuePayableAmount>',
    );
    assert.ok((await fatalFindings(cii, 'cii')).some((finding) => finding.startsWith('BR-CO-16:')));
    const schema = ubl.replace('<cbc:IssueDate>', '<cbc:Unknown>x</cbc:Unknown><cbc:IssueDate>');
    assert.ok((await fatalFindings(schema, 'ubl')).some((finding) => finding.startsWith('XSD:')));
  });
});

describe('frozen when sent (§31)', () => {
  before(world);
  test('a sent invoice answers the same bytes after its client and the profile change; its fields are frozen', async () => {
    const { key } = await suite.context.account('Freezing seller');
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const response = await request(method, path, body, key);
      assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
      return response.body.data;
    };
    await call('PUT', '/v1/account', { ...SELLER, einvoicing_enabled: true });
    const client = await call(
      'POST',
      '/v1/clients',
      {
        name: 'Jan Jansen',
        email: 'jan@example.com',
        address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015 CJ', country: 'NL' },
        vat_id: 'NL123456789B01',
      },
      201,
    );
    const rate = (await call('POST', '/v1/tax-rates', { name: 'VAT 19 %', percentage: 19, tax_category: 'S' }, 201)).id;
    const lines = [{ description: 'Heat pump service', quantity: 1, unit_amount: 25_000, tax_rate_ids: [rate] }];
    const draft = await call(
      'POST',
      '/v1/invoices',
      { client_id: client.id, currency: 'EUR', rounding: 'per_document', line_items: lines },
      201,
    );
    assert.equal(draft.einvoice, null);
    const sent = await call('POST', `/v1/invoices/${draft.id}/send`, {});
    assert.match(sent.einvoice.sha256.ubl, /^[0-9a-f]{64}$/);
    assert.match(sent.einvoice.sha256.cii, /^[0-9a-f]{64}$/);
    assert.ok(sent.einvoice.frozen_at);
    const first = await request('GET', `/v1/invoices/${draft.id}/einvoice?format=ubl`, undefined, key);
    assert.equal(first.status, 200);
    const { createHash } = await import('node:crypto');
    assert.equal(createHash('sha256').update(first.raw).digest('hex'), sent.einvoice.sha256.ubl);
    assert.deepEqual(await fatalFindings(first.raw.toString('utf8'), 'ubl'), []);
    // invoice.sent carries the e-invoice.
    const events = await call('GET', '/v1/events?type=invoice.sent');
    assert.deepEqual(events[0].data.object.einvoice, sent.einvoice);

    await call('PUT', `/v1/clients/${client.id}`, { name: 'Someone else', vat_id: 'NL999999999B01' });
    await call('PUT', '/v1/account', { legal_name: 'Renamed GmbH', address: { city: 'Hamburg', country: 'DE' } });
    const later = await request('GET', `/v1/invoices/${draft.id}/einvoice?format=ubl`, undefined, key);
    assert.equal(Buffer.compare(later.raw, first.raw), 0);
    const cii = await request('GET', `/v1/invoices/${draft.id}/einvoice?format=cii`, undefined, key);
    assert.equal(createHash('sha256').update(cii.raw).digest('hex'), sent.einvoice.sha256.cii);

    const edit = await request('PUT', `/v1/invoices/${draft.id}`, { notes: 'Changed' }, key);
    assert.equal(edit.status, 409);
    assert.equal(edit.body.error.code, 'INVALID_STATE');
    await call('PUT', `/v1/invoices/${draft.id}`, { metadata: { order: '7' } });
    // A credit note freezes at its issue.
    const note = await call(
      'POST',
      '/v1/credit-notes',
      {
        invoice_id: draft.id,
        rounding: 'per_document',
        line_items: [{ description: 'Goodwill', quantity: 1, unit_amount: 5_000, tax_rate_ids: [rate] }],
      },
      201,
    );
    await call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const noteFile = await request('GET', `/v1/credit-notes/${note.id}/einvoice?format=cii`, undefined, key);
    assert.equal(noteFile.status, 200, noteFile.text);
    assert.deepEqual(await fatalFindings(noteFile.raw.toString('utf8'), 'cii'), []);
    await call('PUT', '/v1/account', { legal_name: 'Renamed again GmbH' });
    const noteLater = await request('GET', `/v1/credit-notes/${note.id}/einvoice?format=cii`, undefined, key);
    assert.equal(Buffer.compare(noteLater.raw, noteFile.raw), 0);
    // Void: still its frozen files.
    await call('PUT', `/v1/invoices/${draft.id}`, { status: 'void' });
    const voided = await request('GET', `/v1/invoices/${draft.id}/einvoice?format=ubl`, undefined, key);
    assert.equal(Buffer.compare(voided.raw, first.raw), 0);
  });

  test('the client’s einvoice_format refuses the send of an invoice that cannot be one; without it, it is sent without', async () => {
    const { key } = await suite.context.account('Format seller');
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const response = await request(method, path, body, key);
      assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
      return response.body.data;
    };
    await call('PUT', '/v1/account', { ...SELLER, einvoicing_enabled: true });
    const address = { city: 'Wien', country: 'AT' };
    const wants = await call('POST', '/v1/clients', { name: 'Wants UBL', address, einvoice_format: 'ubl' }, 201);
    const plain = await call('POST', '/v1/clients', { name: 'Plain', address }, 201);
    const untaxed = [{ description: 'Untaxed', quantity: 1, unit_amount: 1_000, tax_rate_ids: [] }];
    const refused = await call('POST', '/v1/invoices', { client_id: wants.id, line_items: untaxed }, 201);
    const response = await request('PUT', `/v1/invoices/${refused.id}`, { status: 'sent' }, key);
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.error.details.map((detail: { rule: string }) => detail.rule),
      ['BMS-EI-01'],
    );
    assert.equal((await call('GET', `/v1/invoices/${refused.id}`)).status, 'draft');
    const without = await call('POST', '/v1/invoices', { client_id: plain.id, line_items: untaxed }, 201);
    const sent = await call('PUT', `/v1/invoices/${without.id}`, { status: 'sent' });
    assert.deepEqual([sent.status, sent.einvoice], ['sent', null]);
  });
});

describe('Factur-X (§31)', () => {
  before(world);
  test('a PDF/A-3b whose embedded factur-x.xml is the CII endpoint’s answer byte for byte, with /AF and the XMP', async () => {
    const invoice = await sentInvoice(workedLines());
    const response = await request('GET', `/v1/invoices/${invoice.id}/einvoice?format=facturx`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['content-type'], 'application/pdf');
    assert.equal(response.headers['content-disposition'], `attachment; filename="${invoice.number}.pdf"`);
    const cii = await einvoice(`/v1/invoices/${invoice.id}`, 'cii');
    const directory = mkdtempSync(path.join(tmpdir(), 'bms-facturx-'));
    const file = path.join(directory, 'invoice.pdf');
    writeFileSync(file, response.raw);
    // Kept where a reviewer can render and look at it: pdftoppm -png -r 60 /tmp/bms-facturx-last.pdf page
    writeFileSync(path.join(tmpdir(), 'bms-facturx-last.pdf'), response.raw);
    assert.match(execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' }), /factur-x\.xml/);
    const extracted = path.join(directory, 'factur-x.xml');
    execFileSync('pdfdetach', ['-savefile', 'factur-x.xml', '-o', extracted, file]);
    assert.equal(readFileSync(extracted, 'utf8'), cii);
    const text = response.raw.toString('latin1');
    for (const fragment of [
      '/AFRelationship /Alternative',
      '/AF [',
      '/OutputIntents',
      '<pdfaid:part>3</pdfaid:part>',
      '<pdfaid:conformance>B</pdfaid:conformance>',
      '<fx:DocumentType>INVOICE</fx:DocumentType>',
      '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
      '<fx:Version>1.0</fx:Version>',
      '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
    ])
      assert.ok(text.includes(fragment), fragment);
    assert.match(execFileSync('pdfinfo', [file], { encoding: 'utf8' }), /PDF version:\s+1\.7/);
    // The same invoice gives the same bytes (deterministic, as the PDF is).
    const again = await request('GET', `/v1/invoices/${invoice.id}/einvoice?format=facturx`);
    assert.equal(Buffer.compare(again.raw, response.raw), 0);
  });
});

describe('the printed invoice says why a rate charges no VAT (§31, BT-120/121)', () => {
  before(world);
  test('its PDF, e-mail and sent snapshot print the exemption reason and code under "Tax exemption"; others print none', async () => {
    const exempt = await ok(
      'POST',
      '/v1/tax-rates',
      {
        name: 'Steuerfrei 0 %',
        percentage: 0,
        tax_category: 'E',
        exemption_reason: 'Exempt under Article 132(1)(c) of Directive 2006/112/EC',
        exemption_reason_code: 'VATEX-EU-132',
      },
      201,
    );
    const invoice = await sentInvoice([
      { description: 'Boiler service', quantity: 1, unit_amount: 10_000, tax_rate_ids: [vat19] },
      { description: 'Physiotherapy', quantity: 1, unit_amount: 5_000, tax_rate_ids: [exempt.id] },
    ]);
    const sentence = 'Steuerfrei 0 %: Exempt under Article 132(1)(c) of Directive 2006/112/EC (VATEX-EU-132)';
    const pdf = await request('GET', `/v1/invoices/${invoice.id}/pdf`);
    assert.equal(pdf.status, 200, pdf.text);
    const text = (await pdfText(pdf.raw)).replace(/\s+/g, ' ');
    assert.ok(text.includes(`TAX EXEMPTION ${sentence}`), text);
    // Kept where a reviewer can render and look at it: pdftoppm -png -r 60 /tmp/bms-exemption-last.pdf page
    writeFileSync(path.join(tmpdir(), 'bms-exemption-last.pdf'), pdf.raw);
    // The standard rate gives no reason, so it prints no sentence; an invoice without an exempt rate has no heading.
    assert.doesNotMatch(text, /MwSt 19 %:/);
    const plain = await sentInvoice(workedLines());
    const plainText = await pdfText((await request('GET', `/v1/invoices/${plain.id}/pdf`)).raw);
    assert.doesNotMatch(plainText, /TAX EXEMPTION/i);

    await ok('POST', `/v1/invoices/${invoice.id}/send`, {});
    const queued = await suite.context.database.db
      .selectFrom('outbox_messages')
      .select('snapshot')
      .where('document_id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    const snapshot = JSON.parse(String(queued.snapshot)) as MailSnapshot;
    assert.deepEqual(
      snapshot.document.tax_breakdown?.map((row) => [row.name, row.exemption_reason, row.exemption_reason_code]),
      [
        ['MwSt 19 %', undefined, undefined],
        ['Steuerfrei 0 %', 'Exempt under Article 132(1)(c) of Directive 2006/112/EC', 'VATEX-EU-132'],
      ],
    );
    assert.ok(renderText(snapshot).includes(`Tax exemption:\n${sentence}\n`), renderText(snapshot));
    assert.ok(renderHtml(snapshot).includes('<strong>Tax exemption</strong><br>Steuerfrei 0 %: Exempt under'));
    const hub = await suite.context.request(
      'GET',
      new URL((await ok('GET', `/v1/invoices/${invoice.id}`)).hosted_url).pathname,
    );
    assert.equal(hub.status, 200, hub.text);
    assert.match(
      hub.text,
      /<h2 id="exemption-heading">Tax exemption<\/h2><p class="prose">Steuerfrei 0 %: Exempt under Article 132\(1\)\(c\)/,
    );
  });
});

describe('the client’s einvoice_format rides on the send (§31)', () => {
  before(world);
  test('ubl and cii beside the PDF, facturx instead of it', async () => {
    const sent: OutgoingMail[] = [];
    const worker = new OutboxWorker(
      suite.context.database,
      { send: async (mail) => void sent.push(mail), close() {} },
      suite.context.clock,
      { pollMs: 10, leaseMs: 60_000, retryBaseMs: 1000, maxAttempts: 2, fromAddress: 'billing@bms.test', jitter: 0 },
      { info() {}, warn() {}, error() {} },
      suite.context.app.pdf,
    );
    const address = { line1: '1 Grand Place', city: 'Bruxelles', postal_code: '1000', country: 'BE' };
    for (const format of ['ubl', 'cii', 'facturx'] as const) {
      const client = await ok(
        'POST',
        '/v1/clients',
        { name: `Wants ${format}`, email: `${format}@example.com`, address, einvoice_format: format },
        201,
      );
      const invoice = await draftInvoice(workedLines(), {}, client.id);
      const after = await ok('POST', `/v1/invoices/${invoice.id}/send`, {});
      while (await worker.deliverNext());
      const mail = sent.find((one) => one.to === `${format}@example.com`);
      assert.ok(mail, `a mail to the ${format} client`);
      const files = mail.attachments.map((file) => [file.filename, file.contentType]);
      if (format === 'facturx') {
        assert.deepEqual(files, [[`${after.number}.pdf`, 'application/pdf']]);
        assert.ok(mail.attachments[0]!.content.toString('latin1').includes('/AFRelationship /Alternative'));
      } else {
        assert.deepEqual(files, [
          [`${after.number}.pdf`, 'application/pdf'],
          [`${after.number}.xml`, 'application/xml'],
        ]);
        const xml = mail.attachments[1]!.content.toString('utf8');
        assert.deepEqual(await fatalFindings(xml, format), []);
      }
    }
    await worker.stop();
  });
});
