export type SessionForkErrorCode =
  | 'SESSION_ALREADY_EXISTS'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_NOT_LIVE'
  | 'INVALID_BOUNDARY'
  | 'OPEN_TURN'
  | 'WRITE_FAILED'
  | 'READ_FAILED'
  | 'INVALID_SEED'
  | 'INVALID_SESSION_ID'
  | 'MIXED_ENCODING'
  | 'UNSUPPORTED_FORMAT';

/** Typed refusal of snapshot/fork/create. The UI shows `code` and `message` as they are. */
export class SessionForkError extends Error {
  override readonly name = 'SessionForkError';
  constructor(
    readonly code: SessionForkErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
  toJSON(): { name: string; code: string; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

export const isSessionForkError = (e: unknown): e is SessionForkError => e instanceof SessionForkError;

/** A refusal or failure as the browser shows it: the store's code (ERROR for any other error) and message. */
export interface Problem {
  code: string;
  message: string;
}

export const problemOf = (e: unknown): Problem =>
  isSessionForkError(e) ? { code: e.code, message: e.message } : { code: 'ERROR', message: e instanceof Error ? e.message : String(e) };
