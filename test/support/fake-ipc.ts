import type { LimiterChannel, LimiterHost, LimiterPeer } from '../../src/infra/ipc-limiter.ts';

/**
 * A worker's channel to a LimiterHost in this process, behaving as IPC does: every message is
 * JSON-encoded and arrives on a later turn of the event loop. `answer: false` drops the requests (a
 * primary that never replies); `close()` is the primary going away.
 */
export class FakeChannel implements LimiterChannel {
  connected = true;
  sent = 0;
  #onMessage: ((message: unknown) => void) | null = null;
  #onClose: (() => void) | null = null;
  readonly #peer: LimiterPeer = {
    send: (reply) => {
      const text = JSON.stringify(reply);
      setImmediate(() => this.#onMessage?.(JSON.parse(text)));
    },
    isConnected: () => this.connected,
  };

  constructor(
    private readonly host: LimiterHost | null,
    private readonly answer = true,
  ) {}

  send(message: unknown): void {
    this.sent += 1;
    const text = JSON.stringify(message);
    if (this.answer) setImmediate(() => this.host?.handle(JSON.parse(text), this.#peer));
  }

  listen(onMessage: (message: unknown) => void, onClose: () => void): () => void {
    this.#onMessage = onMessage;
    this.#onClose = onClose;
    return () => {
      this.#onMessage = null;
      this.#onClose = null;
    };
  }

  /** Delivers a message as if the primary had sent it. */
  deliver(message: unknown): void {
    this.#onMessage?.(message);
  }

  close(): void {
    this.connected = false;
    this.#onClose?.();
  }
}
