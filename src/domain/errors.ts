// Domain errors carry a kind; src/http/errors.ts turns each kind into the exact status and body once.

export type ValidationMessages = Record<string, string[] | Record<string, string[]>>;

export type ErrorKind =
  | { kind: 'not_found'; resource: string | null }
  | { kind: 'record_not_found' }                           // a record lookup that failed (Rails' RecordNotFound: `404 Not found`)
  | { kind: 'missing'; attribute: string }
  | { kind: 'invalid_params'; message: string }            // parameter type/value errors (Grape's `{error}` form)
  | { kind: 'validation'; messages: ValidationMessages }    // model validation (`{message: {field: [...]}}`)
  | { kind: 'bad_request'; reason: string | null }
  | { kind: 'api_error'; message: string; status: number } // a service's refusal as `{message}` (render_api_error!, 400 unless said)
  | { kind: 'push_refused'; message: string }              // a ref change the git checks refuse (git's words; 400 through the API)
  | { kind: 'unauthorized' }
  | { kind: 'forbidden'; reason: string | null; headers?: Record<string, string> }
  | { kind: 'refused'; message: string }                  // 403 with the reference's own message (`error!(msg, 403)`)
  | { kind: 'insufficient_scope'; scopes: string[] }
  | { kind: 'conflict'; message: string | ValidationMessages }
  | { kind: 'unprocessable'; message: string | string[] }     // 422; a list is a record's full_messages
  | { kind: 'payload_too_large' }
  | { kind: 'method_not_allowed'; message: string | null }
  | { kind: 'precondition_failed' }
  | { kind: 'too_many_requests'; text: string; headers?: Record<string, string> } // text/plain, with Retry-After etc.
  | { kind: 'not_modified' }
  | { kind: 'range_not_satisfiable'; size: number }         // a byte range outside the file (416, with the file's size)
  | { kind: 'throttled' }                                     // the reference's check_rate_limit! (API-level application limits)
  | { kind: 'invalid_hook_url' }                            // a hook URL that is not http(s) or that outbound rules refuse
  | { kind: 'exact'; status: number; body: unknown };  // an exact body the reference sends

export class DomainError extends Error {
  constructor(readonly detail: ErrorKind) {
    super(detail.kind);
  }
}

export const notFound = (resource: string | null = null) => new DomainError({ kind: 'not_found', resource });
export const recordNotFound = () => new DomainError({ kind: 'record_not_found' });
export const refused = (message: string) => new DomainError({ kind: 'refused', message });
export const missing = (attribute: string) => new DomainError({ kind: 'missing', attribute });
export const invalidParams = (message: string) => new DomainError({ kind: 'invalid_params', message });
export const validation = (messages: ValidationMessages) => new DomainError({ kind: 'validation', messages });
export const badRequest = (reason: string | null = null) => new DomainError({ kind: 'bad_request', reason });
export const apiError = (message: string, status = 400) => new DomainError({ kind: 'api_error', message, status });
export const pushRefused = (message: string) => new DomainError({ kind: 'push_refused', message });
export const unauthorized = () => new DomainError({ kind: 'unauthorized' });
export const forbidden = (reason: string | null = null, headers?: Record<string, string>) =>
  new DomainError(headers ? { kind: 'forbidden', reason, headers } : { kind: 'forbidden', reason });
export const insufficientScope = (scopes: string[]) => new DomainError({ kind: 'insufficient_scope', scopes });
export const conflict = (message: string | ValidationMessages) => new DomainError({ kind: 'conflict', message });
export const unprocessable = (message: string | string[]) => new DomainError({ kind: 'unprocessable', message });
export const payloadTooLarge = () => new DomainError({ kind: 'payload_too_large' });
export const methodNotAllowed = (message: string | null = null) => new DomainError({ kind: 'method_not_allowed', message });
export const preconditionFailed = () => new DomainError({ kind: 'precondition_failed' });
export const tooManyRequests = (text: string, headers: Record<string, string> = {}) => new DomainError({ kind: 'too_many_requests', text, headers });
export const notModified = () => new DomainError({ kind: 'not_modified' });
export const rangeNotSatisfiable = (size: number) => new DomainError({ kind: 'range_not_satisfiable', size });
export const throttled = () => new DomainError({ kind: 'throttled' });
export const invalidHookUrl = () => new DomainError({ kind: 'invalid_hook_url' });
export const exactError = (status: number, body: unknown) => new DomainError({ kind: 'exact', status, body });
