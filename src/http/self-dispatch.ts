// A request to this app itself, as the caller of `request` would make it (same key, same address): how a change
// set's operations run through their routes' own code (docs/api-contract.md §26), from /v1 and from /mcp.
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface SelfRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  ifMatch?: string;
}

export interface SelfAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

export type SelfDispatch = (request: SelfRequest) => Promise<SelfAnswer>;

export function selfDispatch(request: FastifyRequest): SelfDispatch {
  const app = request.server;
  return async (operation) => {
    const headers: Record<string, string> = {};
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    if (operation.ifMatch !== undefined) headers['if-match'] = operation.ifMatch;
    const hasBody = operation.body !== undefined && operation.method !== 'GET';
    if (hasBody) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method: operation.method,
      url: operation.path,
      headers,
      remoteAddress: request.ip,
      ...(hasBody ? { payload: JSON.stringify(operation.body) } : {}),
    });
    const text = response.body;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: text === '' ? null : (JSON.parse(text) as unknown),
    };
  };
}

/**
 * Requests to `app` with no key: for work done outside a request (the imports worker), inside an operation scope
 * that names who acts (`runAsOperation({ auth, … })`), so each goes through its route's own code as that caller.
 */
export function appDispatch(app: FastifyInstance): SelfDispatch {
  return async (operation) => {
    const headers: Record<string, string> = {};
    if (operation.ifMatch !== undefined) headers['if-match'] = operation.ifMatch;
    const hasBody = operation.body !== undefined && operation.method !== 'GET';
    if (hasBody) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method: operation.method,
      url: operation.path,
      headers,
      remoteAddress: '127.0.0.1',
      ...(hasBody ? { payload: JSON.stringify(operation.body) } : {}),
    });
    const text = response.body;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: text === '' ? null : (JSON.parse(text) as unknown),
    };
  };
}
