import type { ServerResponse } from 'node:http';
import { errors } from '../http/errors.ts';
import type { Queryable } from '../store/db.ts';
import { liveSessionHashes } from '../store/sessions.ts';

/** Open streams per process; past it a new one is refused with 503 (the page then polls). */
export const MAX_STREAMS = 1000;
/**
 * Open streams of one user (all their sessions together) per process; past it a new one is 429. A
 * browser opens one per Explorer tab and keeps at most six connections to a server anyway.
 */
export const MAX_STREAMS_PER_USER = 4;
/** How often the sessions of open streams are read again: a sign-out in another process is seen by then. */
export const SESSION_RECHECK_MS = 10_000;
/** setTimeout's longest delay; a session ending later is caught by the re-check. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why the server ended a stream: the `reason` of its last event, `end`. */
export type EndReason = 'signed_out' | 'expired' | 'shutdown';

interface OpenStream {
  userId: string;
  /** The session's token hash (the sessions table's key). */
  session: string;
  res: ServerResponse;
  end: (reason: EndReason) => void;
}

/**
 * The event streams open in this process, by user and session: the caps, and the end of a session's
 * streams when it ends — at once on sign-out in this process, at its expiry time, and within
 * SESSION_RECHECK_MS when another process signed it out (one query for all open streams).
 */
export class SessionStreams {
  readonly #open = new Set<OpenStream>();
  #recheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date,
    private readonly recheckMs = SESSION_RECHECK_MS,
  ) {}

  /** Refuses a new stream of `userId` over a cap (429 for the user's, 503 for the process's). */
  admit(userId: string): void {
    let mine = 0;
    for (const stream of this.#open) if (stream.userId === userId) mine += 1;
    if (mine >= MAX_STREAMS_PER_USER) throw errors.streamsPerUser(MAX_STREAMS_PER_USER);
    if (this.#open.size >= MAX_STREAMS) throw errors.busy();
  }

  /**
   * Tracks an open stream until its response closes; `end` sends the last event and ends the response.
   * It is ended when `expiresAt` (ISO) passes.
   */
  add(stream: OpenStream, expiresAt: string): void {
    this.#open.add(stream);
    const expiry = setTimeout(
      () => stream.end('expired'),
      Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(expiresAt) - this.now().getTime())),
    );
    expiry.unref();
    stream.res.once('close', () => {
      clearTimeout(expiry);
      this.#open.delete(stream);
      if (this.#open.size === 0) this.#stopRecheck();
    });
    this.#recheck ??= setInterval(() => void this.recheck(), this.recheckMs);
    this.#recheck.unref();
  }

  /** Ends every stream of the session (a token hash): the session was signed out here. */
  endSession(session: string, reason: EndReason = 'signed_out'): void {
    for (const stream of [...this.#open]) if (stream.session === session) stream.end(reason);
  }

  /** Ends the streams whose session is gone or expired; a failed read leaves them for the next one. */
  async recheck(): Promise<void> {
    const sessions = [...new Set([...this.#open].map((s) => s.session))];
    if (sessions.length === 0) return;
    const live = await liveSessionHashes(this.db, sessions, this.now().toISOString()).catch(() => null);
    if (!live) return;
    for (const stream of [...this.#open]) if (!live.has(stream.session)) stream.end('signed_out');
  }

  /** The server is closing: streams never end by themselves, and would hold its close up. */
  endAll(): void {
    for (const stream of [...this.#open]) stream.end('shutdown');
    this.#stopRecheck();
  }

  get size(): number {
    return this.#open.size;
  }

  #stopRecheck(): void {
    if (this.#recheck) clearInterval(this.#recheck);
    this.#recheck = null;
  }
}
