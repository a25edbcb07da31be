// Delivers the outbox: claims one message at a time, renders it (text, HTML, PDF) from its snapshot,
// hands it to the transport, and records the outcome. Failures are retried with exponential backoff and
// jitter up to a limit, then the message is marked failed with the last error kept.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type Database, fromJson } from '../db/index.js';
import type { PdfPool } from '../mail/pdf-pool.js';
import { cancelStaleReminder, renderDeliveryPdf, trackDelivery } from '../modules/sent-documents/index.js';
import { WorkerLoop } from './worker-loop.js';
import { SYSTEM_ACTOR } from '../kernel/context.js';
import { einvoiceFile, facturxFile } from '../modules/einvoices/index.js';
import type { OutboxMessageRow } from '../db/types.js';
import type { Clock } from '../core/deps.js';
import { renderHtml, renderText, subjectOf, type MailSnapshot } from '../mail/document-mail.js';
import { completeMessage, claimNextMessage } from '../mail/outbox.repository.js';
import type { MailTransport, OutgoingMail } from '../mail/transports.js';

/** Tries to mark a sent message delivered before the step fails (its claim then expires as a crash's would). */
const MARK_TRIES = 6;
/** How many recently served accounts the claim puts behind the others (a bounded list of parameters). */
const RECENT_ACCOUNTS = 32;

export interface OutboxWorkerOptions {
  pollMs: number;
  leaseMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  fromAddress: string;
  /** 0..1: the share of each backoff that is random, so retries from many messages spread out. */
  jitter?: number;
}

/** A file the e-mail carries. */
export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export function composeMail(
  message: OutboxMessageRow,
  snapshot: MailSnapshot,
  pdf: Buffer | MailAttachment[],
  fromAddress: string,
): OutgoingMail {
  return {
    from: { name: snapshot.business.name, address: fromAddress },
    to: message.recipient,
    ...(snapshot.business.email ? { replyTo: { name: snapshot.business.name, address: snapshot.business.email } } : {}),
    subject: subjectOf(snapshot),
    text: renderText(snapshot),
    html: renderHtml(snapshot),
    messageId: message.message_id,
    attachments: Array.isArray(pdf)
      ? pdf
      : [{ filename: `${snapshot.document.number}.pdf`, content: pdf, contentType: 'application/pdf' }],
  };
}

export class OutboxWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly loop: WorkerLoop;
  /** The accounts this worker served lately, least recent first: the claim takes turns between accounts. */
  private recentAccounts: string[] = [];

  constructor(
    private readonly database: Database,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
    private readonly options: OutboxWorkerOptions,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
    /** The PDF renderer the attachments are made with. */
    private readonly pdf: Pick<PdfPool, 'render' | 'logo'>,
  ) {
    this.loop = new WorkerLoop(
      'outbox',
      async () => ((await this.deliverNext()) ? 0 : options.pollMs),
      options.pollMs,
      log,
    );
  }

  /**
   * The message's files: the PDF, and the client's e-invoice beside it (ubl, cii) or instead of it (facturx,
   * which is that PDF with the CII embedded), as the invoice answers them now (its frozen files once sent).
   */
  private async attachmentsOf(message: OutboxMessageRow, snapshot: MailSnapshot): Promise<MailAttachment[]> {
    const format = snapshot.einvoice_format;
    const pdf = async (): Promise<MailAttachment> => ({
      filename: `${snapshot.document.number}.pdf`,
      content: await renderDeliveryPdf(this.database.db, this.pdf, message, snapshot),
      contentType: 'application/pdf',
    });
    if (format === undefined || message.document_type !== 'invoice') return [await pdf()];
    // The e-invoice reads no hosted link: the context needs none.
    const ctx = {
      db: this.database.db,
      clock: this.clock,
      links: { publicBaseUrl: '' },
      accountId: message.account_id,
      actor: SYSTEM_ACTOR,
    };
    const now = this.clock.now();
    if (format === 'facturx') {
      const file = await facturxFile(ctx, this.pdf, 'invoice', message.document_id, now);
      return [{ filename: file.filename, content: file.bytes, contentType: file.contentType }];
    }
    const file = await einvoiceFile(ctx, 'invoice', message.document_id, format, now);
    return [await pdf(), { filename: file.filename, content: file.bytes, contentType: file.contentType }];
  }

  /** Records an attempt's outcome and what goes with it, in one transaction. */
  private async finish(message: OutboxMessageRow, changes: Partial<OutboxMessageRow>): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      const finished = await completeMessage(trx, message.id, this.id, changes);
      if (finished) await trackDelivery(trx, this.clock, finished);
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops taking new messages and resolves once the delivery in progress (if any) is recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Delivers every due message now (the test clock's `POST /test/workers/run`); how many it delivered or tried. */
  async runPass(): Promise<number> {
    let processed = 0;
    while (await this.deliverNext()) processed++;
    return processed;
  }

  /** Claims and delivers one due message; false when there was none. */
  async deliverNext(): Promise<boolean> {
    const now = this.clock.now();
    let canceled = false;
    const message = await this.database.db.transaction().execute(async (trx) => {
      const claimed = await claimNextMessage(
        trx,
        this.id,
        now.toISOString(),
        new Date(now.getTime() + this.options.leaseMs).toISOString(),
        this.recentAccounts,
      );
      if (!claimed) return claimed;
      // A reminder whose invoice was paid (or voided, or switched off) since it was queued is not sent (§23).
      canceled = await cancelStaleReminder(trx, this.clock, claimed, (changes) =>
        completeMessage(trx, claimed.id, this.id, changes),
      );
      if (!canceled) await trackDelivery(trx, this.clock, claimed);
      return claimed;
    });
    if (!message) return false;
    if (canceled) {
      this.log.info({ outboxId: message.id, documentId: message.document_id }, 'outbox: reminder canceled');
      return true;
    }
    this.recentAccounts = [...this.recentAccounts.filter((id) => id !== message.account_id), message.account_id].slice(
      -RECENT_ACCOUNTS,
    );
    const attempts = message.attempts + 1;
    try {
      const snapshot = fromJson<MailSnapshot>(message.snapshot);
      const attachments = await this.attachmentsOf(message, snapshot);
      await this.transport.send(composeMail(message, snapshot, attachments, this.options.fromAddress));
    } catch (error) {
      await this.recordFailure(message, attempts, error);
      return true;
    }
    // Sent: a failure to record it from here on (the database locked a while by another process's writes) is
    // not the delivery's, and must not make it pending again, to be sent twice. The mark is tried again.
    const finished = this.clock.now().toISOString();
    const delivered = { status: 'delivered', attempts, delivered_at: finished, last_error: null, updated_at: finished };
    for (let tried = 1; ; tried++) {
      try {
        await this.finish(message, delivered);
        break;
      } catch (error) {
        if (tried >= MARK_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** tried));
      }
    }
    this.log.info({ outboxId: message.id, documentId: message.document_id, attempts }, 'outbox: delivered');
    return true;
  }

  private async recordFailure(message: OutboxMessageRow, attempts: number, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    const now = this.clock.now();
    if (attempts >= this.options.maxAttempts) {
      await this.finish(message, { status: 'failed', attempts, last_error: reason, updated_at: now.toISOString() });
      this.log.error(
        { outboxId: message.id, documentId: message.document_id, attempts, reason },
        'outbox: delivery failed for good',
      );
      return;
    }
    const backoff = this.options.retryBaseMs * 2 ** (attempts - 1);
    const jitter = backoff * (this.options.jitter ?? 0.2) * Math.random();
    const nextAttempt = new Date(now.getTime() + backoff + jitter).toISOString();
    await this.finish(message, {
      status: 'pending',
      attempts,
      last_error: reason,
      next_attempt_at: nextAttempt,
      updated_at: now.toISOString(),
    });
    this.log.warn({ outboxId: message.id, attempts, nextAttempt, reason }, 'outbox: delivery failed, will retry');
  }
}
