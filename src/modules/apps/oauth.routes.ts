// The authorization server's endpoints (docs/api-contract.md §25): the install link, authorize and the consent
// page, token, revoke, introspect, and the RFC 8414 / RFC 9728 metadata. They are not /v1: no envelope, no /v1
// bucket, form-encoded bodies, RFC 6749 §5.2 errors (with the seed's `meta` beside them); the pages are pages,
// served like the hub's, with `frame-ancestors 'none'` and `no-store`. Kept out of the OpenAPI document, which
// names them through its `oauth2` security scheme.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../../core/html.js';
import { meta } from '../../http/envelope.js';
import { rateLimited, type RateLimiter } from '../../http/rate-limit/rate-limiter.js';
import type { LimitPolicy } from '../../http/rate-limit/token-bucket.js';
import { toAppError } from '../../http/error-handler.js';
import { GRANTABLE_SCOPES } from '../../kernel/scopes.js';
import type { Runtime } from '../../kernel/context.js';
import { fromAnotherSite } from '../sent-documents/index.js';
import { findLogo, hasLogo } from '../accounts/index.js';
import { isUuid } from '../../core/deps.js';
import * as repository from './apps.repository.js';
import { csrfValue, decide, liveConsent, openInstallLink, startAuthorization } from './authorization.js';
import { consentPage, oauthMessagePage } from './consent.pages.js';
import { authenticateClient, OAuthError } from './oauth-clients.js';
import { APP_LIMITS, type AppSettings } from './settings.js';
import { introspect, redeemCode, refresh, revoke } from './tokens.js';

const CONSENT_COOKIE = 'bms_oauth_consent';
const FORM_BODY_LIMIT = 16_384;
/** Per app at the token endpoint (§32): 60 a minute. */
const TOKEN_POLICY: LimitPolicy = {
  burst: APP_LIMITS.tokenRequestsPerMinute,
  perMinute: APP_LIMITS.tokenRequestsPerMinute,
  perDay: Number.MAX_SAFE_INTEGER,
};
/** Per client IP on the pages, as the hub's. */
const PAGE_POLICY: LimitPolicy = { burst: 60, perMinute: 30, perDay: 2_000 };

const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      // Approve and Deny answer 302 to the app's redirect URI: a form's navigation must be allowed to follow it.
      formAction: ["'self'", 'https:', 'http://127.0.0.1:*', 'http://[::1]:*'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  frameguard: { action: 'deny' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
} as const;

type Form = Record<string, string | undefined>;
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
};

export interface OAuthRouteOptions {
  settings: AppSettings;
  limiter: RateLimiter;
}

export function oauthRoutes(options: OAuthRouteOptions) {
  const { settings, limiter } = options;
  const publicUrl = new URL(settings.issuer);
  const basePath = publicUrl.pathname.replace(/\/$/, '');
  const secureCookie = publicUrl.protocol === 'https:';

  return async (app: FastifyInstance): Promise<void> => {
    const runtime = (): Runtime => ({ db: app.db, clock: app.clock, links: app.links });
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(helmet, HELMET_OPTIONS);
    await app.register(cookie);
    await app.register(formbody, {
      bodyLimit: FORM_BODY_LIMIT,
      // One value per field (the last): a repeated field cannot become an array.
      parser: (body) => Object.fromEntries(new URLSearchParams(body)),
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      reply.header('x-robots-tag', 'noindex, nofollow');
      return payload;
    });

    const page = (reply: FastifyReply, status: number, body: Html) =>
      reply.code(status).type('text/html; charset=utf-8').send(body.text);
    const message = (reply: FastifyReply, status: number, title: string, text: string) =>
      page(reply, status, oauthMessagePage(basePath, title, text));
    const oauthError = (request: FastifyRequest, reply: FastifyReply, error: OAuthError) =>
      reply
        .code(error.status)
        .headers(error.headers)
        .send({ error: error.error, error_description: error.description, meta: meta(request) });

    app.setErrorHandler((error: Error, request, reply) => {
      const known = toAppError(error);
      const isPage = request.url.startsWith(`/oauth/install`) || request.url.startsWith('/oauth/authorize');
      if (known?.code === 'RATE_LIMITED' || known?.code === 'SERVICE_UNAVAILABLE') {
        reply.headers(known.headers);
        if (isPage) return message(reply, known.status, 'Too many requests', 'Please wait a minute and try again.');
        return reply
          .code(known.status)
          .send({ error: 'temporarily_unavailable', error_description: known.message, meta: meta(request) });
      }
      if (known && known.status < 500) {
        if (isPage) return message(reply, 400, 'Something was wrong with the request', 'Go back and try again.');
        return oauthError(request, reply, new OAuthError('invalid_request', known.message));
      }
      request.log.error({ err: error }, 'unhandled error on the authorization server');
      if (isPage) return message(reply, 500, 'Something went wrong', 'Please try again later.');
      return reply
        .code(500)
        .send({ error: 'server_error', error_description: 'An unexpected fault.', meta: meta(request) });
    });

    /** A page request from this IP, as the hub limits them. */
    const admitPage = async (request: FastifyRequest) => {
      const admission = await limiter.admitAnonymous(`oauth-page:${request.ip}`, PAGE_POLICY, app.clock.now());
      if (!admission.allowed) throw rateLimited(admission.retryAfter);
    };

    app.get('/oauth/install/:token', async (request: FastifyRequest<{ Params: { token: string } }>, reply) => {
      await admitPage(request);
      const opened = await openInstallLink(runtime(), settings, request.params.token);
      if (!opened)
        return message(reply, 404, 'Page not found', 'This link does not lead to a page. Ask for a new install link.');
      reply.setCookie(CONSENT_COOKIE, opened.consent, {
        path: `${basePath}/oauth`,
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookie,
        maxAge: APP_LIMITS.consentSeconds,
      });
      return reply.code(303).header('location', opened.installUrl).send();
    });

    app.get('/oauth/authorize', async (request, reply) => {
      await admitPage(request);
      const query = Object.fromEntries(
        Object.entries(request.query as Record<string, unknown>).map(([name, value]) => [
          name,
          Array.isArray(value) ? undefined : (value as string | undefined),
        ]),
      );
      const consent = request.cookies[CONSENT_COOKIE];
      const outcome = await startAuthorization(runtime(), settings, query, consent);
      if (outcome.kind === 'page')
        return message(
          reply,
          400,
          outcome.reason === 'unknown_client' ? 'Unknown app' : 'Unregistered redirect address',
          outcome.reason === 'unknown_client'
            ? 'No app with this client_id exists here. The app’s link is wrong.'
            : 'The app asked to return to an address it has not registered. Nothing was sent to it.',
        );
      if (outcome.kind === 'redirect') return reply.code(302).header('location', outcome.location).send();
      if (outcome.kind === 'no_consent')
        return message(
          reply,
          403,
          `Install ${outcome.app.name} from your account`,
          'To connect this app, ask for an install link: an API key holding apps:install makes one (POST /v1/app-install-links). Open it in this browser within its time, then continue here.',
        );
      const business = await repository.findPublisherName(app.db, outcome.link.account_id);
      const publisher = await repository.findPublisherName(app.db, outcome.app.account_id);
      return page(
        reply,
        200,
        consentPage({
          basePath,
          business,
          businessHasLogo: await hasLogo(app.db, outcome.link.account_id),
          app: {
            id: outcome.app.id,
            name: outcome.app.name,
            website: outcome.app.website,
            publisher,
            hasLogo: outcome.app.logo_sha256 !== null,
          },
          redirectHost: new URL(outcome.grant.redirect_uri).host,
          granted: JSON.parse(outcome.grant.scopes),
          denied: outcome.denied,
          grantId: outcome.grant.id,
          csrf: csrfValue(consent as string, outcome.grant.id),
        }),
      );
    });

    const image = (reply: FastifyReply, logo: { content_type: string; data: Buffer } | undefined) =>
      logo
        ? reply.type(logo.content_type).send(logo.data)
        : message(reply, 404, 'Page not found', 'There is no image here.');

    // The consent page's images (its CSP allows images from here alone): the app's logo, which it shows to every
    // business, and the business's own, to the holder of its consent cookie only.
    app.get('/oauth/apps/:id/logo', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      await admitPage(request);
      const { id } = request.params;
      const known = isUuid(id) ? await repository.findAppById(app.db, id) : undefined;
      return image(reply, known && (await repository.findAppLogo(app.db, known.id)));
    });

    app.get('/oauth/authorize/logo', async (request, reply) => {
      await admitPage(request);
      const link = await liveConsent(runtime(), settings, request.cookies[CONSENT_COOKIE]);
      return image(reply, link && (await findLogo(app.db, link.account_id)));
    });

    app.post('/oauth/authorize', async (request, reply) => {
      await admitPage(request);
      const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
      const ownOrigins = [publicUrl.origin, `${request.protocol}://${request.host}`];
      const outcome = fromAnotherSite(request.headers, ownOrigins)
        ? ({ kind: 'forbidden' } as const)
        : await decide(runtime(), settings, request.cookies[CONSENT_COOKIE], form);
      if (outcome.kind === 'forbidden')
        return message(
          reply,
          403,
          'This form has expired',
          'Nothing was approved. Open a new install link to try again. (Your browser must accept cookies from this page.)',
        );
      reply.clearCookie(CONSENT_COOKIE, { path: `${basePath}/oauth` });
      return reply.code(302).header('location', outcome.location).send();
    });

    /** The client of a token, revoke or introspect request; a failure counts toward the IP's failed authentications. */
    const client = async (request: FastifyRequest, form: Form, confidentialOnly = false) => {
      const now = app.clock.now();
      const blocked = await limiter.blockedFor(request.ip, now);
      if (blocked !== undefined) throw rateLimitedError(blocked);
      try {
        return await authenticateClient(app.db, settings.pepper, now, request.headers.authorization, form, {
          confidentialOnly,
        });
      } catch (error) {
        if (error instanceof OAuthError) await limiter.recordFailedAuthentication(request.ip, now);
        throw error;
      }
    };
    const formOf = (request: FastifyRequest): Form => {
      const type = request.headers['content-type'] ?? '';
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded'))
        throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
      return (request.body ?? {}) as Form;
    };
    const answering =
      (handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        reply.headers(CORS);
        try {
          return await handler(request, reply);
        } catch (error) {
          if (error instanceof OAuthError) return oauthError(request, reply, error);
          throw error;
        }
      };

    app.post(
      '/oauth/token',
      answering(async (request) => {
        const form = formOf(request);
        const { app: client_ } = await client(request, form);
        const admission = await limiter.admitAnonymous(`oauth-token:${client_.id}`, TOKEN_POLICY, app.clock.now());
        if (!admission.allowed) throw rateLimitedError(admission.retryAfter);
        const grantType = form.grant_type;
        const answer =
          grantType === 'authorization_code'
            ? await redeemCode(runtime(), settings, client_, form)
            : grantType === 'refresh_token'
              ? await refresh(runtime(), settings, client_, form)
              : undefined;
        if (!answer)
          throw grantType === undefined
            ? new OAuthError('invalid_request', 'grant_type is required.')
            : new OAuthError('unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
        return { ...answer, meta: meta(request) };
      }),
    );

    app.post(
      '/oauth/revoke',
      answering(async (request) => {
        const form = formOf(request);
        const { app: client_ } = await client(request, form);
        await revoke(runtime(), settings, client_, form.token);
        return { meta: meta(request) };
      }),
    );

    app.post(
      '/oauth/introspect',
      answering(async (request) => {
        const form = formOf(request);
        const { app: client_ } = await client(request, form, true);
        return { ...(await introspect(runtime(), settings, client_, form.token)), meta: meta(request) };
      }),
    );

    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect'])
      app.options(path, async (_request, reply) => reply.code(204).headers(CORS).send());

    app.get('/.well-known/oauth-authorization-server', async (request) => ({
      issuer: settings.issuer,
      authorization_endpoint: `${settings.issuer}/oauth/authorize`,
      token_endpoint: `${settings.issuer}/oauth/token`,
      revocation_endpoint: `${settings.issuer}/oauth/revoke`,
      introspection_endpoint: `${settings.issuer}/oauth/introspect`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: GRANTABLE_SCOPES,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${settings.issuer}/docs`,
      meta: meta(request),
    }));

    const protectedResource = async (request: FastifyRequest) => ({
      resource: `${settings.issuer}/mcp`,
      authorization_servers: [settings.issuer],
      scopes_supported: GRANTABLE_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'BMS MCP server',
      meta: meta(request),
    });
    app.get('/.well-known/oauth-protected-resource', protectedResource);
    app.get('/.well-known/oauth-protected-resource/mcp', protectedResource);
  };
}

function rateLimitedError(retryAfter: number): OAuthError {
  return new OAuthError('slow_down', 'Too many requests; wait and try again.', 429, {
    'retry-after': String(Math.max(1, retryAfter)),
  });
}
