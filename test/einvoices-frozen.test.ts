// Frozen e-invoices, the second part (contract §31 "Frozen when sent", §32 "BT-113"): the Factur-X PDF is frozen
// with the UBL and the CII, so a change of the profile or the logo after the send leaves the download
// byte-identical (its SHA-256 the one `einvoice.sha256.facturx` states); validating a frozen invoice checks the
// stored files, not a new build; `PUT {status: "sent"}` freezes after the quote's deposit is deducted, exactly
// as the send does (BT-113 = amount_paid + amount_credited); and the MCP tools get_einvoice and
// validate_einvoice answer the same frozen files.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { validateEinvoiceXml } from '../src/mail/einvoice-validation.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { logoPng } from './helpers/images.js';

let context: TestContext;
let key: string;
let baseUrl: string;
let buyerId: string;
let vat19: string;
const open: Client[] = [];

const request = (method: string, url: string, body?: unknown) =>
  context.request(method, url, { key, ...(body === undefined ? {} : { body }) });
async function ok(method: string, url: string, body?: unknown, status = method === 'POST' ? 201 : 200) {
  const response = await request(method, url, body);
  assert.equal(response.status, status, `${method} ${url}: ${response.text}`);
  return response.body.data;
}
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** GET …/einvoice in a format: 200, its bytes. */
async function download(invoicePath: string, format: 'ubl' | 'cii' | 'facturx'): Promise<Buffer> {
  const response = await request('GET', `${invoicePath}/einvoice?format=${format}`);
  assert.equal(response.status, 200, response.text);
  return response.raw;
}

/** The factur-x.xml embedded in a PDF, as pdfdetach extracts it. */
function embeddedCii(pdf: Buffer): Buffer {
  const directory = mkdtempSync(path.join(tmpdir(), 'bms-frozen-'));
  writeFileSync(path.join(directory, 'invoice.pdf'), pdf);
  execFileSync('pdfdetach', [
    '-savefile',
    'factur-x.xml',
    '-o',
    path.join(directory, 'factur-x.xml'),
    path.join(directory, 'invoice.pdf'),
  ]);
  return readFileSync(path.join(directory, 'factur-x.xml'));
}

const SELLER = {
  name: 'Müller Haustechnik',
  legal_name: 'Müller Haustechnik GmbH',
  email: 'buero@mueller-haustechnik.example',
  currency: 'EUR',
  address: { line1: 'Lindenstraße 5', city: 'Berlin', postal_code: '10969', country: 'DE' },
  vat_id: 'DE123456789',
  registration_id: '4000001123452',
  registration_scheme: '0088',
  payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
  payment_instructions: 'Bank transfer within 30 days, quoting the invoice number.',
  einvoicing_enabled: true,
};

const serviceLine = () => [
  { description: 'Heat pump service', quantity: 1, unit_amount: 25_000, tax_rate_ids: [vat19] },
];

async function sentInvoice(): Promise<Record<string, any>> {
  const draft = await ok('POST', '/v1/invoices', {
    client_id: buyerId,
    rounding: 'per_document',
    line_items: serviceLine(),
  });
  return ok('POST', `/v1/invoices/${draft.id}/send`, {}, 200);
}

before(async () => {
  // Freezing renders and validates in the pool inside the send: on a busy test machine, give it time.
  context = await createTestContext({ env: { PDF_RENDER_TIMEOUT_MS: '120000' } });
  ({ key } = await context.account('Frozen seller'));
  await ok('PUT', '/v1/account', SELLER);
  buyerId = (
    await ok('POST', '/v1/clients', {
      name: 'Jan Jansen',
      email: 'jan@example.com',
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015 CJ', country: 'NL' },
      vat_id: 'NL123456789B01',
    })
  ).id;
  vat19 = (await ok('POST', '/v1/tax-rates', { name: 'MwSt 19 %', percentage: 19, tax_category: 'S' })).id;
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  for (const client of open) await client.close();
  await context.close();
});

describe('the Factur-X is frozen with the XML (§31)', () => {
  test('after the profile and the logo change, the download is byte-identical to the one right after the send', async () => {
    const sent = await sentInvoice();
    assert.match(sent.einvoice.sha256.facturx, /^[0-9a-f]{64}$/);
    const first = await request('GET', `/v1/invoices/${sent.id}/einvoice?format=facturx`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers['content-type'], 'application/pdf');
    assert.equal(first.headers['content-disposition'], `attachment; filename="${sent.number}.pdf"`);
    assert.equal(sha256(first.raw), sent.einvoice.sha256.facturx);
    // It embeds the frozen CII, byte for byte.
    const cii = await download(`/v1/invoices/${sent.id}`, 'cii');
    assert.equal(sha256(cii), sent.einvoice.sha256.cii);
    assert.ok(embeddedCii(first.raw).equals(cii));
    const pdfBefore = (await request('GET', `/v1/invoices/${sent.id}/pdf`)).raw;

    await ok('PUT', '/v1/account', {
      name: 'Renamed Haustechnik',
      legal_name: 'Renamed Haustechnik GmbH',
      address: { line1: 'Hafenstraße 9', city: 'Hamburg', postal_code: '20359', country: 'DE' },
    });
    await ok('PUT', '/v1/account/logo', { content_type: 'image/png', data: logoPng().toString('base64') });
    // The invoice's own PDF (§10) follows the profile: a Factur-X built now would differ.
    const pdfAfter = (await request('GET', `/v1/invoices/${sent.id}/pdf`)).raw;
    assert.ok(!pdfAfter.equals(pdfBefore), 'the §10 PDF changed with the profile');

    const later = await request('GET', `/v1/invoices/${sent.id}/einvoice?format=facturx`);
    assert.equal(later.status, 200);
    assert.equal(sha256(later.raw), sha256(first.raw));
    assert.ok(later.raw.equals(first.raw));
    assert.equal(later.headers.etag, first.headers.etag);
    const current = await ok('GET', `/v1/invoices/${sent.id}`);
    assert.deepEqual(current.einvoice, sent.einvoice);
    await ok('DELETE', '/v1/account/logo', undefined, 200);
    await ok('PUT', '/v1/account', { name: SELLER.name, legal_name: SELLER.legal_name, address: SELLER.address });
  });

  test('a credit note’s Factur-X is frozen at its issue', async () => {
    const invoice = await sentInvoice();
    const note = await ok('POST', '/v1/credit-notes', {
      invoice_id: invoice.id,
      rounding: 'per_document',
      line_items: [{ description: 'Goodwill', quantity: 1, unit_amount: 5_000, tax_rate_ids: [vat19] }],
    });
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const first = await download(`/v1/credit-notes/${note.id}`, 'facturx');
    assert.ok(embeddedCii(first).equals(await download(`/v1/credit-notes/${note.id}`, 'cii')));
    await ok('PUT', '/v1/account', { legal_name: 'Renamed once more GmbH' });
    assert.ok((await download(`/v1/credit-notes/${note.id}`, 'facturx')).equals(first));
    await ok('PUT', '/v1/account', { legal_name: SELLER.legal_name });
  });
});

describe('validating a frozen invoice checks its stored files (§31)', () => {
  test('with the seller’s identifiers removed, a new build is refused (BR-CO-26), the frozen files stay valid', async () => {
    const sent = await sentInvoice();
    const draft = await ok('POST', '/v1/invoices', {
      client_id: buyerId,
      rounding: 'per_document',
      line_items: serviceLine(),
    });
    await ok('PUT', '/v1/account', { vat_id: null, registration_id: null, registration_scheme: null });
    try {
      // What a new build finds: the draft, made from the profile as it stands.
      const fresh = await ok('POST', `/v1/invoices/${draft.id}/einvoice/validate`, { format: 'ubl' }, 200);
      assert.equal(fresh.valid, false);
      assert.ok(
        fresh.errors.some((error: { rule: string }) => error.rule === 'BR-CO-26'),
        JSON.stringify(fresh.errors),
      );
      // The frozen invoice: its stored files, as sent.
      for (const format of ['ubl', 'cii', 'facturx']) {
        const result = await ok('POST', `/v1/invoices/${sent.id}/einvoice/validate`, { format }, 200);
        assert.equal(result.object, 'einvoice_validation');
        assert.equal(result.format, format);
        assert.deepEqual(
          result.errors.filter((error: { severity: string }) => error.severity === 'fatal'),
          [],
          format,
        );
        assert.equal(result.valid, true, format);
      }
      // The stored files themselves still pass the XSD and the Schematron.
      const ubl = (await download(`/v1/invoices/${sent.id}`, 'ubl')).toString('utf8');
      assert.ok(ubl.includes('<cbc:CompanyID>DE123456789</cbc:CompanyID>'), 'the frozen file names the VAT id');
      assert.deepEqual(
        (await validateEinvoiceXml(ubl, 'ubl')).filter((finding) => finding.severity === 'fatal'),
        [],
      );
    } finally {
      await ok('PUT', '/v1/account', {
        vat_id: SELLER.vat_id,
        registration_id: SELLER.registration_id,
        registration_scheme: SELLER.registration_scheme,
      });
    }
  });
});

describe('PUT {status: "sent"} freezes as the send does: after the deposit (§32 BT-113)', () => {
  /** An approved quote of one line of 1,000.00 EUR at 19 % (1,190.00) with a paid deposit of 300.00. */
  async function quoteWithPaidDeposit(): Promise<string> {
    const quote = await ok('POST', '/v1/quotes', {
      client_id: buyerId,
      line_items: [{ description: 'Heat pump', quantity: 1, unit_amount: 100_000, tax_rate_ids: [vat19] }],
      deposit: { type: 'amount', value: 30_000 },
    });
    assert.deepEqual([quote.total_amount, quote.deposit_amount], [119_000, 30_000]);
    await ok('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
    await ok('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' });
    await ok('POST', '/v1/payments', { quote_id: quote.id, amount: 30_000, method: 'bank_transfer' });
    return quote.id;
  }

  /** The UBL's monetary total, and the CII's settlement summation. */
  const totals = (ubl: string, cii: string) => [
    /<cac:LegalMonetaryTotal>[\s\S]*<\/cac:LegalMonetaryTotal>/.exec(ubl)?.[0],
    /<ram:SpecifiedTradeSettlementHeaderMonetarySummation>[\s\S]*<\/ram:SpecifiedTradeSettlementHeaderMonetarySummation>/.exec(
      cii,
    )?.[0],
  ];

  test('both paths: amount_paid 300.00, BT-113 300.00 and BT-115 890.00 of 1,190.00, the same totals', async () => {
    const answers: Array<Record<string, any>> = [];
    const files: string[][] = [];
    for (const path of ['send', 'put'] as const) {
      const quoteId = await quoteWithPaidDeposit();
      const draft = await ok('POST', '/v1/invoices', { quote_id: quoteId });
      assert.equal(draft.amount_due, 119_000);
      const sent =
        path === 'send'
          ? await ok('POST', `/v1/invoices/${draft.id}/send`, {}, 200)
          : await ok('PUT', `/v1/invoices/${draft.id}`, { status: 'sent' });
      assert.deepEqual(
        [sent.status, sent.total_amount, sent.amount_paid, sent.amount_due],
        ['sent', 119_000, 30_000, 89_000],
        path,
      );
      assert.match(sent.einvoice.sha256.ubl, /^[0-9a-f]{64}$/, path);
      // invoice.sent carries the e-invoice and the deducted deposit.
      const events = await ok('GET', `/v1/events?type=invoice.sent&resource_id=${draft.id}`);
      assert.equal(events.length, 1, path);
      assert.deepEqual(events[0].data.object.einvoice, sent.einvoice, path);
      assert.equal(events[0].data.object.amount_paid, 30_000, path);
      const ubl = (await download(`/v1/invoices/${draft.id}`, 'ubl')).toString('utf8');
      const cii = (await download(`/v1/invoices/${draft.id}`, 'cii')).toString('utf8');
      assert.equal(sha256(Buffer.from(ubl)), sent.einvoice.sha256.ubl);
      for (const fragment of [
        '<cbc:TaxExclusiveAmount currencyID="EUR">1000.00</cbc:TaxExclusiveAmount>',
        '<cbc:TaxInclusiveAmount currencyID="EUR">1190.00</cbc:TaxInclusiveAmount>',
        '<cbc:PrepaidAmount currencyID="EUR">300.00</cbc:PrepaidAmount>',
        '<cbc:PayableAmount currencyID="EUR">890.00</cbc:PayableAmount>',
      ])
        assert.ok(ubl.includes(fragment), `${path}: ${fragment}`);
      for (const fragment of [
        '<ram:GrandTotalAmount>1190.00</ram:GrandTotalAmount>',
        '<ram:TotalPrepaidAmount>300.00</ram:TotalPrepaidAmount>',
        '<ram:DuePayableAmount>890.00</ram:DuePayableAmount>',
      ])
        assert.ok(cii.includes(fragment), `${path}: ${fragment}`);
      for (const [xml, syntax] of [
        [ubl, 'ubl'],
        [cii, 'cii'],
      ] as const)
        assert.deepEqual(
          (await validateEinvoiceXml(xml, syntax)).filter((finding) => finding.severity === 'fatal'),
          [],
          `${path} ${syntax}`,
        );
      answers.push(sent);
      files.push(totals(ubl, cii) as string[]);
    }
    assert.deepEqual(files[1], files[0], 'the same totals by either path');
    assert.deepEqual(
      answers.map((sent) => [sent.amount_paid, sent.amount_credited, sent.amount_due]),
      [
        [30_000, 0, 89_000],
        [30_000, 0, 89_000],
      ],
    );
  });
});

describe('the MCP tools get_einvoice and validate_einvoice', () => {
  interface ToolAnswer {
    isError?: boolean;
    structuredContent?: Record<string, any>;
  }
  async function connect(as: string): Promise<Client> {
    const client = new Client({ name: 'bms-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${as}` } },
      }),
    );
    open.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;

  test('answer the frozen files and their validation; a draft is validated, not got; they need invoices:read', async () => {
    const sent = await sentInvoice();
    const mcp = await connect(key);
    const { tools } = await mcp.listTools();
    for (const name of ['get_einvoice', 'validate_einvoice']) {
      const tool = tools.find((one) => one.name === name);
      assert.ok(tool, name);
      assert.equal(tool.annotations?.readOnlyHint, true, name);
      assert.match(tool.description ?? '', /Needs the scope invoices:read\.$/);
    }
    const got = await call(mcp, 'get_einvoice', { invoice_id: sent.id, format: 'ubl' });
    assert.equal(got.isError, undefined, JSON.stringify(got.structuredContent));
    const file = got.structuredContent!.result;
    assert.deepEqual(
      [file.invoice_id, file.format, file.filename, file.content_type, file.sha256, file.frozen_at],
      [sent.id, 'ubl', `${sent.number}.xml`, 'application/xml', sent.einvoice.sha256.ubl, sent.einvoice.frozen_at],
    );
    assert.equal(file.content, (await download(`/v1/invoices/${sent.id}`, 'ubl')).toString('utf8'));

    const checked = await call(mcp, 'validate_einvoice', { invoice_id: sent.id, format: 'facturx' });
    const validation = checked.structuredContent!.result;
    assert.deepEqual(
      [validation.invoice_id, validation.frozen_at, validation.object, validation.format, validation.valid],
      [sent.id, sent.einvoice.frozen_at, 'einvoice_validation', 'facturx', true],
    );
    assert.equal(validation.artefacts.length, 2);

    const draft = await ok('POST', '/v1/invoices', {
      client_id: buyerId,
      line_items: [{ description: 'Untaxed', quantity: 1, unit_amount: 1_000, tax_rate_ids: [] }],
    });
    const refused = await call(mcp, 'validate_einvoice', { invoice_id: draft.id, format: 'cii' });
    const findings = refused.structuredContent!.result;
    assert.deepEqual([findings.valid, findings.frozen_at], [false, null]);
    assert.deepEqual(
      findings.errors.map((error: { rule: string; field: string }) => [error.rule, error.field]),
      [['BMS-EI-01', 'line_items[0].tax_rate_ids']],
    );
    const notYet = await call(mcp, 'get_einvoice', { invoice_id: draft.id, format: 'cii' });
    assert.equal(notYet.isError, true);
    assert.equal(notYet.structuredContent!.error.code, 'INVALID_STATE');
    const badFormat = await call(mcp, 'get_einvoice', { invoice_id: sent.id, format: 'facturx' });
    assert.equal(badFormat.structuredContent!.error.code, 'VALIDATION_ERROR');

    const { key: clientsOnly } = await context.key((await ok('GET', '/v1/account')).id, ['clients:read']);
    const names = (await (await connect(clientsOnly)).listTools()).tools.map((tool) => tool.name);
    assert.ok(!names.includes('get_einvoice') && !names.includes('validate_einvoice'), names.join(', '));
  });
});
