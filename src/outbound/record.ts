// Test mode's record of what went out: every request the one sender makes, sent or not, is
// handed to a recorder when the policy carries one. A URL on the inbox host is recorded and
// answered 200 without leaving the machine, so a test needs no receiver of its own.
export const INBOX_HOST = 'inbox.test';

export interface OutboundRecord {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  /** The answer; null when none came (refused, unreachable, timed out). */
  response: { status: number; headers: Record<string, string>; body: string } | null;
  /** Why no answer came; null when one did. */
  error: string | null;
  /** What sent it (a hook: `{hook_id, hook_type}`), as the caller said. */
  origin: Record<string, unknown> | null;
}

/** How the inbox answers one request: an answer, or no answer (the error a real receiver's fault would give). */
export type InboxAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { error: string; timeout: boolean };

export interface OutboundRecorder {
  record(r: OutboundRecord): void;
  /** The inbox's answer to a request (200 unless a test asked for a fault or a delay), within `timeoutMs`. */
  answerInbox?(method: string, url: string, timeoutMs: number): Promise<InboxAnswer>;
}

export const isInboxUrl = (url: URL): boolean => url.hostname === INBOX_HOST;
