// The client hub (docs/api-contract.md §12): public pages at /hub/<token>, no API key. The token in the path
// is the credential, so it is never logged (app.ts redacts /hub/… in the log line). Each IP has its own
// rate limit; answers need the double-submit CSRF value; every page carries a strict
// Content-Security-Policy, noindex and no-referrer; whatever goes wrong is an HTML page, never JSON.
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Html } from '../../core/html.js';
import { isStorableText } from '../../core/text.js';
import { rateLimited, type RateLimiter } from '../../http/rate-limit/rate-limiter.js';
import type { LimitPolicy } from '../../http/rate-limit/token-bucket.js';
import { toAppError } from '../../http/error-handler.js';
import { documentFile } from './document-files.js';
import { sendDocumentFile } from './document-files.routes.js';
import { answerQuote, quoteVersion, signedDocument, type QuoteAnswer } from '../quotes/index.js';
import { CSRF_COOKIE, csrfCookieOptions, csrfFromCookies, csrfMatches, fromAnotherSite, newCsrfValue } from './csrf.js';
import { HUB_ACTOR, type HostedLinks, type Runtime } from '../../kernel/context.js';
import { documentPage, messagePage, notFoundPage, type HubNotice } from './hub.pages.js';
import { findLogo, findQuoteSignatureMode } from '../accounts/index.js';
import { locateHostedDocument, printHostedDocument, type HostedDocument, type HostedTarget } from './hub.service.js';
import { HUB_CSS, HUB_ICON } from './hub.styles.js';
import {
  type AttachmentSettings,
  contentHeaders,
  discardStagedSignature,
  hubFile,
  hubFiles,
  openContent,
  parseRange,
  readSignatureImage,
  type StagedSignature,
  stageSignatureImage,
} from '../attachments/index.js';

/** Per client IP: 60 at once, then 30 a minute; a person reading and answering a quote needs a handful. */
export const HUB_POLICY: LimitPolicy = { burst: 60, perMinute: 30, perDay: 2_000 };
/**
 * Per hub link, for its PDF: a render costs the business's share of the PDF threads, and the link
 * needs no key, so one link opened in a loop must not take that share. A person opens a PDF a few times.
 */
export const HUB_PDF_POLICY: LimitPolicy = { burst: 10, perMinute: 6, perDay: 200 };

/**
 * The pages' security headers, by @fastify/helmet: this policy (no script at all, but the signature pad's, by its
 * nonce: padPolicy), no referrer, never framed, and helmet's other defaults (nosniff, cross-origin isolation of
 * the pages and their files, HSTS).
 */
const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  frameguard: { action: 'deny' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
} as const;
/** A form's body: a name and a reason are all it holds. */
const FORM_BODY_LIMIT = 16_384;
/**
 * An approval's body, which may carry a drawn signature: a PNG of up to 256 KB as base64 in a data URL, URL-encoded
 * (docs/api-contract.md §30). 1 MiB lets a drawing somewhat over 256 KB arrive, to be refused on its field.
 */
const APPROVE_BODY_LIMIT = 1_048_576;
const NAME_MAX = 200;
const REASON_MAX = 2_000;

/** The policy of a page with the signature pad: the pages' own, and its one script by the page's nonce. */
function padPolicy(nonce: string) {
  const { contentSecurityPolicy } = HELMET_OPTIONS;
  return {
    contentSecurityPolicy: {
      ...contentSecurityPolicy,
      directives: { ...contentSecurityPolicy.directives, scriptSrc: [`'nonce-${nonce}'`] },
    },
  };
}

export interface HubOptions {
  links: HostedLinks;
  limiter: RateLimiter;
  /** The attachment store, for the files the page lists (docs/api-contract.md §30). */
  attachments: AttachmentSettings;
}

/** The document whose files a page lists: a quote or an invoice (a credit note's page lists none). */
function filesOwner(document: Pick<HostedDocument, 'kind' | 'id' | 'jobId'>) {
  return document.kind === 'quote' || document.kind === 'invoice'
    ? { kind: document.kind, id: document.id, jobId: document.jobId ?? null }
    : undefined;
}

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;
type FormBody = Record<string, string | undefined>;

function page(reply: FastifyReply, status: number, body: Html): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.text);
}

/** The name typed to approve, or why it cannot be taken. */
function readName(value: string | undefined): { name: string } | { error: string } {
  const name = (value ?? '').trim().replace(/\s+/g, ' ');
  if (name === '') return { error: 'Type your full name to approve.' };
  if (name.length > NAME_MAX) return { error: `Your name must be at most ${NAME_MAX} characters.` };
  if (!isStorableText(name)) return { error: 'Your name holds a character that cannot be stored.' };
  return { name };
}

function readReason(value: string | undefined): { reason: string | null } | { error: string } {
  const reason = (value ?? '').trim();
  if (reason.length > REASON_MAX) return { error: `The reason must be at most ${REASON_MAX} characters.` };
  if (!isStorableText(reason)) return { error: 'The reason holds a character that cannot be stored.' };
  return { reason: reason === '' ? null : reason };
}

export function hubRoutes(options: HubOptions) {
  const secureCookie = options.links.publicBaseUrl.startsWith('https:');
  const publicUrl = new URL(options.links.publicBaseUrl);
  const hubPath = `${publicUrl.pathname.replace(/\/$/, '')}/hub`;

  return async (app: FastifyInstance): Promise<void> => {
    /** What the hub's operations run with before a token names an account. */
    const runtime = (): Runtime => ({ db: app.db, clock: app.clock, links: app.links });
    // Pages, not API operations: kept out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(helmet, HELMET_OPTIONS);
    await app.register(cookie);
    // One value per field (the last, as a browser sends each once): a field repeated cannot become an array.
    await app.register(formbody, {
      bodyLimit: FORM_BODY_LIMIT,
      parser: (body) => Object.fromEntries(new URLSearchParams(body)),
    });

    app.addHook('onRequest', async (request) => {
      const admission = await options.limiter.admitAnonymous(`hub:${request.ip}`, HUB_POLICY, app.clock.now());
      if (!admission.allowed) throw rateLimited(admission.retryAfter);
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-robots-tag', 'noindex, nofollow');
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    });

    app.setErrorHandler((error: Error, request, reply) => {
      const known = toAppError(error);
      if (known?.code === 'RATE_LIMITED')
        return page(
          reply.headers(known.headers),
          429,
          messagePage(hubPath, 'Too many requests', 'Please wait a minute and try again.'),
        );
      if (known?.code === 'NOT_FOUND') return page(reply, 404, notFoundPage(hubPath));
      if (known?.code === 'SERVICE_UNAVAILABLE')
        return page(
          reply.headers(known.headers),
          503,
          messagePage(hubPath, 'Please try again', 'This page is busy right now. Please try again in a moment.'),
        );
      if (known && known.status < 500)
        return page(
          reply,
          known.status === 413 ? 413 : 400,
          messagePage(hubPath, 'Something was wrong with the request', 'Go back, reload the page and try again.'),
        );
      request.log.error({ err: error }, 'unhandled error on the hub');
      return page(
        reply,
        500,
        messagePage(hubPath, 'Something went wrong', 'We could not show this page. Please try again later.'),
      );
    });
    app.setNotFoundHandler((_request, reply) => page(reply, 404, notFoundPage(hubPath)));

    app.get('/static/hub.css', async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(HUB_CSS),
    );
    app.get('/static/icon.svg', async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(HUB_ICON),
    );

    /** The document's page; `notice` and `status` when an answer was refused. */
    async function showDocument(
      request: TokenRequest,
      reply: FastifyReply,
      document: HostedDocument,
      status = 200,
      notice?: HubNotice,
    ): Promise<FastifyReply> {
      let csrf: string | undefined;
      if (document.quote?.status === 'sent') {
        csrf = csrfFromCookies(request.cookies);
        if (csrf === undefined) {
          csrf = newCsrfValue();
          reply.setCookie(CSRF_COOKIE, csrf, csrfCookieOptions(secureCookie, hubPath));
        }
      }
      const answer = document.quote && {
        approved_at: document.quote.approved_at,
        approved_by: document.quote.approved_by,
        declined_at: document.quote.declined_at,
        decline_reason: document.quote.decline_reason,
      };
      // A drawn signature (the account's `quote_signature`): the pad's script runs by this page's nonce alone.
      const pad =
        csrf !== undefined && !document.expired && document.signatureMode === 'drawn'
          ? { nonce: randomBytes(16).toString('base64') }
          : undefined;
      if (pad) reply.helmet(padPolicy(pad.nonce));
      const owner = filesOwner(document);
      const files = owner
        ? await hubFiles({ ...runtime(), accountId: document.accountId, actor: HUB_ACTOR }, owner)
        : [];
      const view = {
        hubPath,
        token: request.params.token,
        files,
        snapshot: document.snapshot,
        hasLogo: document.hasLogo,
        expired: document.expired,
        csrf,
        ...(document.quote
          ? { version: quoteVersion(document.quote), documentSha256: signedDocument(document.quote).sha256 }
          : {}),
        ...(answer ? { answer } : {}),
        ...(notice ? { notice } : {}),
        ...(pad ? { pad } : {}),
      };
      return page(reply, status, documentPage(view));
    }

    /** The document the token names (404 page when none); the PDF, the logo and an answer need no more. */
    async function requireTarget(request: TokenRequest): Promise<HostedTarget> {
      const target = await locateHostedDocument(app.db, request.params.token);
      if (!target) throw new AppError('NOT_FOUND', 'No such page.');
      return target;
    }

    /** The document as its page prints it. */
    async function requireDocument(request: TokenRequest, target?: HostedTarget): Promise<HostedDocument> {
      return printHostedDocument(runtime(), target ?? (await requireTarget(request)), app.clock.now());
    }

    app.get('/:token', async (request: TokenRequest, reply) =>
      showDocument(request, reply, await requireDocument(request)),
    );

    app.get('/:token/pdf', async (request: TokenRequest, reply) => {
      const target = await requireTarget(request);
      const admission = await options.limiter.admitAnonymous(
        `hub-pdf:${target.kind}:${target.id}`,
        HUB_PDF_POLICY,
        app.clock.now(),
      );
      if (!admission.allowed) throw rateLimited(admission.retryAfter);
      return sendDocumentFile(
        request,
        reply,
        await documentFile(
          { ...runtime(), accountId: target.accountId, actor: HUB_ACTOR },
          app.pdf,
          target.kind,
          target.id,
          app.clock.now(),
          { store: options.attachments.store },
        ),
      );
    });

    // A listed file, with the download's headers (docs/api-contract.md §30) and the hub's limits.
    app.get(
      '/:token/files/:id',
      async (
        request: FastifyRequest<{ Params: { token: string; id: string }; Querystring: { disposition?: string } }>,
        reply,
      ) => {
        const document = await requireDocument(request as TokenRequest);
        const owner = filesOwner(document);
        const ctx = { ...runtime(), accountId: document.accountId, actor: HUB_ACTOR };
        const row = owner ? await hubFile(ctx, owner, request.params.id) : undefined;
        if (!row) throw new AppError('NOT_FOUND', 'No such file.');
        const size = Number(row.size_bytes);
        const range = parseRange(request.headers.range, size);
        if (range === 'unsatisfiable')
          return reply.code(416).header('content-range', `bytes */${size}`).type('text/plain; charset=utf-8').send('');
        const stream = await openContent(options.attachments.store, row, range);
        const disposition = request.query.disposition === 'inline' ? 'inline' : 'attachment';
        // The file's own policy replaces the page's: nothing in it may load or run anything.
        reply.headers(contentHeaders(row, disposition));
        if (range)
          reply
            .code(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
            .header('content-length', range.end - range.start + 1);
        else reply.header('content-length', size);
        return reply.send(stream);
      },
    );

    app.get('/:token/logo', async (request: TokenRequest, reply) => {
      const logo = await findLogo(app.db, (await requireTarget(request)).accountId);
      if (!logo) throw new AppError('NOT_FOUND', 'No logo.');
      return reply.type(logo.content_type).header('cache-control', 'private, max-age=300').send(logo.data);
    });

    /** An answer: from this site with the CSRF value, valid, then recorded once; the page after it shows the outcome. */
    async function answer(
      request: TokenRequest,
      reply: FastifyReply,
      read: (body: FormBody, target: HostedTarget) => QuoteAnswer | HubNotice | Promise<QuoteAnswer | HubNotice>,
    ): Promise<FastifyReply> {
      const target = await requireTarget(request);
      const body = (request.body ?? {}) as FormBody;
      const ownOrigins = [publicUrl.origin, `${request.protocol}://${request.host}`];
      if (fromAnotherSite(request.headers, ownOrigins) || !csrfMatches(csrfFromCookies(request.cookies), body.csrf)) {
        return page(
          reply,
          403,
          messagePage(
            hubPath,
            'This form has expired',
            'Your answer was not recorded. Go back, reload the page and answer again. (Your browser must accept cookies from this page.)',
          ),
        );
      }
      const parsed = await read(body, target);
      if ('kind' in parsed) return showDocument(request, reply, await requireDocument(request, target), 422, parsed);
      const signer = { ipAddress: request.ip ?? null, userAgent: request.headers['user-agent']?.slice(0, 500) ?? null };
      const signing =
        parsed.decision === 'approve'
          ? { documentSha256: body.document_sha256 === '' ? undefined : body.document_sha256, signer }
          : {};
      const image = parsed.decision === 'approve' ? parsed.image : undefined;
      let outcome: Awaited<ReturnType<typeof answerQuote>>;
      try {
        outcome = await answerQuote(runtime(), request.params.token, {
          ...parsed,
          ...signing,
          version: body.version,
        } as QuoteAnswer);
      } catch (error) {
        // The drawing could not be stored (the account's attachment quota, or the quote's 200 files): not signed.
        if (!image || !(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
        return showDocument(request, reply, await requireDocument(request, target), 422, {
          kind: 'invalid',
          errors: {
            signature_image:
              'Your signature could not be stored, so the quote is not approved. Please contact the business.',
          },
          values: { name: body.name ?? '', reason: '' },
        });
      } finally {
        if (image) await discardStagedSignature(image);
      }
      if (outcome === undefined) throw new AppError('NOT_FOUND', 'No such page.');
      if (outcome === 'expired')
        return showDocument(request, reply, await requireDocument(request), 409, { kind: 'expired' });
      // The quote changed since the page was loaded: the answer was to another version; show this one.
      if (outcome === 'changed')
        return showDocument(request, reply, await requireDocument(request), 409, { kind: 'changed' });
      if (outcome === 'closed')
        return showDocument(request, reply, await requireDocument(request), 409, { kind: 'closed' });
      // Post/redirect/get: a reload of the confirmation does not send the answer again.
      return reply.code(303).header('location', `${hubPath}/${request.params.token}`).send();
    }

    app.post('/:token/approve', { bodyLimit: APPROVE_BODY_LIMIT }, async (request: TokenRequest, reply) =>
      answer(request, reply, async (body, target) => {
        const name = readName(body.name);
        const errors: { name?: string; signature_image?: string } = 'error' in name ? { name: name.error } : {};
        // A drawn signature (the account's `quote_signature: drawn`): checked, then staged to be stored with the
        // approval; a typed one ignores the field.
        let image: StagedSignature | undefined;
        if ((await findQuoteSignatureMode(app.db, target.accountId)) === 'drawn') {
          try {
            const png = await readSignatureImage(body.signature_image, (data) =>
              app.pdf.isBlankSignature(data, target.accountId),
            );
            if (!('error' in name)) image = await stageSignatureImage(options.attachments.store, png);
          } catch (error) {
            if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
            errors.signature_image = error.details?.[0]?.message ?? error.message;
          }
        }
        return 'error' in name || errors.signature_image !== undefined
          ? { kind: 'invalid', errors, values: { name: body.name ?? '', reason: '' } }
          : { decision: 'approve', name: name.name, version: undefined, image };
      }),
    );

    app.post('/:token/decline', async (request: TokenRequest, reply) =>
      answer(request, reply, (body) => {
        const reason = readReason(body.reason);
        return 'error' in reason
          ? { kind: 'invalid', errors: { reason: reason.error }, values: { name: '', reason: body.reason ?? '' } }
          : { decision: 'decline', reason: reason.reason, version: undefined };
      }),
    );
  };
}
