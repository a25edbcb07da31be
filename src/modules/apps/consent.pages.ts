// The consent page and the OAuth pages' plain messages (docs/api-contract.md §25), server-rendered like the
// hub's (§12): no script, no third-party source, the hub's stylesheet. Each scope reads as a sentence.
import { html, type Html } from '../../core/html.js';
import type { Scope } from '../../kernel/scopes.js';

/** What each grantable scope lets an app do, as the consent page says it. */
export const SCOPE_SENTENCES: Partial<Record<Scope, string>> = {
  'clients:read': 'See your clients and their properties.',
  'clients:write': 'Create and change clients and their properties.',
  'clients:delete': 'Delete clients and their properties.',
  'invoices:read': 'See your invoices.',
  'invoices:write': 'Create and change invoices.',
  'invoices:delete': 'Delete draft invoices.',
  'invoices:send': 'Send invoices to your clients.',
  'quotes:read': 'See your quotes.',
  'quotes:write': 'Create and change quotes.',
  'quotes:delete': 'Delete quotes.',
  'quotes:send': 'Send quotes to your clients.',
  'jobs:read': 'See your jobs.',
  'jobs:write': 'Create and change jobs.',
  'jobs:delete': 'Delete jobs.',
  'requests:read': 'See service requests.',
  'requests:write': 'Create and change service requests.',
  'payments:read': 'See payments and refunds.',
  'payments:write': 'Record payments and refunds.',
  'events:read': 'See the history of changes in your account.',
  'account:read': 'See your business profile.',
  'account:write': 'Change your business profile and logo.',
  'team:read': 'See your team members.',
  'team:write': 'Add and change team members.',
  'visits:read': 'See visits and your calendar.',
  'visits:write': 'Schedule, move and complete visits.',
  'visits:delete': 'Delete visits.',
  'schedules:read': 'See repeating visit schedules.',
  'schedules:write': 'Create and change repeating visit schedules.',
  'catalog:read': 'See your products and tax rates.',
  'catalog:write': 'Change your products and tax rates.',
  'recurring_invoices:read': 'See recurring invoices.',
  'recurring_invoices:write': 'Create and change recurring invoices.',
  'availability:read': 'See when your team is busy (never what they do or where).',
  'availability:write': 'Change working hours and time off, and hold slots.',
  'credit_notes:read': 'See credit notes.',
  'credit_notes:write': 'Create, apply and refund credit notes.',
  'credit_notes:delete': 'Delete draft credit notes.',
  'credit_notes:send': 'Send credit notes to your clients.',
  'reports:read': 'See your reports and client balances.',
  'time_entries:read': 'See time entries.',
  'time_entries:write': 'Record and change time entries.',
  'time_entries:delete': 'Delete time entries.',
  'time_entries:approve': 'Approve time entries and lock pay periods.',
  'custom_fields:read': 'See your custom fields.',
  'custom_fields:write': 'Define and change your custom fields.',
  'tags:read': 'See your tags and how many objects hold each.',
  'tags:write': 'Rename and delete tags everywhere.',
};

export function sentenceOf(scope: Scope): string {
  return SCOPE_SENTENCES[scope] ?? scope;
}

function layout(basePath: string, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="stylesheet" href="${basePath}/hub/static/hub.css">
</head>
<body>
${body}
</body>
</html>
`;
}

export function oauthMessagePage(basePath: string, title: string, text: string): Html {
  return layout(
    basePath,
    title,
    html`<main class="page" id="main"><div class="card message"><h1>${title}</h1><p>${text}</p></div></main>`,
  );
}

export interface ConsentView {
  basePath: string;
  business: string;
  /** The business's logo, when it has one (served to the consent cookie's holder). */
  businessHasLogo: boolean;
  app: { id: string; name: string; website: string | null; publisher: string; hasLogo: boolean };
  redirectHost: string;
  granted: readonly Scope[];
  denied: readonly Scope[];
  grantId: string;
  csrf: string;
}

export function consentPage(view: ConsentView): Html {
  const { app } = view;
  return layout(
    view.basePath,
    `Connect ${app.name} to ${view.business}`,
    html`<main class="page" id="main"><div class="card">
${
  view.businessHasLogo
    ? html`<img class="logo" src="${view.basePath}/oauth/authorize/logo" alt="${view.business}">`
    : html`<p class="kind">${view.business}</p>`
}
${app.hasLogo ? html`<img class="app-logo" src="${view.basePath}/oauth/apps/${app.id}/logo" alt="${app.name}">` : ''}
<h1>Connect ${app.name}?</h1>
<p><strong>${app.name}</strong>, published by ${app.publisher}${
      app.website ? html` (<a href="${app.website}" rel="noopener noreferrer">${app.website}</a>)` : ''
    }, asks to act for ${view.business}. After you approve, it continues at <strong>${view.redirectHost}</strong>.</p>
<h2>It will be able to</h2>
<ul class="granted">${view.granted.map((scope) => html`<li data-scope="${scope}">${sentenceOf(scope)}</li>`)}</ul>
${
  view.denied.length > 0
    ? html`<h2>Not granted (your install link does not allow it)</h2>
<ul class="denied">${view.denied.map((scope) => html`<li data-scope="${scope}">${sentenceOf(scope)}</li>`)}</ul>`
    : ''
}
<p>You can uninstall it at any time; what it wrote stays.</p>
<form method="post" action="${view.basePath}/oauth/authorize">
<input type="hidden" name="grant" value="${view.grantId}">
<input type="hidden" name="csrf" value="${view.csrf}">
<button class="button" type="submit" name="decision" value="approve">Approve</button>
<button class="button secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
</div></main>`,
  );
}
