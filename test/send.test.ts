// Sending invoices and quotes: the operation's rules, the outbox written with the send, and delivery by
// the worker to a real SMTP server (recipient, subject, both parts, the PDF), retries and final failure,
// two workers never delivering one message twice, and .eml files when no SMTP server is set.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { openDatabase } from '../src/db/database.js';
import { OutboxWorker, type OutboxWorkerOptions } from '../src/workers/outbox-worker.js';
import { fileTransport, smtpTransport, type MailTransport } from '../src/mail/transports.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { eventually } from './helpers/patience.js';
import { pdfText, startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
const quietLog = { info() {}, warn() {}, error() {} };
const OPTIONS: OutboxWorkerOptions = {
  pollMs: 10,
  leaseMs: 60_000,
  retryBaseMs: 1000,
  maxAttempts: 4,
  fromAddress: 'billing@cooper-plumbing.test',
  jitter: 0,
};
const LINES = [
  { description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 },
  { description: 'Kitchen faucet', quantity: 1, unit_amount: 8999 },
];

let context: TestContext;
let smtp: TestSmtpServer;
let transport: MailTransport;
let worker: OutboxWorker;
let key: string;
let clientId: string;

async function newInvoice(body: Record<string, unknown> = {}) {
  const response = await context.request('POST', '/v1/invoices', {
    key,
    body: { client_id: clientId, line_items: LINES, ...body },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

async function outbox(documentId?: string) {
  let query = context.database.db.selectFrom('outbox_messages').selectAll().orderBy('created_at').orderBy('id');
  if (documentId) query = query.where('document_id', '=', documentId);
  return query.execute();
}

/** What the worker needs from documents, over this test's database and the app's PDF pool. */
function renderer() {
  return context.app.pdf;
}

/** Runs the worker until nothing is due now. */
async function drain(target = worker) {
  while (await target.deliverNext());
}

before(async () => {
  context = await createTestContext({ clock });
  smtp = await startSmtpServer();
  transport = smtpTransport(smtp.url);
  worker = new OutboxWorker(context.database, transport, clock, OPTIONS, quietLog, renderer());
});
after(async () => {
  transport.close();
  await smtp.close();
  await context.close();
});
beforeEach(async () => {
  // Each test starts with an empty outbox, so a worker delivers only that test's messages.
  await context.database.db.deleteFrom('outbox_messages').execute();
  smtp.messages.length = 0;
  smtp.refuseNext(0);
  ({ key } = await context.account('Cooper Plumbing'));
  clientId = (
    await context.request('POST', '/v1/clients', {
      key,
      body: { name: 'Jane Doe', email: 'jane@example.com', company_name: 'Doe Bakery' },
    })
  ).body.data.id;
});

describe('the send operation', () => {
  test('sends an invoice: number, dates and status set, message queued in the same step, nothing delivered yet', async () => {
    const invoice = await newInvoice();
    const response = await context.request('POST', `/v1/invoices/${invoice.id}/send`, {
      key,
      body: { message: 'Thanks for having us, Jane!' },
    });
    assert.equal(response.status, 200, response.text);
    const sent = response.body.data;
    assert.deepEqual(
      [sent.status, sent.number, sent.issue_date, sent.due_date, sent.sent_at],
      ['sent', 'INV-000001', '2026-11-21', '2026-12-21', clock.now().toISOString()],
    );
    const queued = await outbox(invoice.id);
    assert.equal(queued.length, 1);
    assert.deepEqual(
      [queued[0]!.status, queued[0]!.recipient, queued[0]!.attempts],
      ['pending', 'jane@example.com', 0],
    );
    assert.equal(smtp.messages.length, 0, 'the response did not wait for SMTP');
  });

  test('the delivered e-mail: recipient, sender, subject, text and HTML parts, personal note, PDF', async () => {
    const invoice = await newInvoice({ notes: 'Pay by bank transfer.' });
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, {
      key,
      body: { message: 'Thanks for having us, Jane!' },
    });
    await drain();
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.to && 'text' in mail!.to ? mail!.to.text : '', 'jane@example.com');
    assert.equal(mail!.from?.text, '"Cooper Plumbing" <billing@cooper-plumbing.test>');
    assert.equal(mail!.subject, 'Invoice INV-000001 from Cooper Plumbing');
    const [message] = await outbox(invoice.id);
    assert.equal(mail!.messageId, message!.message_id, 'the Message-ID is the outbox row’s, stable across retries');
    for (const part of [mail!.text ?? '', String(mail!.html)]) {
      for (const expected of [
        'Thanks for having us, Jane!',
        'Labour',
        'Kitchen faucet',
        '$60.00',
        '$89.99',
        '$209.99',
        '$10.65',
        '$220.64',
        'Due date',
        'December 21, 2026',
        'Pay by bank transfer.',
      ]) {
        assert.ok(part.includes(expected), `${expected} in ${part.slice(0, 80)}…`);
      }
    }
    assert.equal(mail!.attachments.length, 1);
    const [pdf] = mail!.attachments;
    assert.deepEqual([pdf!.filename, pdf!.contentType], ['INV-000001.pdf', 'application/pdf']);
    assert.equal(pdf!.content.subarray(0, 5).toString(), '%PDF-');
    const text = await pdfText(pdf!.content);
    for (const expected of [
      'Cooper Plumbing',
      'INVOICE',
      'INV-000001',
      'Jane Doe',
      'Doe Bakery',
      'Labour',
      '8.875%',
      '$120.00',
      '$10.65',
      '$220.64',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}`);
    }
    assert.match(text, /Due date\s+December 21, 2026/);
    const delivered = (await outbox(invoice.id))[0]!;
    assert.deepEqual([delivered.status, delivered.attempts, delivered.last_error], ['delivered', 1, null]);
  });

  test('names and lines outside Latin-1 print correctly in the PDF', async () => {
    await context.request('PUT', `/v1/clients/${clientId}`, {
      key,
      body: { name: 'Łukasz Żółć', company_name: 'Ελληνικά & Кириллица' },
    });
    const invoice = await newInvoice({
      currency: 'EUR',
      line_items: [{ description: 'Naprawa kranu — łazienka', quantity: 1, unit_amount: 12000, tax_rate: 23 }],
    });
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    await drain();
    const [mail] = await smtp.waitFor(1);
    const text = await pdfText(mail!.attachments[0]!.content);
    for (const expected of [
      'Łukasz Żółć',
      'Ελληνικά & Кириллица',
      'Naprawa kranu — łazienka',
      '€120.00',
      '€27.60',
      '€147.60',
    ])
      assert.ok(text.includes(expected), `the PDF shows ${expected}`);
    assert.match(mail!.text ?? '', /Total: €147\.60/);
  });

  test('replies go to the business: Reply-To is the profile’s e-mail when it has one, and absent otherwise', async () => {
    const first = await newInvoice();
    await context.request('POST', `/v1/invoices/${first.id}/send`, { key });
    await drain();
    const [without] = await smtp.waitFor(1);
    assert.equal(without!.replyTo, undefined);
    assert.equal(without!.headers.has('reply-to'), false);

    const profile = await context.request('PUT', '/v1/account', {
      key,
      body: { email: 'office@cooper-plumbing.test' },
    });
    assert.equal(profile.status, 200, profile.text);
    const second = await newInvoice();
    await context.request('POST', `/v1/invoices/${second.id}/send`, { key });
    await drain();
    const [, withEmail] = await smtp.waitFor(2);
    assert.equal(withEmail!.replyTo?.text, '"Cooper Plumbing" <office@cooper-plumbing.test>');
    assert.equal(withEmail!.from?.text, '"Cooper Plumbing" <billing@cooper-plumbing.test>', 'sent from the server');
  });

  test('each e-mail line shows its own figure, name above description, and the lines add up to the subtotal, or to the total with prices including tax', async () => {
    const product = await context.request('POST', '/v1/products', {
      key,
      body: {
        type: 'material',
        name: 'Water heater',
        description: '50-gallon gas, installed and vented',
        unit_amount: 89_900,
      },
    });
    assert.equal(product.status, 201, product.text);
    const lines = [
      { product_id: product.body.data.id, tax_rate: 8.875 },
      {
        description: 'Labour',
        quantity: 2,
        unit_amount: 6000,
        tax_rate: 8.875,
        discount: { type: 'amount', value: 1000 },
      },
    ];
    /** "$1,009.00" -> 100900 */
    const minor = (text: string) => Number(text.replace(/[^0-9]/g, ''));
    for (const [pricesIncludeTax, sumsTo] of [
      [false, 'Subtotal'],
      [true, 'Total'],
    ] as const) {
      smtp.messages.length = 0;
      const invoice = await newInvoice({ line_items: lines, prices_include_tax: pricesIncludeTax });
      assert.deepEqual(
        [invoice.line_items[0].name, invoice.line_items[0].description, invoice.line_items[1].name],
        ['Water heater', '50-gallon gas, installed and vented', null],
      );
      const sent = (await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key })).body.data;
      await drain();
      const [mail] = await smtp.waitFor(1);
      const text = mail!.text ?? '';
      const tax = pricesIncludeTax ? '(incl. 8.875% tax)' : '(+ 8.875% tax)';
      assert.ok(
        text.includes(`- Water heater: 1 × $899.00 = $899.00 ${tax}\n  50-gallon gas, installed and vented\n`),
        text,
      );
      assert.ok(text.includes(`- Labour: 2 × $60.00 − $10.00 discount = $110.00 ${tax}\n`), text);
      const figures = [...text.matchAll(/^- .* = (\S+)/gm)].map((match) => minor(match[1]!));
      const total = minor(new RegExp(`^${sumsTo}: (\\S+)$`, 'm').exec(text)![1]!);
      assert.equal(
        figures.reduce((sum, figure) => sum + figure, 0),
        total,
        `the lines add up to the ${sumsTo}`,
      );
      assert.equal(total, pricesIncludeTax ? invoice.total_amount : invoice.subtotal_amount);
      assert.match(
        String(mail!.html),
        /<strong>Water heater<\/strong><br><span[^>]*>50-gallon gas, installed and vented<\/span>/,
      );
      // The PDF prints the name and the description apart too, and the same figure.
      const pdf = await pdfText(mail!.attachments[0]!.content);
      assert.match(pdf, /Water heater\n50-gallon gas, installed and vented\n1\n\$899\.00\n8\.875%\n\$899\.00/);
      // And the hub.
      const hub = (await context.request('GET', new URL(sent.hosted_url).pathname)).text;
      assert.match(
        hub,
        /<td class="desc"><strong class="item-name">Water heater<\/strong><span class="item-description">50-gallon gas, installed and vented<\/span><\/td>.*?<td class="num amount">\$899\.00<\/td>/,
      );
    }
  });

  test('HTML in names and notes is escaped in the HTML part', async () => {
    await context.request('PUT', `/v1/clients/${clientId}`, { key, body: { name: '<script>alert(1)</script>' } });
    const invoice = await newInvoice({ notes: '<b>bold</b>' });
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    await drain();
    const [mail] = await smtp.waitFor(1);
    assert.doesNotMatch(String(mail!.html), /<script>|<b>bold/);
  });

  test('sends a quote with its validity date', async () => {
    const quote = (
      await context.request('POST', '/v1/quotes', {
        key,
        body: { client_id: clientId, title: 'New faucet', line_items: LINES, valid_until: '2026-12-31' },
      })
    ).body.data;
    const response = await context.request('POST', `/v1/quotes/${quote.id}/send`, { key });
    assert.deepEqual(
      [response.status, response.body.data.status, response.body.data.number],
      [200, 'sent', 'Q-000001'],
    );
    await drain();
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.subject, 'Quote Q-000001 from Cooper Plumbing');
    assert.match(mail!.text ?? '', /Valid until: December 31, 2026/);
    const text = await pdfText(mail!.attachments[0]!.content);
    assert.match(text, /QUOTE\s+Q-000001/);
    assert.match(text, /Valid until\s+December 31, 2026/);
    assert.ok(text.includes('New faucet'), 'the title is printed');
  });

  test('a re-send keeps the number and queues a new message', async () => {
    const invoice = await newInvoice();
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    clock.advance(60_000);
    const again = await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.number, 'INV-000001');
    assert.equal(again.body.data.issue_date, '2026-11-21', 'the issue date is set only once');
    const queued = await outbox(invoice.id);
    assert.equal(queued.length, 2);
    assert.notEqual(queued[0]!.message_id, queued[1]!.message_id);
  });

  test('refusals: final statuses 409; missing e-mail and lines 422 together; nothing queued or changed', async () => {
    const paid = await newInvoice();
    await context.request('PUT', `/v1/invoices/${paid.id}`, { key, body: { status: 'sent' } });
    await context.request('PUT', `/v1/invoices/${paid.id}`, { key, body: { status: 'paid' } });
    const final = await context.request('POST', `/v1/invoices/${paid.id}/send`, { key });
    assert.deepEqual([final.status, final.body.error.code], [409, 'INVALID_STATE']);

    const quote = (
      await context.request('POST', '/v1/quotes', { key, body: { client_id: clientId, line_items: LINES } })
    ).body.data;
    await context.request('PUT', `/v1/quotes/${quote.id}`, { key, body: { status: 'sent' } });
    await context.request('PUT', `/v1/quotes/${quote.id}`, { key, body: { status: 'declined' } });
    assert.equal((await context.request('POST', `/v1/quotes/${quote.id}/send`, { key })).status, 409);

    const noEmail = (await context.request('POST', '/v1/clients', { key, body: { name: 'No mail' } })).body.data.id;
    const empty = (await context.request('POST', '/v1/invoices', { key, body: { client_id: noEmail } })).body.data;
    const both = await context.request('POST', `/v1/invoices/${empty.id}/send`, { key });
    assert.equal(both.status, 422);
    assert.deepEqual(
      both.body.error.details.map((detail: { field: string }) => detail.field),
      ['client.email', 'line_items'],
    );
    const stored = (await context.request('GET', `/v1/invoices/${empty.id}`, { key })).body.data;
    assert.deepEqual([stored.status, stored.number], ['draft', null]);
    assert.equal((await outbox(empty.id)).length, 0);
    assert.equal((await outbox(paid.id)).length, 0);
  });

  test('bad bodies: unknown fields (no recipients), long messages; unknown ids 404', async () => {
    const invoice = await newInvoice();
    for (const body of [{ to: 'someone@evil.test' }, { message: 'x'.repeat(2001) }, { message: 5 }]) {
      const response = await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key, body });
      assert.equal(response.status, 422, JSON.stringify(body));
    }
    assert.equal(
      (await context.request('POST', '/v1/invoices/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01/send', { key })).status,
      404,
    );
    assert.equal((await context.request('GET', `/v1/invoices/${invoice.id}`, { key })).body.data.status, 'draft');
    const withContentTypeOnly = await context.request('POST', `/v1/invoices/${invoice.id}/send`, {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(withContentTypeOnly.status, 200, 'an empty body is fine');
  });
});

describe('delivery', () => {
  test('a refused delivery is retried with exponential backoff, then delivered', async () => {
    const invoice = await newInvoice();
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    smtp.refuseNext(2);
    await drain();
    let [message] = await outbox(invoice.id);
    assert.deepEqual([message!.status, message!.attempts], ['pending', 1]);
    assert.match(message!.last_error ?? '', /451/);
    assert.equal(
      message!.next_attempt_at,
      new Date(clock.now().getTime() + 1000).toISOString(),
      'first retry after the base delay',
    );
    await drain();
    assert.equal((await outbox(invoice.id))[0]!.attempts, 1, 'not retried before it is due');
    clock.advance(1000);
    await drain();
    [message] = await outbox(invoice.id);
    assert.deepEqual([message!.status, message!.attempts], ['pending', 2]);
    assert.equal(message!.next_attempt_at, new Date(clock.now().getTime() + 2000).toISOString(), 'then twice as long');
    clock.advance(2000);
    await drain();
    [message] = await outbox(invoice.id);
    assert.deepEqual([message!.status, message!.attempts, message!.last_error], ['delivered', 3, null]);
    assert.equal((await smtp.waitFor(1)).length, 1);
  });

  test('with the SMTP server down, attempts stop at the limit in a failed state that keeps the last error', async () => {
    const down = smtpTransport('smtp://127.0.0.1:1');
    const downWorker = new OutboxWorker(context.database, down, clock, OPTIONS, quietLog, renderer());
    const invoice = await newInvoice();
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await drain(downWorker);
      clock.advance(60_000);
    }
    const [message] = await outbox(invoice.id);
    assert.deepEqual([message!.status, message!.attempts], ['failed', OPTIONS.maxAttempts]);
    assert.match(message!.last_error ?? '', /ECONNREFUSED/);
    assert.equal(
      (await context.request('GET', `/v1/invoices/${invoice.id}`, { key })).body.data.status,
      'sent',
      'the document stays sent',
    );
    down.close();
  });

  test('an expired claim (a worker that died mid-delivery) is taken over', async () => {
    const invoice = await newInvoice();
    await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    const [message] = await outbox(invoice.id);
    await context.database.db
      .updateTable('outbox_messages')
      .set({
        status: 'sending',
        locked_by: 'worker-dead',
        locked_until: new Date(clock.now().getTime() + 30_000).toISOString(),
      })
      .where('id', '=', message!.id)
      .execute();
    await drain();
    assert.equal(smtp.messages.length, 0, 'a live claim is respected');
    clock.advance(30_000);
    await drain();
    assert.equal((await smtp.waitFor(1)).length, 1);
    assert.equal((await outbox(invoice.id))[0]!.status, 'delivered');
  });

  test('two workers on one database deliver each of 20 messages exactly once', async () => {
    for (let index = 0; index < 20; index += 1) {
      const invoice = await newInvoice();
      await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
    }
    smtp.delayMs = 5;
    const secondDatabase = openDatabase(context.config.database);
    const secondTransport = smtpTransport(smtp.url);
    const delivered = [0, 0];
    const troubles: string[] = [];
    const noted = (fields: unknown, message?: string) => void troubles.push(`${message} ${JSON.stringify(fields)}`);
    const counting = (index: number) => ({
      warn: noted,
      error: noted,
      info: (_fields: unknown, message?: string) =>
        void (message === 'outbox: delivered' && (delivered[index] = (delivered[index] ?? 0) + 1)),
    });
    const first = new OutboxWorker(context.database, transport, clock, OPTIONS, counting(0), renderer());
    const second = new OutboxWorker(secondDatabase, secondTransport, clock, OPTIONS, counting(1), context.app.pdf);
    first.start();
    second.start();
    const mails = await smtp.waitFor(20);
    // A worker logs a delivery after it has marked the message delivered, which can come after the server has it.
    await eventually(
      () => delivered[0]! + delivered[1]! >= 20,
      () => `the workers logged ${delivered.join(' + ')} deliveries of 20; warnings and errors: ${troubles.join('; ')}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all([first.stop(), second.stop()]);
    smtp.delayMs = 0;
    assert.equal(mails.length, 20);
    assert.equal(new Set(mails.map((mail) => mail.messageId)).size, 20, 'no message twice');
    assert.ok(delivered[0]! > 0 && delivered[1]! > 0, `both workers took part: ${delivered.join(' + ')}`);
    assert.equal(delivered[0]! + delivered[1]!, 20);
    assert.ok((await outbox()).every((row) => row.status === 'delivered' && row.attempts === 1));
    secondTransport.close();
    await secondDatabase.close();
  });
});

test('without SMTP_URL, messages are written as .eml files a person can open', async () => {
  const directory = path.join(context.directory, 'eml');
  const files = fileTransport(directory);
  const fileWorker = new OutboxWorker(context.database, files, clock, OPTIONS, quietLog, renderer());
  const invoice = await newInvoice();
  await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key });
  await drain(fileWorker);
  const [message] = await outbox(invoice.id);
  const written = fs.readdirSync(directory).filter((name) => name.endsWith('.eml'));
  assert.equal(written.length, 1);
  const eml = fs.readFileSync(path.join(directory, written[0]!), 'utf8');
  assert.match(eml, /^From: "?Cooper Plumbing"? <billing@cooper-plumbing\.test>/m);
  assert.match(eml, /^To: jane@example\.com/m);
  assert.match(eml, /^Subject: Invoice INV-\d{6} from Cooper Plumbing/m);
  assert.ok(eml.includes(`Message-ID: ${message!.message_id}`));
  assert.match(eml, /Content-Type: application\/pdf; name=INV-\d{6}\.pdf/);
  files.close();
});
