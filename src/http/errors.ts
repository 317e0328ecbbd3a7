// The one place where a domain error becomes an HTTP status and body.
import type { FastifyError } from 'fastify';
import { DomainError, type ErrorKind } from '../domain/errors.js';

export interface HttpError {
  status: number;
  body: unknown; // object → JSON; string → text/plain
  headers?: Record<string, string>;
}

export const UNKNOWN_ROUTE: HttpError = { status: 404, body: { error: '404 Not Found' } };
const TOO_LARGE: HttpError = { status: 413, body: { message: '413 Request Entity Too Large' } };
export const INTERNAL: HttpError = { status: 500, body: { message: '500 Internal Server Error' } };

export function fromKind(e: ErrorKind): HttpError {
  switch (e.kind) {
    case 'not_found':
      return { status: 404, body: { message: e.resource ? `404 ${e.resource} Not Found` : '404 Not Found' } };
    case 'record_not_found':
      return { status: 404, body: { message: '404 Not found' } };
    case 'refused':
      return { status: 403, body: { message: e.message } };
    case 'missing':
      return { status: 400, body: { message: `400 (Bad request) "${e.attribute}" not given` } };
    case 'invalid_params':
      return { status: 400, body: { error: e.message } };
    case 'validation':
      return { status: 400, body: { message: e.messages } };
    case 'bad_request':
      return { status: 400, body: { message: e.reason ? `400 Bad request - ${e.reason}` : '400 Bad request' } };
    case 'api_error':
      return { status: e.status, body: { message: e.message } };
    case 'push_refused': // the API answers a refused ref change as the reference's PreReceiveError: 400 with git's message
      return { status: 400, body: { message: e.message } };
    case 'unauthorized':
      return { status: 401, body: { message: '401 Unauthorized' } };
    case 'forbidden':
      return { status: 403, body: { message: e.reason ? `403 Forbidden - ${e.reason}` : '403 Forbidden' }, headers: e.headers };
    case 'insufficient_scope':
      return {
        status: 403,
        body: {
          error: 'insufficient_scope',
          error_description: 'The request requires higher privileges than provided by the access token.',
          scope: e.scopes.join(' '),
        },
      };
    case 'conflict':
      return { status: 409, body: { message: e.message } };
    case 'unprocessable':
      return { status: 422, body: { message: e.message } };
    case 'payload_too_large':
      return TOO_LARGE;
    case 'method_not_allowed':
      return { status: 405, body: { message: e.message ?? '405 Method Not Allowed' } };
    case 'precondition_failed':
      return { status: 412, body: { message: '412 Precondition Failed' } };
    case 'too_many_requests':
      return { status: 429, body: e.text, headers: e.headers };
    case 'not_modified':
      return { status: 304, body: '' };
    case 'range_not_satisfiable':
      return { status: 416, body: '416 Range Not Satisfiable', headers: { 'content-range': `bytes */${e.size}` } };
    case 'throttled':
      return { status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } };
    case 'invalid_hook_url':
      return { status: 422, body: { error: 'Invalid url given' } };
    case 'exact':
      return { status: e.status, body: e.body };
  }
}

/** Maps anything thrown while handling a request. Unknown errors become a bare 500. */
export function toHttpError(err: unknown, contentType = ''): HttpError | null {
  if (err instanceof DomainError) return fromKind(err.detail);
  const fe = err as FastifyError;
  switch (fe?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: `The provided content-type '${contentType.split(';')[0].trim()}' is not supported.` } };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return TOO_LARGE;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { status: 400, body: { message: '400 Bad request' } };
  }
  if (fe?.statusCode === 400 && (fe as any).code === 'ANVIL_BAD_BODY') {
    return { status: 400, body: { error: fe.message } };
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, body: { message: `${fe.statusCode} ${fe.message}` } };
  }
  return null;
}
