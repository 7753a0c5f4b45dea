import type { Limits } from '../config';
import { AppError, validationFailed } from '../errors';

/**
 * Caps on live WebSocket use per IP address and per account, on top of the per-token and per-socket caps
 * (docs/limits.md, "WebSocket limits"). Without them, one IP opened 1,500 anonymous sockets with
 * 100 subscriptions each, and one person with 40 tokens held 20,000 subscriptions; each of their writes
 * then fanned out to all of them. Counted per server instance, like the per-token cap.
 *
 * A cap of 0 means no cap (benchmarks that run thousands of subscribers from one address).
 */
class Counter {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Counts one more for `key`; false (and nothing counted) when `key` is at the cap. */
  tryAdd(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    if (this.max > 0 && n >= this.max) return false;
    this.counts.set(key, n + 1);
    return true;
  }

  /** Whether `key` is at the cap (one more would be refused). */
  full(key: string): boolean {
    return this.max > 0 && (this.counts.get(key) ?? 0) >= this.max;
  }

  remove(key: string): void {
    const n = (this.counts.get(key) ?? 1) - 1;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }
}

/** Token hashes whose account is remembered for refusals before a lookup (a few MB at most). */
const TOKENS_REMEMBERED = 10_000;

/** What one socket holds against the caps (kept on graphql-ws's `extra`). */
export interface CappedSocket {
  readonly ip: string;
  /** The account its operations count against, once admitted; null for anonymous sockets. */
  capAccount?: string | null;
  /** Whether it holds a place among the anonymous sockets of its IP / the sockets of its account. */
  capAdmitted?: boolean;
  /** Ids of its running operations that are counted. */
  capOperations?: Set<string>;
}

/** The close code and reason of a socket refused at a cap (graphql-ws's 4429, "too many"). */
export interface CapRefusal {
  code: 4429;
  reason: string;
}

export class WsCaps {
  private readonly socketsPerIp: Counter;
  private readonly anonymousPerIp: Counter;
  private readonly socketsPerAccount: Counter;
  private readonly operationsPerIp: Counter;
  private readonly operationsPerAccount: Counter;

  /**
   * The operation refusals, made once: they are the same every time, and a burst of refused subscribes
   * (a socket sends a hundred in one packet) would otherwise build a GraphQLError, stack trace and all
   * (~60 µs), for each. Nothing mutates them: the answers are formatted copies.
   */
  private readonly perIpRefusal: AppError;
  /** Token hash -> account, as last looked up (see knownAccountRefusal). */
  private readonly accountOfToken = new Map<string, string>();
  private readonly perAccountRefusal: AppError;
  private readonly perIpUpgradeRefusal: AppError;

  constructor(limits: Limits) {
    this.socketsPerIp = new Counter(limits.wsConnectionsPerIp);
    this.anonymousPerIp = new Counter(limits.wsAnonymousConnectionsPerIp);
    this.socketsPerAccount = new Counter(limits.wsConnectionsPerAccount);
    this.operationsPerIp = new Counter(limits.wsSubscriptionsPerIp);
    this.operationsPerAccount = new Counter(limits.wsSubscriptionsPerAccount);
    this.perIpRefusal = validationFailed(`At most ${this.operationsPerIp.max} operations may run at once per IP address; complete one first`, {
      max_subscriptions_per_ip: this.operationsPerIp.max,
    });
    this.perIpUpgradeRefusal = new AppError('RATE_LIMITED', this.perIpSockets(), { max_connections_per_ip: this.socketsPerIp.max });
    this.perAccountRefusal = validationFailed(`At most ${this.operationsPerAccount.max} operations may run at once per account; complete one first`, {
      max_subscriptions_per_account: this.operationsPerAccount.max,
    });
  }

  /**
   * At the HTTP upgrade, before the WebSocket handshake: the refusal (429, in the error shape) of an IP
   * that already holds its cap of sockets, counting nothing. A burst of sockets over the cap then costs
   * no handshake, no socket object and no close frame each.
   */
  upgradeRefusal(ip: string): AppError | null {
    return this.socketsPerIp.full(ip) ? this.perIpUpgradeRefusal : null;
  }

  /** When the socket opens, before it says who it is: every socket of an IP counts. */
  openSocket(ip: string): CapRefusal | null {
    if (this.socketsPerIp.tryAdd(ip)) return null;
    return { code: 4429, reason: this.perIpSockets() };
  }

  private perIpSockets(): string {
    return `At most ${this.socketsPerIp.max} connections per IP address`;
  }

  closeSocket(ip: string): void {
    this.socketsPerIp.remove(ip);
  }

  /**
   * Before a token is looked up: the refusal of a token last seen for an account that holds its cap of
   * sockets now. Only a refusal is taken from what was seen (revocation stays immediate: a token is never
   * admitted without its lookup), and it spares the lookup for each socket of a burst past the cap.
   */
  knownAccountRefusal(tokenHash: string): CapRefusal | null {
    const account = this.accountOfToken.get(tokenHash);
    return account !== undefined && this.socketsPerAccount.full(account) ? this.perAccountSockets() : null;
  }

  /** Once the socket's token is known: anonymous sockets count per IP, the others per account. */
  admit(socket: CappedSocket, accountId: string | null, tokenHash?: string): CapRefusal | null {
    if (accountId !== null && tokenHash) this.remember(tokenHash, accountId);
    const counter = accountId === null ? this.anonymousPerIp : this.socketsPerAccount;
    if (!counter.tryAdd(accountId ?? socket.ip))
      return accountId === null ? { code: 4429, reason: `At most ${counter.max} anonymous connections per IP address` } : this.perAccountSockets();
    socket.capAccount = accountId;
    socket.capAdmitted = true;
    return null;
  }

  private perAccountSockets(): CapRefusal {
    return { code: 4429, reason: `At most ${this.socketsPerAccount.max} connections per account` };
  }

  /** Which account a token hash resolved to, the newest `TOKENS_REMEMBERED` kept. */
  private remember(tokenHash: string, accountId: string): void {
    this.accountOfToken.delete(tokenHash);
    this.accountOfToken.set(tokenHash, accountId);
    if (this.accountOfToken.size > TOKENS_REMEMBERED) this.accountOfToken.delete(this.accountOfToken.keys().next().value!);
  }

  /**
   * The refusal a new operation of `socket` would get now, counting nothing: checked before the operation's
   * document is parsed, validated and rate-counted, so that an IP or account at its cap is refused for the
   * price of two map reads (a socket sends a hundred subscribes in one packet).
   */
  operationRefusal(socket: CappedSocket): AppError | null {
    if (this.operationsPerIp.full(socket.ip)) return this.perIpRefusal;
    const account = socket.capAccount ?? null;
    if (account !== null && this.operationsPerAccount.full(account)) return this.perAccountRefusal;
    return null;
  }

  /** A new operation of `socket`: refused with VALIDATION_FAILED when its IP or its account is at the cap. */
  startOperation(socket: CappedSocket, id: string): AppError | null {
    if (!this.operationsPerIp.tryAdd(socket.ip)) return this.perIpRefusal;
    const account = socket.capAccount ?? null;
    if (account !== null && !this.operationsPerAccount.tryAdd(account)) {
      this.operationsPerIp.remove(socket.ip);
      return this.perAccountRefusal;
    }
    (socket.capOperations ??= new Set()).add(id);
    return null;
  }

  /** The operation ended (completed, failed, or its socket closed); a second call is a no-op. */
  endOperation(socket: CappedSocket, id: string): void {
    if (!socket.capOperations?.delete(id)) return;
    this.operationsPerIp.remove(socket.ip);
    if (socket.capAccount) this.operationsPerAccount.remove(socket.capAccount);
  }

  /** The socket closed: its operations and its places are given back. */
  release(socket: CappedSocket): void {
    for (const id of [...(socket.capOperations ?? [])]) this.endOperation(socket, id);
    if (socket.capAdmitted) {
      socket.capAdmitted = false;
      if (socket.capAccount) this.socketsPerAccount.remove(socket.capAccount);
      else this.anonymousPerIp.remove(socket.ip);
    }
  }
}
