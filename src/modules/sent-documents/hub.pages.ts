// The hub's pages (docs/api-contract.md §12), server-rendered: the document as its client sees it, with the
// quote's answer forms, and the plain pages for an unknown link, a refusal or too many requests. Links
// are paths under `hubPath` (PUBLIC_BASE_URL's path + /hub), so a page answering a POST at …/approve and
// a server behind a proxy that adds a path both link right.
import { html, type Html } from '../../core/html.js';
import {
  addressLines,
  amountHeading,
  dateRows,
  exemptionLines,
  fieldRows,
  documentLabel,
  formatDate,
  formatInstantDate,
  formatMoney,
  formatQuantity,
  lineHeading,
  lineTotal,
  localeOf,
  serviceAddressLines,
  lineTaxLabel,
  summaryRows,
  KIND_LABELS,
  type MailSnapshot,
} from '../../mail/document-mail.js';
import { padFields, padScript } from './signature-pad.js';

/** What the client has just been told, or why their answer was refused. */
export type HubNotice =
  | { kind: 'expired' }
  | { kind: 'closed' }
  | { kind: 'changed' }
  | {
      kind: 'invalid';
      errors: { name?: string; reason?: string; signature_image?: string };
      values: { name: string; reason: string };
    };

export interface DocumentView {
  /** `/hub`, or `/prefix/hub` when PUBLIC_BASE_URL has a path. */
  hubPath: string;
  token: string;
  snapshot: MailSnapshot;
  hasLogo: boolean;
  /** The quote's answer as stored (quotes only). */
  answer?: {
    approved_at: string | null;
    approved_by: string | null;
    declined_at: string | null;
    decline_reason: string | null;
  };
  /** A quote in `sent` whose valid_until has passed. */
  expired: boolean;
  /** The double-submit value the forms carry (a quote in `sent` only). */
  csrf: string | undefined;
  /** The version of the quote this page shows, which an answer names. */
  version?: string;
  /** The SHA-256 of the quote's signed content as this page shows it, which an approval signs. */
  documentSha256?: string;
  notice?: HubNotice;
  /** The files shown with the document (docs/api-contract.md §30): images inline, the others as links. */
  files?: ReadonlyArray<HubFile>;
  /**
   * The approve form's signature pad (the account's `quote_signature: drawn`), with the nonce of the page's
   * script (its Content-Security-Policy names it); absent: the name typed signs alone.
   */
  pad?: { nonce: string };
}

export interface HubFile {
  id: string;
  filename: string;
  content_type: string;
  caption: string | null;
  size_bytes: number;
}

/** Shown inline on the page (an <img>); the others are links that download. */
const INLINE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The Files section: each image shown, each other file a link, captions under them. */
function filesSection(view: DocumentView): Html | string {
  const files = view.files ?? [];
  if (files.length === 0) return '';
  const base = `${view.hubPath}/${view.token}/files`;
  return html`<section class="card" aria-labelledby="files-heading">
<h2 id="files-heading">Files</h2>
<ul class="files">
${files.map((file) =>
  INLINE_IMAGES.has(file.content_type)
    ? html`<li class="file file-image"><a href="${base}/${file.id}"><img src="${base}/${file.id}?disposition=inline" alt="${file.caption ?? file.filename}" loading="lazy"></a>${file.caption ? html`<p class="caption">${file.caption}</p>` : ''}</li>`
    : html`<li class="file"><a href="${base}/${file.id}">${file.filename}</a> <span class="help">${sizeText(file.size_bytes)}</span>${file.caption ? html`<p class="caption">${file.caption}</p>` : ''}</li>`,
)}
</ul>
</section>`;
}

/** A calendar date ("2026-11-22") in the account's locale: "November 22, 2026" (en-US), "22.11.2026" (de-DE). */
function dateText(snapshot: MailSnapshot, value: string): string {
  return formatDate(value, localeOf(snapshot));
}

/** The day of an instant (an answer's time) in the account's time zone and locale. */
function dayText(snapshot: MailSnapshot, value: string): string {
  return formatInstantDate(value, localeOf(snapshot), snapshot.timezone ?? 'UTC');
}

function layout(hubPath: string, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="stylesheet" href="${hubPath}/static/hub.css">
<link rel="icon" href="${hubPath}/static/icon.svg" type="image/svg+xml">
</head>
<body>
${body}
</body>
</html>
`;
}

/** The page for a link that names nothing the client may see. It never says why. */
export function notFoundPage(hubPath: string): Html {
  return messagePage(
    hubPath,
    'Page not found',
    'This link does not lead to a page. If someone sent it to you, ask them for a new link.',
  );
}

export function messagePage(hubPath: string, title: string, text: string): Html {
  return layout(
    hubPath,
    title,
    html`<main class="page" id="main"><div class="card message"><h1>${title}</h1><p>${text}</p></div></main>`,
  );
}

function statusBadge(snapshot: MailSnapshot, expired: boolean): Html {
  const { status, due_date: dueDate } = snapshot.document;
  const [label, tone] =
    snapshot.kind === 'credit_note'
      ? ['Issued', 'good']
      : snapshot.kind === 'quote'
        ? status === 'sent'
          ? expired
            ? ['Expired', 'bad']
            : ['Awaiting your answer', 'open']
          : status === 'declined'
            ? ['Declined', 'bad']
            : ['Approved', 'good']
        : status === 'paid'
          ? ['Paid', 'good']
          : dueDate
            ? [`Due ${dateText(snapshot, dueDate)}`, 'open']
            : ['Sent', 'open'];
  return html`<p class="status status-${tone}">${label}</p>`;
}

function noticeBlock(view: DocumentView): Html | undefined {
  const { answer, snapshot, notice } = view;
  const business = snapshot.business.name;
  if (notice?.kind === 'expired') {
    return html`<div class="notice notice-bad" role="alert"><h2>This quote has expired</h2><p>It was valid until ${dateText(snapshot, snapshot.document.valid_until ?? '')} and can no longer be approved here. Please contact ${business} for a new quote.</p></div>`;
  }
  if (notice?.kind === 'invalid') {
    return html`<div class="notice notice-bad" role="alert"><h2>Your answer was not sent</h2><p>Please correct the field marked below and send it again.</p></div>`;
  }
  if (answer?.approved_at && snapshot.document.status !== 'sent') {
    return html`<div class="notice notice-good" role="status"><h2>Thank you: the quote is approved</h2><p>Approved${answer.approved_by ? html` by ${answer.approved_by}` : ''} on ${dayText(snapshot, answer.approved_at)}. ${business} has been told and will be in touch.</p></div>`;
  }
  if (answer?.declined_at && snapshot.document.status === 'declined') {
    return html`<div class="notice notice-info" role="status"><h2>You declined this quote</h2><p>Declined on ${dayText(snapshot, answer.declined_at)}. ${business} has been told.${answer.decline_reason ? html` Your reason: “${answer.decline_reason}”` : ''}</p></div>`;
  }
  if (notice?.kind === 'changed') {
    return html`<div class="notice notice-info" role="status"><h2>This quote has changed</h2><p>It was changed after you opened it, so your answer was not recorded. Please review the quote as it is now and answer again.</p></div>`;
  }
  if (notice?.kind === 'closed') {
    return html`<div class="notice notice-info" role="status"><h2>This quote can no longer be answered</h2><p>It has already been answered or changed. The page shows it as it is now.</p></div>`;
  }
  return undefined;
}

function partyLines(lines: Array<string | null | undefined>): Html[] {
  return lines.filter((line): line is string => Boolean(line)).map((line) => html`${line}<br>`);
}

function linesTable(snapshot: MailSnapshot): Html {
  const { document } = snapshot;
  const locale = localeOf(snapshot);
  const money = (amount: number) => formatMoney(amount, document.currency, locale);
  return html`<table>
<caption class="skip">Items of ${documentLabel(snapshot)}</caption>
<thead><tr><th scope="col">Description</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Tax</th><th scope="col" class="num">${amountHeading(snapshot)}</th></tr></thead>
<tbody>
${document.line_items.map((item) => {
  const { name, description } = lineHeading(item);
  const cell = description
    ? html`<strong class="item-name">${name}</strong><span class="item-description">${description}</span>`
    : html`${name}`;
  return html`<tr><td class="desc">${cell}</td><td class="num qty">${formatQuantity(item.quantity, locale)}<span class="per"> × ${money(item.unit_amount)}</span></td><td class="num unit">${money(item.unit_amount)}</td><td class="num tax">${lineTaxLabel(item)}</td><td class="num amount">${money(lineTotal(item, snapshot))}</td></tr>\n`;
})}</tbody>
</table>
<dl class="totals">
${summaryRows(snapshot).map(([label, value], index, rows) => html`<div class="${index === grandRow(snapshot, rows) ? 'grand' : ''}"><dt>${label}</dt><dd>${value}</dd></div>`)}
</dl>`;
}

/** The row set large: the last, but a quote's total (its deposit rows follow it, contract §23). */
function grandRow(snapshot: MailSnapshot, rows: Array<[string, string]>): number {
  const total = rows.map(([label]) => label).lastIndexOf('Total');
  return snapshot.kind === 'quote' && total >= 0 ? total : rows.length - 1;
}

function answerForms(view: DocumentView): Html | undefined {
  const { snapshot, csrf, notice } = view;
  if (snapshot.kind !== 'quote' || snapshot.document.status !== 'sent' || csrf === undefined) return undefined;
  const invalid = notice?.kind === 'invalid' ? notice : undefined;
  const nameError = invalid?.errors.name;
  const reasonError = invalid?.errors.reason;
  const business = snapshot.business.name;
  const total = formatMoney(snapshot.document.total_amount, snapshot.document.currency, localeOf(snapshot));
  const approve = view.expired
    ? html`<div><h3>Approve</h3><p>This quote expired on ${dateText(snapshot, snapshot.document.valid_until ?? '')}, so it can no longer be approved here. Please contact ${business} for a new quote.</p></div>`
    : html`<form method="post" action="${view.hubPath}/${view.token}/approve">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="version" value="${view.version ?? ''}">
<input type="hidden" name="document_sha256" value="${view.documentSha256 ?? ''}">
<label for="name">Your full name</label>
<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${invalid?.values.name ?? ''}" aria-describedby="name-help${nameError ? ' name-error' : ''}"${nameError ? html` aria-invalid="true" autofocus` : ''}>
${nameError ? html`<p class="field-error" id="name-error">${nameError}</p>` : ''}
${view.pad ? padFields(business, invalid?.errors.signature_image) : ''}
<p class="help" id="name-help">${view.pad ? 'Typing your name, drawing your signature' : 'Typing your name'} and approving accepts this quote for ${total}. Your signature is bound to this version of the quote (SHA-256 <code class="fingerprint">${(view.documentSha256 ?? '').slice(0, 16)}</code>…).</p>
<button type="submit" class="button">Approve quote</button>
</form>
${view.pad ? padScript(view.pad.nonce) : ''}`;
  return html`<section class="card" aria-labelledby="answer-heading">
<h2 id="answer-heading">Your answer</h2>
<div class="answer">
${approve}
<form method="post" action="${view.hubPath}/${view.token}/decline">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="version" value="${view.version ?? ''}">
<label for="reason">Reason for declining (optional)</label>
<textarea id="reason" name="reason" maxlength="2000" aria-describedby="reason-help${reasonError ? ' reason-error' : ''}"${reasonError ? html` aria-invalid="true" autofocus` : ''}>${invalid?.values.reason ?? ''}</textarea>
${reasonError ? html`<p class="field-error" id="reason-error">${reasonError}</p>` : ''}
<p class="help" id="reason-help">${business} will see your reason.</p>
<button type="submit" class="button danger">Decline quote</button>
</form>
</div>
</section>`;
}

/** The document's page: what the client was sent, its status and what they may do with it. */
export function documentPage(view: DocumentView): Html {
  const { snapshot } = view;
  const { business, client, document } = snapshot;
  const label = documentLabel(snapshot);
  const kindLabel = KIND_LABELS[snapshot.kind];
  const money = (amount: number) => formatMoney(amount, document.currency, localeOf(snapshot));
  const headline = [...dateRows(snapshot), ...fieldRows(snapshot)];
  const due =
    snapshot.kind === 'invoice' && document.amount_due !== null
      ? html`<div class="due"><dt>Amount due</dt><dd>${money(document.amount_due)}</dd></div>`
      : html`<div class="due"><dt>Total</dt><dd>${money(document.total_amount)}</dd></div>`;
  // How to pay: a sent invoice, and a sent or approved quote's deposit still due (contract §23; no card processing).
  const paysInvoice = snapshot.kind === 'invoice' && document.status === 'sent';
  const paysDeposit =
    snapshot.kind === 'quote' &&
    (document.status === 'sent' || document.status === 'approved') &&
    (document.status === 'sent' ? (document.deposit_amount ?? 0) : (document.deposit_due_amount ?? 0)) > 0;
  const contact = [business.email, business.phone, business.website].filter((part): part is string => Boolean(part));
  const body = html`<a class="skip" href="#main">Skip to the ${kindLabel.toLowerCase()}</a>
<div class="page">
<header class="business">
${view.hasLogo ? html`<img src="${view.hubPath}/${view.token}/logo" alt="${business.name}">` : html`<p class="business-name">${business.name}</p>`}
${contact.length > 0 ? html`<p class="business-contact">${contact.join(' · ')}</p>` : ''}
</header>
<main id="main">
${noticeBlock(view)}
<section class="card" aria-labelledby="document-heading">
<p class="kind">${kindLabel}</p>
<h1 id="document-heading">${document.number ?? label}</h1>
${document.title ? html`<p class="title">${document.title}</p>` : ''}
${statusBadge(snapshot, view.expired)}
<dl class="facts">
${due}
${headline.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}
</dl>
<div class="parties">
<div><h2>From</h2><p>${partyLines([business.legal_name ?? business.name, ...addressLines(business.address), business.tax_id ? `Tax ID ${business.tax_id}` : null])}</p></div>
<div><h2>${snapshot.kind === 'invoice' ? 'Bill to' : snapshot.kind === 'quote' ? 'For' : 'Credit to'}</h2><p>${partyLines([client.name, client.company_name, ...addressLines(client.address)])}</p></div>
${snapshot.service_address ? html`<div><h2>Service address</h2><p>${partyLines(serviceAddressLines(snapshot))}</p></div>` : ''}
</div>
<p class="actions"><a class="button secondary" href="${view.hubPath}/${view.token}/pdf">Download PDF</a></p>
</section>
${answerForms(view)}
<section class="card" aria-labelledby="items-heading">
<h2 id="items-heading">Items</h2>
${linesTable(snapshot)}
</section>
${filesSection(view)}
${exemptionLines(snapshot).length > 0 ? html`<section class="card" aria-labelledby="exemption-heading"><h2 id="exemption-heading">Tax exemption</h2><p class="prose">${exemptionLines(snapshot).join('\n')}</p></section>` : ''}
${document.notes ? html`<section class="card" aria-labelledby="notes-heading"><h2 id="notes-heading">Notes</h2><p class="prose">${document.notes}</p></section>` : ''}
${business.payment_instructions && (paysInvoice || paysDeposit) ? html`<section class="card" aria-labelledby="pay-heading"><h2 id="pay-heading">How to pay</h2><p class="prose">${business.payment_instructions}</p></section>` : ''}
</main>
<footer>
${business.footer ? html`<p>${business.footer}</p>` : ''}
<p>${label} from ${business.name}.</p>
</footer>
</div>`;
  return layout(view.hubPath, `${label} from ${business.name}`, body);
}
